#!/usr/bin/env bash
# Defence in depth where the agent's code can touch .sandbox/: a request
# row edited in state.db after approval does not run; file names cannot
# fake sbxd's log lines; a decision that vanished before its inotify event
# is not reported as rejected.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1}'
DB="$FOLDER/.sandbox/state.db"
req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }
start_daemon

# 1. The command column changed after approval (sqlite3 UPDATE).
a=$(hook_bash "./task.sh benign-a" | req_id)
wait_for 10 has_pending
stop_daemon
"$SBX" -C "$FOLDER" approve "$a" >/dev/null
sqlite3 -cmd '.timeout 5000' "$DB" "UPDATE requests SET command = 'touch pwned-a' WHERE id = '$a'"
start_daemon
wait_for 10 test -f "$FOLDER/.sandbox/results/$a.json"
ok $? "the edited request gets a result"
[ ! -e "$FOLDER/pwned-a" ]
ok $? "the edited command did not run"
is "$(runs)" "0" "nor the original"
is "$(jq -r .status "$FOLDER/.sandbox/results/$a.json")" "rejected" "it is rejected"
like "$(jq -r .reason "$FOLDER/.sandbox/results/$a.json")" "state.db was edited" "and says why"
like "$(cat "$FOLDER"/.sandbox/audit.jsonl | jq -r --arg id "$a" 'select(.request == $id) | .event' | tr '\n' ' ')" \
	"approval_consumed exec_refused request_closed" "the audit log records the refusal"

# 2. The stored input changed too (consistent with the command column):
# its hash no longer matches the approved one.
b=$(hook_bash "./task.sh benign-b" | req_id)
wait_for 10 has_pending
stop_daemon
"$SBX" -C "$FOLDER" approve "$b" >/dev/null
sqlite3 -cmd '.timeout 5000' "$DB" "UPDATE requests SET command = 'touch pwned-b',
	input = '{\"command\":\"touch pwned-b\",\"description\":\"x\"}' WHERE id = '$b'"
start_daemon
wait_for 10 test -f "$FOLDER/.sandbox/results/$b.json"
[ ! -e "$FOLDER/pwned-b" ]
ok $? "a request whose input was edited does not run"
like "$(jq -r .reason "$FOLDER/.sandbox/results/$b.json")" "no longer matches the approved hash" \
	"its hash is checked again before exec"

# 3. A file name that would fake a log line is escaped.
touch "$FOLDER/.sandbox/decisions/new/x"$'\n''sbxd 00:00:00 [fake] request 0000 approved by root'
wait_for 10 grep -q 'rejected decisions/new/x' "$T/sbxd.log"
ok $? "the bad decision file is rejected"
is "$(grep -c '^sbxd 00:00:00 \[fake\]' "$T/sbxd.log")" "0" "its name cannot start a line of sbxd's log"
like "$(grep 'rejected decisions/new/x' "$T/sbxd.log")" 'x\\nsbxd 00:00:00' "the newline is shown escaped"
# a name with a newline and a byte that is not UTF-8: each escaped once
# (sbxd used to escape controls as \x0a and then, the line holding
# invalid UTF-8, doubled that backslash when showing it)
touch "$FOLDER/.sandbox/decisions/new/y"$'\n''z'$'\xff'
wait_for 10 grep -q 'rejected decisions/new/y' "$T/sbxd.log"
ok $? "a name with a newline and invalid UTF-8 is rejected"
like "$(grep 'rejected decisions/new/y' "$T/sbxd.log")" 'y\\nz\\xff' "both are shown escaped"
unlike "$(grep 'rejected decisions/new/y' "$T/sbxd.log")" '\\\\' "and escaped once: no doubled backslash"

# 4. A decision consumed (or removed) before its inotify event is read is
# not a rejection.
kill -STOP "$DPID"
echo '{}' >"$FOLDER/.sandbox/decisions/new/0123456789abcdef.0123456789abcdef0123456789abcdef.json"
rm "$FOLDER/.sandbox/decisions/new/0123456789abcdef.0123456789abcdef0123456789abcdef.json"
kill -CONT "$DPID"
sleep 2
grep -q "rejected decisions/new/0123456789abcdef" "$T/sbxd.log"
[ $? -ne 0 ]
ok $? "a vanished decision file is not reported as rejected"
is "$(grep -c '0123456789abcdef.0123456789abcdef' "$FOLDER"/.sandbox/audit.jsonl)" "0" "nor recorded as file_rejected"

done_testing
