#!/usr/bin/env bash
# Remembered rules are used only as their approver signed them: a rule row
# inserted into state.db, or a signed one edited to cover more, does not
# auto-approve anything; the request waits for a human.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 2}'
DB="$FOLDER/.sandbox/state.db"
# The edits below wait while sbxd holds state.db's write lock (it may be
# in a transaction just then) instead of failing "database is locked".
db() { sqlite3 -cmd ".timeout 10000" "$DB" "$1"; }
req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }
start_daemon

# A real remembered approval keeps working.
a=$(hook_bash "./task.sh remember me" | req_id)
wait_for 10 has_pending
"$SBX" -C "$FOLDER" approve "$a" --prefix "./task.sh remember" >/dev/null
wait_for 10 test -f "$FOLDER/.sandbox/results/$a.json"
like "$(hook_bash "./task.sh remember again" | reason)" "ALREADY EXECUTED" \
	"a signed remembered rule auto-approves what it covers"

# A rule row inserted behind sbx's back, claiming the highest risk and
# every risk factor (so only the missing signature can stop it).
db "INSERT INTO rules (scope, prefix, tool, approver, key_id, created, expires,
	risk, factors) VALUES ('prefix', './task.sh forged', 'Bash', 'root', 'x',
	strftime('%s','now'), 0, 99, 2147483647)"
r=$(hook_bash "./task.sh forged run" | reason)
like "$r" "pending as request" "an inserted rule does not auto-approve"
grep -q "NOT used: it carries no signed decision" "$T/sbxd.log"
ok $? "sbxd says why it ignored the rule"

# The signed rule, edited by an UPDATE to cover other commands.
db "UPDATE rules SET prefix = './task.sh widened' WHERE prefix = './task.sh remember'"
r=$(hook_bash "./task.sh widened x" | reason)
like "$r" "pending as request" "a rule edited to cover something else does not auto-approve"
grep -q "differs from what root signed" "$T/sbxd.log"
ok $? "sbxd says the stored rule differs from the signed one"
like "$(cat "$FOLDER"/.sandbox/audit.jsonl | jq -r 'select(.event == "rule_refused") | .data.why' | tr '\n' ' ')" \
	"no signed decision.*differs" "both refusals are in the audit log"
is "$(grep -c 'run forged\|run widened' "$FOLDER/runs.log")" "0" "neither ran"

done_testing
