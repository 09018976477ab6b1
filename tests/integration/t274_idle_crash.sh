#!/usr/bin/env bash
# sbxd killed (SIGKILL) while an idle folder's database is open: the
# folder was served lazily after a clean stop (its idle record matched,
# daemon/idle.h), a request opened it (the record is removed then, before
# anything writes the database), a command runs, sbxd dies. The next start
# must not take the folder for idle: no record, and what sbxd left (WAL
# frames, a run recorded as running) differs from any old one. It opens the
# folder in full and recovers: the run is recorded as interrupted, never
# run again. Checked from outside (state.db, the result, runs.log).
. "$(dirname "$0")/lib.sh"

IDLE="$SBX_CONFIG_DIR/idle"
db_open() { ls -l "/proc/$DPID/fd" 2>/dev/null | grep -q " $FOLDER/.sandbox/state.db\$"; }

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1, "exec_timeout_seconds": 60}'
start_daemon && stop_daemon
rec=$(ls "$IDLE"/* 2>/dev/null | head -1)
cp "$rec" "$T/rec.old"
start_daemon
! db_open
ok $? "served lazily after a clean stop (record matched)"

out=$(hook_bash "./task.sh sleep 29")
id=$(echo "$out" | reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
like "$id" "^[0-9a-f]{16}$" "a request opens the folder's database"
[ ! -e "$rec" ]
ok $? "the idle record is removed once the database is open"
wait_for 10 known "$id"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait_for 10 grep -q "run sleep 29" "$FOLDER/runs.log"
ok $? "the approved command runs"
kill -9 "$DPID"
wait "$DPID" 2>/dev/null
DPID=""
wait_for 10 test -f "$FOLDER/.sandbox/results/$id.json"
ok $? "sbxd killed: the executor records the run"

# An attacker (or a stale copy) puts the old record back: it no longer
# describes the folder (what sbxd left differs).
cp "$T/rec.old" "$rec"
start_daemon
ok $? "sbxd starts again"
like "$(cat "$T/sbxd.log")" "opened in full" "the old record does not match: opened in full"
is "$("$SBX" -C "$FOLDER" show "$id" --json | jq -r .status)" "interrupted" \
	"the recovery records the run as interrupted"
out=$(hook_bash "./task.sh sleep 29")
like "$(echo "$out" | reason | head -1)" "interrupted while running" "the agent learns it was interrupted"
is "$(grep -c "run sleep 29" "$FOLDER/runs.log")" "1" "and it was not run again"
stop_daemon
"$SBX" -C "$FOLDER" audit verify >/dev/null 2>&1
ok $? "the audit log verifies"
done_testing
