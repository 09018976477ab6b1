#!/usr/bin/env bash
# A hostile agent against the event-driven sbxd: it floods the queue with
# junk and real requests at once, then replaces its folder's queue/new.
# Every real request is handled once (run once after approval, none run
# twice); junk goes to rejected/; the replaced folder is dropped loudly
# while the other folder is still served; sbxd then sleeps, not spinning.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/evlib.sh"

command -v python3 >/dev/null || skip_all "python3 is needed to flood the queue"
init_folder
setup_task
set_limits '{"hook_wait_seconds": 1}'
B="$T/other"
mkdir -p "$B"
"$SBX" init "$B" >/dev/null 2>&1
FOLDER=$B setup_task
FOLDER=$B set_limits '{"hook_wait_seconds": 60}'
: >"$T/sbxd.log"
"$SBXD" --all 2>>"$T/sbxd.log" &
DPID=$!
wait_for 20 sh -c "[ \$(grep -c '] serving' '$T/sbxd.log') -ge 2 ]"
ok $? "sbxd --all serves both folders"

# 500 junk files and 20 real requests, at once.
python3 - "$FOLDER/.sandbox/queue/new" <<'PY' &
import os, sys
d = sys.argv[1]
for i in range(500):
    with open(os.path.join(d, "junk-%d.json" % i), "w") as f:
        f.write("{not json")
PY
pids=$!
for k in $(seq 20); do
	(hook_bash "./task.sh flood-$k" >/dev/null) &
	pids="$pids $!"
done
wait $pids
wait_for 120 sh -c "[ \$('$SBX' -C '$FOLDER' pending --json | jq length) -ge 20 ]"
ok $? "all 20 real requests are pending"
wait_for 120 sh -c "[ -z \"\$(ls '$FOLDER/.sandbox/queue/new')\" ]"
ok $? "queue/new is empty: every junk file was dealt with"
is "$(ls "$FOLDER/.sandbox/rejected" | grep -c '^[0-9]*-junk-[0-9]*\.json$')" "500" \
	"the 500 junk files are in rejected/"
for id in $(pending_ids); do
	"$SBX" -C "$FOLDER" approve "$id" >/dev/null
done
wait_for 120 sh -c "[ \$(ls '$FOLDER/.sandbox/results' | grep -c '^[0-9a-f]*\.json$') -ge 20 ]"
ok $? "each approved request has its result"
is "$(runs)" "20" "20 commands ran"
is "$(sort "$FOLDER/runs.log" | uniq -d | wc -l | tr -d ' ')" "0" "none ran twice"

# The agent swaps its queue/new for a directory of its own.
mv "$FOLDER/.sandbox/queue/new" "$FOLDER/.sandbox/queue/new.old"
mkdir "$FOLDER/.sandbox/queue/new"
wait_for 30 grep -q "\[$FOLDER\] STOPPED SERVING THIS FOLDER: .sandbox/queue/new" "$T/sbxd.log"
ok $? "sbxd drops the folder whose queue/new was replaced, loudly"
(cd "$B" && bash_payload "./task.sh still-served" "$B" | CLAUDE_PROJECT_DIR="$B" "$HOOK" pre \
	>"$T/hb") &
hp=$!
wait_for 60 sh -c "'$SBX' -C '$B' pending --json | jq -e 'length > 0' >/dev/null"
"$SBX" -C "$B" approve "$("$SBX" -C "$B" pending --json | jq -r '.[0].id')" >/dev/null
wait "$hp"
like "$(reason <"$T/hb")" "out: still-served" "the other folder is still served"
# Requests dropped into the replaced queue are not touched.
hook_bash "./task.sh into-the-void" >/dev/null
[ -n "$(ls "$FOLDER/.sandbox/queue/new")" ]
ok $? "a request in the replaced queue/new is left alone"
if can_see_sleep; then
	wait_for 60 sleeping "$DPID"
	ok $? "sbxd sleeps in poll(2) with no timeout: no spinning on the lost folder"
else
	ok 0 "# SKIP this machine does not show the syscall a process sleeps in"
fi
kill -0 "$DPID"
ok $? "sbxd keeps running"
stop_daemon
done_testing
