#!/usr/bin/env bash
# Expired requests never run: sbxd checks the deadline in the transaction
# that consumes a decision, `sbx approve` refuses, and the expiry pass
# covers every pending request, however many there are.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1, "request_ttl_seconds": 10}'
start_daemon
ok $? "sbxd starts"

req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }
status_of() { "$SBX" -C "$FOLDER" show "$1" --json | jq -r .status; }

# Two requests; sbxd is then frozen (SIGSTOP) so that its 5-second expiry
# pass cannot get there first.
a=$(hook_bash "./task.sh late-consume" | req_id)
b=$(hook_bash "./task.sh late-approve" | req_id)
wait_for 10 bash -c "[ \$($SBX -C $FOLDER pending --json | jq length) = 2 ]"
ok $? "two requests are pending"
kill -STOP "$DPID"
# a: approved while live, consumed by sbxd after its deadline.
"$SBX" -C "$FOLDER" approve "$a" >/dev/null
ok $? "approved while the request was still live"
sleep 11
# b: `sbx approve` after the deadline, before sbxd's pass marked it.
"$SBX" -C "$FOLDER" approve "$b" 2>"$T/late.err" >/dev/null
rc=$?
[ $rc -ne 0 ]
ok $? "sbx approve refuses a request past its deadline"
like "$(cat "$T/late.err")" "expired" "and says it expired"
ls "$FOLDER/.sandbox/decisions/new/" | grep -q "^$b"
[ $? -ne 0 ]
ok $? "no decision file was written for it"
kill -CONT "$DPID"
wait_for 10 test -f "$FOLDER/.sandbox/results/$a.json"
ok $? "a result is written for the late-consumed approval"
is "$(jq -r .status "$FOLDER/.sandbox/results/$a.json")" "expired" "the request expired, it did not run"
wait_for 5 grep -q "expired before this decision arrived" "$T/sbxd.log"
ok $? "sbxd says why it refused the decision"
is "$(status_of "$a")" "expired" "the database says expired"
wait_for 10 test -f "$FOLDER/.sandbox/results/$b.json"
is "$(status_of "$b")" "expired" "sbxd expires the other one"
is "$(runs)" "0" "nothing ran"

# The expiry pass covers every request: 1,000 newer live requests do not
# hide an older expired one (the pass used to look at the newest 1,000).
stop_daemon
now=$(date +%s)
sqlite3 -cmd '.timeout 5000' "$FOLDER/.sandbox/state.db" "
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
INSERT INTO requests (id, hash, tool, command, input, cwd, created, expires, status)
SELECT printf('aa%014x', i), printf('%064x', i), 'Bash', 'true', '{\"command\":\"true\"}',
       '$FOLDER', $now, $now + 3600, 'pending' FROM n;
INSERT INTO requests (id, hash, tool, command, input, cwd, created, expires, status)
VALUES ('bb00000000000001', printf('%064x', 99999), 'Bash', 'true', '{\"command\":\"true\"}',
       '$FOLDER', $now - 100, $now - 10, 'pending');"
is "$("$SBX" -C "$FOLDER" pending --json | jq length)" "1001" "sbx pending lists all 1,001 pending requests"
start_daemon
wait_for 10 test -f "$FOLDER/.sandbox/results/bb00000000000001.json"
ok $? "the oldest, expired request gets its result at start"
is "$(status_of bb00000000000001)" "expired" "behind 1,000 newer ones, it is expired"
is "$("$SBX" -C "$FOLDER" pending --json | jq length)" "1000" "the 1,000 live ones stay pending"

done_testing
