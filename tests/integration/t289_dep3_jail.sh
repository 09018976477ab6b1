#!/usr/bin/env bash
# Deployment 3 with the agent in the jail as well: A runs `sbx jail` in a
# folder handed over to B. Inside, A's hook still escalates through the
# drop box and gets B's result; a hostile script inside cannot read B's
# keys, write decisions or state, or leave the project (checked from
# outside, with what the script wrote where it could).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dep3lib.sh"

dep3_setup || { sed 's/^/#   /' "$T/init.out" "$T/handover.out"; exit 1; }
dep3_task
start_daemon_b
( cd "$FOLDER" && as_a "$SBX" -C "$FOLDER" jail --offline -- true ) >"$T/jail.out" 2>&1 ||
	skip_all "sbx jail cannot run here as an unprivileged user: $(tail -1 "$T/jail.out")"
S="$FOLDER/.sandbox"
cat >"$FOLDER/hostile.sh" <<EOF2
#!/bin/sh
r=$FOLDER/inside.txt
: >"\$r"
try() { if sh -c "\$2" >/dev/null 2>&1; then echo "\$1 yes" >>"\$r"; else echo "\$1 no" >>"\$r"; fi; }
try read-key "cat '$CONF_B/approver.key'"
try read-daemon-key "cat '$CONF_B/daemon.key'"
try read-secret "cat '$T/home-b/secret'"
try write-decision "echo x >'$S/decisions/new/x.json'"
try write-state "echo x >>'$S/state.db'"
try write-policy "echo x >>'$S/policy.json'"
echo x >'$T/outside.txt' 2>/dev/null
try write-dropbox "echo x >'$S/queue/tmp/jail-probe' && rm '$S/queue/tmp/jail-probe'"
payload='{"session_id":"s-jail","transcript_path":"/dev/null","cwd":"$FOLDER","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"./task.sh jailed"},"tool_use_id":"t1"}'
echo "\$payload" | CLAUDE_PROJECT_DIR=$FOLDER $HOOK pre >$FOLDER/hook.out 2>&1
EOF2
chown "$UA:" "$FOLDER/hostile.sh"
chmod 0755 "$FOLDER/hostile.sh"
( cd "$FOLDER" && as_exec "$UA" "$SBX" -C "$FOLDER" jail --offline -- ./hostile.sh ) \
	>"$T/jail.out" 2>&1 &
JPID=$!
wait_for 30 has_pending_b
ok $? "the request made inside the jail reaches B's queue"
as_b "$SBX" -C "$FOLDER" approve "$(pending_b | head -1)" >/dev/null 2>&1
wait "$JPID"
r=$(jq -r '.hookSpecificOutput.permissionDecisionReason' "$FOLDER/hook.out" 2>/dev/null)
like "$r" "ran-as $UB" "B ran it, and the result reached the hook inside the jail"
like "$r" "treasure-of-b-$$" "with B's rights, outside the jail"
got=$(cat "$FOLDER/inside.txt" 2>/dev/null)
for k in read-key read-daemon-key read-secret write-decision write-state write-policy; do
	like "$got" "$k no" "inside the jail, A cannot $k"
done
like "$got" "write-dropbox yes" "(control) inside the jail, A writes its drop box"
test ! -e "$T/outside.txt"
ok $? "what it wrote outside the project (the host's /tmp) stayed in the jail"
done_testing
