#!/usr/bin/env bash
# The hook waits for its result on a per-request wake FIFO
# (.sandbox/queue/wake/ID, common/protocol/wake.h), not on an inotify watch of
# results/. The agent can write into the folder, so the channel is only a
# hint: a forged wake (bytes written into the FIFO, with or without a
# forged result) never makes the hook deliver anything sbxd did not sign
# for this request; a FIFO removed or replaced by a regular file or a
# symlink only costs the bounded re-check, and sbxd never writes into
# anything but a FIFO.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1}'
start_daemon
W="$FOLDER/.sandbox/queue/wake"
req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }
# poke FIFO: an attacker's wake, without blocking when nobody reads
poke() { python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK)
os.write(fd, b"wake" * 16)' "$1" 2>/dev/null; }
# hook_bg CMD: the hook for CMD in the background (pid in HP, answer in $T/bg.out),
# waiting up to 30 s
hook_bg() {
	set_limits '{"hook_wait_seconds": 30}'
	(hook_bash "$1" >"$T/bg.out") &
	HP=$!
}
is_fifo() { [ -p "$1" ]; }

# 1. The ordinary path: the FIFO exists while the hook waits, the hook is
# answered as soon as the result is there, and the name is gone.
id=$(hook_bash "./task.sh one" | req_id)
[ -n "$id" ]
ok $? "a request is pending"
[ -p "$W/$id" ]
ok $? "the hook made a wake FIFO for it (queue/wake/ID)"
hook_bg "./task.sh one"
wait_for 10 is_fifo "$W/$id"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait $HP
like "$(reason <"$T/bg.out")" "ALREADY EXECUTED" "the waiting hook delivers the result"
like "$(reason <"$T/bg.out")" "out: one" "with its output"
[ ! -e "$W/$id" ]
ok $? "the FIFO's name is gone after the answer (the hook gave it back to the pool)"

# 2. A forged wake with a forged result: nothing is delivered, the hook
# keeps waiting, and the real result still arrives.
set_limits '{"hook_wait_seconds": 1}'
id=$(hook_bash "./task.sh two" | req_id)
wait_for 10 known "$id"
h=$("$SBX" -C "$FOLDER" show "$id" --json | jq -r .hash)
hook_bg "./task.sh two"
wait_for 10 is_fifo "$W/$id"
jq -cn --arg id "$id" --arg h "$h" '{v: 1, id: $id, hash: $h, status: "done", approver: "root",
	reason: "", finished: 1, exit_code: 0, signal: 0, duration_ms: 1,
	stdout: "FORGED OUTPUT", stdout_bytes: 13, stderr: "", stderr_bytes: 0,
	sig: ("00" * 64)}' >"$FOLDER/.sandbox/results/$id.json"
for _ in 1 2 3 4 5; do poke "$W/$id"; sleep 0.1; done
kill -0 $HP 2>/dev/null
ok $? "forged wakes and a forged result do not end the wait"
is "$(runs | tr -d ' ')" "1" "and nothing ran"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait $HP
r=$(reason <"$T/bg.out")
like "$r" "out: two" "the hook delivers the real result"
unlike "$r" "FORGED" "never the forged one"

# 3. The channel replaced by a regular file (and one hard-linked to a
# file outside the folder): sbxd writes into neither; the hook falls
# back to its re-check and is answered well before its deadline.
set_limits '{"hook_wait_seconds": 1}'
id=$(hook_bash "./task.sh three" | req_id)
hook_bg "./task.sh three"
wait_for 10 is_fifo "$W/$id"
echo "victim" >"$T/victim"
# (one rename: the waiting hook re-checks its name and would make its
# FIFO anew between an rm and an ln)
ln "$T/victim" "$W/.planted" && mv -fT "$W/.planted" "$W/$id"
ok $? "the FIFO is replaced by a hard link to a file outside the folder"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait $HP
like "$(reason <"$T/bg.out")" "out: three" "the hook still gets its result (re-check without a wake)"
is "$(cat "$T/victim")" "victim" "sbxd wrote nothing into the replaced channel"

# 4. A symlink to the attacker's own FIFO outside the folder: sbxd does not
# follow it (nothing arrives there), and the hook is answered.
set_limits '{"hook_wait_seconds": 1}'
id=$(hook_bash "./task.sh four" | req_id)
hook_bg "./task.sh four"
wait_for 10 is_fifo "$W/$id"
mkfifo "$T/outside"
exec 7<>"$T/outside"
ln -s "$T/outside" "$W/.planted" && mv -fT "$W/.planted" "$W/$id"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait $HP
like "$(reason <"$T/bg.out")" "out: four" "the hook gets its result with a symlinked channel"
got=$(python3 -c 'import os
os.set_blocking(7, False)
try:
    print(len(os.read(7, 100)))
except BlockingIOError:
    print(0)')
is "$got" "0" "sbxd did not write through the symlink"
exec 7<&-

# 5. A channel removed (no wake will come): the bounded re-check answers.
set_limits '{"hook_wait_seconds": 1}'
id=$(hook_bash "./task.sh five" | req_id)
hook_bg "./task.sh five"
wait_for 10 is_fifo "$W/$id"
rm -f "$W/$id"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait $HP
like "$(reason <"$T/bg.out")" "out: five" "a missing wake falls back to the re-check"

# 6. A regular file planted at the name before the hook attaches: the
# hook waits without a channel and is answered.
set_limits '{"hook_wait_seconds": 1}'
id=$(hook_bash "./task.sh six" | req_id)
wait_for 10 known "$id"
rm -f "$W/$id" && echo planted >"$W/$id"
hook_bg "./task.sh six"
sleep 0.3
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait $HP
like "$(reason <"$T/bg.out")" "out: six" "a planted regular file does not stop the wait"

is "$(runs | tr -d ' ')" "6" "each request ran exactly once"
done_testing
