#!/usr/bin/env bash
# Approved commands run by sbxd get the policy's resource limits (CPU
# seconds, memory, processes), and the output that goes back to the model
# is scrubbed of secrets while the full output on disk stays as it was.
# Real processes: a CPU burner, a memory hog, a fork bomb, a token leak.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || { echo "1..0 # SKIP python3 is not installed"; exit 0; }

init_folder
cat >"$FOLDER/task.sh" <<'SH'
#!/bin/sh
case "$1" in
cpu) while :; do :; done ;;
mem) exec python3 -c 'x = bytearray(1024 * 1024 * 1024); print("allocated", len(x))' ;;
bomb) exec python3 -c '
import os, time
n = 0
kids = []
try:
    for i in range(2000):
        pid = os.fork()
        if pid == 0:
            time.sleep(30); os._exit(0)
        kids.append(pid); n += 1
except OSError as e:
    print("fork refused after", n, e.strerror)
else:
    print("forked all", n)
' "bomb:$(cd "$(dirname "$0")" && pwd)" ;;
token) echo "here is the token ghp_0123456789abcdefghijABCDEFGHIJ012345 and more"
       echo "password=hunter2hunter2" >&2 ;;
ok) echo fine ;;
esac
SH
chmod +x "$FOLDER/task.sh"
add_rule escalate 'Bash(./task.sh:*)'
set_limits '{"hook_wait_seconds": 60, "exec_timeout_seconds": 60, "exec_cpu_seconds": 2,
	"exec_memory_bytes": 268435456, "exec_max_processes": 40}'
start_daemon

# run CMD: the hook's answer for an escalated CMD, approved at once.
run() {
	hook_bash "$1" >"$T/ans" &
	local hp=$!
	wait_for 20 has_pending
	"$SBX" -C "$FOLDER" approve "$(pending_ids)" >/dev/null 2>&1
	wait "$hp"
	reason <"$T/ans"
}

r=$(run "./task.sh cpu")
id=$(echo "$r" | head -1 | grep -oE '[0-9a-f]{16}' | head -1)
res=$("$SBX" -C "$FOLDER" show "$id" --json)
is "$(echo "$res" | jq -r .result.timed_out)" "false" "the CPU burner was not stopped by the timeout"
like "$(echo "$res" | jq -r '"\(.result.signal) \(.result.exit_code)"')" "^(24 null|9 null|0 152)$" \
	"it was killed by the CPU limit (SIGXCPU or SIGKILL, or its shell says 128+SIGXCPU)"
is "$(echo "$res" | jq -r '.result.limit')" "cpu" "the result says which limit"

r=$(run "./task.sh mem")
unlike "$r" "allocated" "a 1 GiB allocation fails under a 256 MiB memory limit"
like "$r" "MemoryError|Cannot allocate|exit status [1-9]" "and the command reports it"

r=$(run "./task.sh bomb")
like "$r" "fork refused after [0-9]+" "a fork bomb is refused"
n=$(echo "$r" | grep -oE 'fork refused after [0-9]+' | grep -oE '[0-9]+$')
[ -n "$n" ] && [ "$n" -le 40 ]
ok $? "after at most 40 processes (got ${n:-none})"
# this test's own: the bomb's processes carry its folder in their argv
# (they are killed with the run's cgroup, which may take a moment)
wait_for 10 sh -c '! pgrep -f -- "bomb:$1\$" >/dev/null' sh "$FOLDER"
left=$(pgrep -f -- "bomb:$FOLDER\$" | wc -l)
is "$left" 0 "nothing of the run is left behind"

r=$(run "./task.sh token")
id=$(echo "$r" | head -1 | grep -oE '[0-9a-f]{16}' | head -1)
unlike "$r" "ghp_0123456789abcdef" "a GitHub token in stdout does not reach the model"
unlike "$r" "hunter2" "a password in stderr does not reach the model"
like "$r" "REDACTED" "the answer shows where something was redacted"
grep -q "ghp_0123456789abcdefghijABCDEFGHIJ012345" "$FOLDER/.sandbox/results/$id.stdout"
ok $? "the full output on disk keeps it, for the human"
is "$(jq -r .stdout_redactions "$FOLDER/.sandbox/results/$id.json")" "1" "the result counts the redactions"

r=$(run "./task.sh ok")
like "$r" "fine" "sbxd still runs commands after all that"

# Validation of the new keys.
p="$FOLDER/.sandbox/policy.json"
jq '.limits.exec_memory_bytes = 1000' "$p" >"$p.new" && mv "$p.new" "$p"
out=$("$SBX" -C "$FOLDER" policy accept 2>&1)
like "$out" "exec_memory_bytes must be 0 \\(no limit\\) or at least 16777216" "a memory limit too small to start a shell is refused"
jq '.limits.exec_memory_bytes = 0 | .limits.exec_max_processes = "many"' "$p" >"$p.new" && mv "$p.new" "$p"
out=$("$SBX" -C "$FOLDER" policy accept 2>&1)
like "$out" "exec_max_processes must be a number" "a non-number is refused"
done_testing
