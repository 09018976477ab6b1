#!/usr/bin/env bash
# The loop from inside the jail: the hook, running in `sbx jail`, queues an
# escalation; a human approves it outside with a real signed decision;
# sbxd runs it outside the jail; the answer reaches the process in the jail.
. "$(dirname "$0")/lib.sh"

command -v bwrap >/dev/null || { echo "1..0 # SKIP bubblewrap is not installed"; exit 0; }

export HOME="$T/home"
mkdir -p "$HOME"
init_folder
cat >"$FOLDER/task.sh" <<'SH'
#!/bin/sh
# Says where it ran: the jail's hostname is sbx-jail.
echo "ran on $(hostname)" >>"$(dirname "$0")/runs.log"
echo "out: $* on $(hostname)"
SH
chmod +x "$FOLDER/task.sh"
add_rule escalate 'Bash(./task.sh:*)'
set_limits '{"hook_wait_seconds": 30}'
start_daemon
ok $? "sbxd serves the folder"

# The agent's side, all inside one jail: the hook for an escalated call,
# then a plain allowed call, each answer into a file in the project.
cat >"$T/agent.sh" <<SH
payload() {
	printf '{"session_id":"s1","transcript_path":"/dev/null","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"%s"},"tool_use_id":"t1"}' "$FOLDER" "\$1"
}
payload "ls" | "$HOOK" pre >allowed.json
payload "./task.sh one" | "$HOOK" pre >answer.json
hostname >jail-hostname.txt
SH
"$SBX" -C "$FOLDER" jail --offline -- bash -s <"$T/agent.sh" >"$T/jail.out" 2>&1 &
jp=$!
wait_for 20 has_pending
ok $? "the hook in the jail queued the escalation (sbx pending sees it outside)"
id=$(pending_ids)
is "$(runs)" 0 "nothing ran before the approval"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null 2>&1
ok $? "approved outside with a signed decision (sbx approve)"
wait "$jp"
is "$?" 0 "the jail ended normally"
sed 's/^/#   jail: /' "$T/jail.out" | head -5
is "$(jq -r .hookSpecificOutput.permissionDecision "$FOLDER/allowed.json")" "allow" \
	"an ordinary call is allowed by the hook in the jail"
r=$(jq -r .hookSpecificOutput.permissionDecisionReason "$FOLDER/answer.json")
like "$r" "ALREADY EXECUTED outside the agent as request $id" "the answer reached the process in the jail"
like "$r" "out: one on " "the command's output is in the answer"
is "$(cat "$FOLDER/jail-hostname.txt")" "sbx-jail" "the hook ran in the jail"
is "$(cat "$FOLDER/runs.log")" "ran on $(hostname)" "sbxd ran it once, outside the jail"
unlike "$r" "on sbx-jail" "the command did not run in the jail"
done_testing
