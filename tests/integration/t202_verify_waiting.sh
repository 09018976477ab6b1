#!/usr/bin/env bash
# `sbx audit verify` counts only the records committed in state.db that
# the log does not have yet. sbxd deletes an intent only at its next
# transaction after writing the record, so intents for records already in
# the log are normal and must not be reported as waiting.
. "$(dirname "$0")/lib.sh"

FAULTY="$TOOLS/sbxd-faults"
req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }
intents() { sqlite3 -cmd '.timeout 5000' "$FOLDER/.sandbox/state.db" "SELECT count(*) FROM audit_intents"; }
died() { ! kill -0 "$DPID" 2>/dev/null; }

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1}'

start_faulty() {	# start_faulty STEP: an sbxd that kills itself at STEP
	: >"$T/sbxd.log"
	SBX_FAULT=$1 "$FAULTY" "$FOLDER" 2>>"$T/sbxd.log" &
	DPID=$!
	wait_for 10 grep -q serving "$T/sbxd.log"
}

# 1. sbxd killed after it wrote and synced an approval's records
# (decision, approval_consumed), before the next transaction deleted
# their intents: they are in the log, nothing waits.
start_faulty before-start
hook_bash "./task.sh one" >"$T/one.out"
a=$(req_id <"$T/one.out")
wait_for 10 known "$a"
"$SBX" -C "$FOLDER" approve "$a" >/dev/null
wait_for 10 died
ok $? "sbxd is killed right after the approval's records are in the log"
wait "$DPID" 2>/dev/null; DPID=""
grep -q "\"event\":\"approval_consumed\".*\"request\":\"$a\"\|\"request\":\"$a\".*\"event\":\"approval_consumed\"" \
	"$FOLDER/.sandbox/audit.jsonl"
ok $? "the log has approval_consumed"
n=$(intents)
[ "$n" -gt 0 ]
ok $? "state.db still holds $n intent(s) whose records are in the log"
out=$("$SBX" -C "$FOLDER" audit verify 2>&1)
ok $? "audit verify: OK"
unlike "$out" "not in the log yet|wait to be written" "and says no record waits: they are all in the log"
is "$("$SBX" -C "$FOLDER" audit verify --json | jq .waiting_intents)" 0 "--json: waiting_intents 0"
start_daemon
wait_for 10 test -f "$FOLDER/.sandbox/results/$a.json"
ok $? "restarted, sbxd finishes the request"
stop_daemon

# 2. sbxd killed between the commit of a request and its audit record:
# one record is really waiting.
start_faulty request-committed
b=$(hook_bash "./task.sh two" | req_id)
wait_for 10 died
ok $? "sbxd is killed between the request's commit and its record"
wait "$DPID" 2>/dev/null; DPID=""
is "$(intents)" 1 "state.db holds that intent"
out=$("$SBX" -C "$FOLDER" audit verify 2>&1)
ok $? "audit verify: OK (the chain is whole)"
like "$out" "note: 1 record committed in state.db is not in the log yet; sbxd writes it when it can" \
	"and says exactly one record waits, in the singular"
is "$("$SBX" -C "$FOLDER" audit verify --json | jq .waiting_intents)" 1 "--json: waiting_intents 1"

# 3. Restarted: sbxd writes it; nothing waits.
start_daemon
wait_for 10 grep -q "\"request\":\"$b\"" "$FOLDER/.sandbox/audit.jsonl"
ok $? "after a restart the record is in the log"
stop_daemon
out=$("$SBX" -C "$FOLDER" audit verify 2>&1)
unlike "$out" "not in the log yet" "and verify no longer says a record waits"
done_testing
