#!/usr/bin/env bash
# Dual control: requests the policy marks run only after two different
# approvers; one deny is enough to refuse.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
p="$FOLDER/.sandbox/policy.json"
jq '.two_approvers = {"risk": "high", "rules": ["Bash(./task.sh deploy:*)"]}' "$p" >"$T/p" && mv "$T/p" "$p"
accept_policy
set_limits '{"hook_wait_seconds": 1}'
start_daemon

mkdir -p "$T/alice-proj"
SBX_CONFIG_DIR="$T/alice" "$SBX" init --name alice "$T/alice-proj" >/dev/null
"$SBX" approvers add alice "$(SBX_CONFIG_DIR="$T/alice" "$SBX" approvers self | cut -d' ' -f2)" >/dev/null
alice() { SBX_CONFIG_DIR="$T/alice" "$SBX" -C "$FOLDER" "$@"; }
idof() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }
status() { "$SBX" -C "$FOLDER" show "$1" --json | jq -r .status; }

like "$("$SBX" -C "$FOLDER" policy show)" "two_approvers" "sbx policy show includes two_approvers"

id=$(hook_bash "./task.sh deploy prod" | idof)
wait_for 10 has_pending
is "$("$SBX" -C "$FOLDER" pending --json | jq -r '.[0].approvals_needed')" "2" "a deploy needs two approvers"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait_for 10 bash -c "$SBX -C $FOLDER show $id --json | jq -e '.approved_by'"
ok $? "the first approval is recorded"
is "$(status "$id")" "pending" "after one approval the request still waits"
is "$(runs)" "0" "and nothing ran"
like "$("$SBX" -C "$FOLDER" pending)" "needs two approvers; approved so far by" "sbx pending says it needs a second approver"
"$SBX" -C "$FOLDER" approve "$id" 2>"$T/err"
is "$?" "1" "the same approver cannot approve twice"
like "$(cat "$T/err")" "second, different approver" "and is told why"
h=$("$SBX" -C "$FOLDER" show "$id" --json | jq -r .hash)
n=$("$TOOLS/forge" "$SBX_CONFIG_DIR" "$FOLDER" "$id" "$h" approve)
wait_for 10 bash -c "ls $FOLDER/.sandbox/rejected | grep -q '$n.why'"
ok $? "a second signed approval by the same key reaches sbxd and is rejected"
grep -q "approved already" "$FOLDER"/.sandbox/rejected/*"$n".why
ok $? "as a repeat of the same key"
is "$(status "$id")" "pending" "still pending"
alice approve "$id" >/dev/null
wait_for 10 test -f "$FOLDER/.sandbox/results/$id.json"
ok $? "the second, different approver makes it run"
is "$(jq -r '.status + " " + .approver' "$FOLDER/.sandbox/results/$id.json")" "done $(id -un)+alice" \
	"the result names both approvers"
is "$(runs)" "1" "it ran once"

# One deny is enough.
id=$(hook_bash "./task.sh deploy staging" | idof)
wait_for 10 has_pending
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
sleep 1
alice deny "$id" --reason "not today" >/dev/null
wait_for 10 test -f "$FOLDER/.sandbox/results/$id.json"
is "$(jq -r '.status + ": " + .reason' "$FOLDER/.sandbox/results/$id.json")" "denied: not today" \
	"after one approval, one deny refuses it"

# A remembered rule never stands in for dual control.
"$SBX" -C "$FOLDER" rules add "./task.sh deploy" >/dev/null
sleep 1
id=$(hook_bash "./task.sh deploy again" | idof)
wait_for 10 has_pending
is "$(status "$id")" "pending" "a remembered rule does not approve a dual-control request"

# Risk: "high" and above need two approvers too.
id2=$(hook_bash "sudo ./task.sh x" | idof)
wait_for 10 bash -c "$SBX -C $FOLDER show $id2 --json >/dev/null 2>&1"
is "$("$SBX" -C "$FOLDER" show "$id2" --json | jq -r .approvals_needed)" "2" "a privilege change (high risk) needs two approvers"
is "$("$SBX" -C "$FOLDER" show "$id" --json | jq -r .approvals_needed)" "2" "(and the deploy still does)"

# A malformed two_approvers makes the policy invalid, so everything is denied.
jq '.two_approvers = {"risk": "extreme"}' "$p" >"$T/p" && mv "$T/p" "$p"
like "$(hook_bash "ls" | reason)" "two_approvers.risk must be" "a bad two_approvers is a policy error"

done_testing
