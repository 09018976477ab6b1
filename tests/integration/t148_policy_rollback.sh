#!/usr/bin/env bash
# Policy rollback: an older policy.json put back with its older (validly
# signed) policy.accepted is refused by sbxd, which remembers the newest
# acceptance it used; accepting the policy again is the way back.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1}'
SB="$FOLDER/.sandbox"
req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }
start_daemon
ok $? "sbxd starts"

cp "$SB/policy.json" "$T/old.json"
cp "$SB/policy.accepted" "$T/old.accepted"
a=$(hook_bash "./task.sh one" | req_id)
wait_for 10 has_pending
ok $? "a request under the first accepted policy is pending"
sleep 1.2	# acceptance times are in seconds
add_rule escalate 'Bash(./other.sh:*)'
b=$(hook_bash "./task.sh two" | req_id)
wait_for 10 bash -c "[ \$($SBX -C $FOLDER pending --json | jq length) = 2 ]"
ok $? "the newer accepted policy is used"

# Roll back: the old files, signed and matching each other. The hook and
# sbx refuse them by the approver's record in the config dir (t210); here
# that record is removed, as for a folder accepted before records existed,
# so that sbxd's own memory (state.db) is what refuses them.
rm -f "$SBX_CONFIG_DIR"/accepted/*
cp "$T/old.json" "$SB/policy.json"
cp "$T/old.accepted" "$SB/policy.accepted"
c=$(hook_bash "./task.sh three" | req_id)
wait_for 10 test -f "$SB/results/$c.json"
ok $? "a request under the rolled-back policy gets a result"
is "$(jq -r .status "$SB/results/$c.json")" "rejected" "it is rejected"
like "$(jq -r .reason "$SB/results/$c.json")" "policy rollback" "because the policy was rolled back"
grep -q "policy rollback" "$T/sbxd.log"
ok $? "sbxd says so in its log"
is "$(runs)" "0" "nothing ran"

# Accepting it again (a new, later acceptance) is the way back.
accept_policy
d=$(hook_bash "./task.sh four" | req_id)
wait_for 10 bash -c "$SBX -C $FOLDER pending --json | jq -e '.[] | select(.id == \"$d\")'"
ok $? "after sbx policy accept the policy is used again"

done_testing
