#!/usr/bin/env bash
# sbx audit show: a decision's line reads "deny by NAME: REASON", with the
# separator between the approver and the reason (issue 17).
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 20}'
start_daemon
ok $? "sbxd serves the folder"

hook_bash "./task.sh denied" >"$T/hook.out" &
hp=$!
wait_for 10 has_pending
ok $? "an escalated command is pending"
id=$(pending_ids)
"$SBX" -C "$FOLDER" deny "$id" --reason "no sudo here" >/dev/null
ok $? "the approver denies it with a reason"
wait "$hp"
like "$(reason <"$T/hook.out")" "no sudo here" "the model gets the reason"
name=$("$SBX" -C "$FOLDER" show "$id" --json | jq -r '.decision.approver // empty')
wait_for 10 grep -q '"event":"decision"' "$FOLDER/.sandbox/audit.jsonl"
line=$("$SBX" -C "$FOLDER" audit show --request "$id" | grep -F "no sudo here")
like "$line" "deny by [^ :]+: no sudo here$" "audit show: \"deny by NAME: no sudo here\""
unlike "$line" "by [^ ]*no sudo" "the approver's name and the reason are not run together"
[ -z "$name" ] || like "$line" "deny by $name: " "the name is the approver's (${name})"

hook_bash "./task.sh approved" >"$T/hook2.out" &
hp=$!
wait_for 10 has_pending
"$SBX" -C "$FOLDER" approve "$(pending_ids)" >/dev/null
wait "$hp"
line=$("$SBX" -C "$FOLDER" audit show | grep -E "decision" | grep -v "no sudo" | tail -1)
like "$line" "approve by [^ :]+$" "an approval without a reason ends with the approver's name"

done_testing
