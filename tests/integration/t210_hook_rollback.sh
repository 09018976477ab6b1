#!/usr/bin/env bash
# Policy rollback at the hook: the human tightened the policy; the agent's
# code puts back the older, more permissive policy.json with its older,
# validly signed policy.accepted. The hook (every dialect) and `sbx policy
# check` refuse it by the approver's record in the config dir, which the
# agent cannot write; accepting again is the way back. No sbxd runs here:
# the hook alone must hold.
. "$(dirname "$0")/lib.sh"

init_folder
cd "$FOLDER" || exit 1
SB="$FOLDER/.sandbox"
REC="$SBX_CONFIG_DIR/accepted"
atime() { jq -r .time "$SB/policy.accepted"; }

codex() {	# codex CMD: prints "allow" or the deny reason
	local out
	out=$(jq -cn --arg c "$1" --arg cwd "$FOLDER" '{session_id: "s", hook_event_name:
	    "PreToolUse", tool_name: "Bash", tool_input: {command: $c}, cwd: $cwd,
	    tool_use_id: "c"}' | "$HOOK" codex)
	[ -z "$out" ] && echo allow || echo "$out" | reason
}
cursor() {
	jq -cn --arg c "$1" --arg cwd "$FOLDER" '{hook_event_name: "beforeShellExecution",
	    conversation_id: "c", generation_id: "g", command: $c, cwd: $cwd,
	    workspace_roots: [$cwd]}' | "$HOOK" cursor | jq -r 'if .permission == "allow"
	    then "allow" else .agent_message end'
}
gemini() {
	jq -cn --arg c "$1" --arg cwd "$FOLDER" '{hook_event_name: "BeforeTool",
	    tool_name: "run_shell_command", tool_input: {command: $c}, cwd: $cwd,
	    session_id: "s"}' | "$HOOK" gemini | jq -r 'if .decision == "deny" then .reason
	    else "allow" end'
}

# 1. A permissive policy, accepted; its pair is what the attacker keeps.
add_rule allow 'Bash(git push:*)'
is "$(hook_bash "git push origin main" | decision)" "allow" "the permissive policy allows git push"
cp "$SB/policy.json" "$T/old.json"
cp "$SB/policy.accepted" "$T/old.accepted"
old_t=$(atime)
test -f "$REC/$(ls "$REC" | head -1)" && [ "$(ls "$REC" | wc -l)" = 1 ]
ok $? "sbx policy accept keeps one record for the folder in the config dir"
is "$(jq -r .time "$REC"/*)" "$old_t" "the record holds the acceptance time"

# 2. The human tightens it, within the same second: the time still moves on.
jq 'del(.allow)' "$SB/policy.json" >"$T/p" && cp "$T/p" "$SB/policy.json"
accept_policy
[ "$(atime)" -gt "$old_t" ]
ok $? "a later acceptance is signed with a later time, even within one second"
is "$(jq -r .time "$REC"/*)" "$(atime)" "and the record follows it"
r=$(hook_bash "git push origin main")
is "$(echo "$r" | decision)" "deny" "the tightened policy no longer allows git push"
unlike "$(echo "$r" | reason)" "rollback" "(it needs a human, nothing about a rollback)"

# 3. The attack: the old pair put back, signed and matching each other.
queued=$(ls "$SB/queue/new" | wc -l)
cp "$T/old.json" "$SB/policy.json"
cp "$T/old.accepted" "$SB/policy.accepted"
r=$(hook_bash "git push origin main")
is "$(echo "$r" | decision)" "deny" "pre: the rolled-back policy is refused"
like "$(echo "$r" | reason)" "policy rollback: policy.accepted was signed at $old_t, before" \
	"pre: the reason says it is a rollback, with the times"
like "$(echo "$r" | reason)" "policy accept" "pre: and how to accept again"
is "$(hook_bash "git status" | decision)" "deny" "pre: every call is refused, even a harmless one"
like "$(codex "git push origin main")" "policy rollback" "codex: refused as a rollback"
like "$(cursor "git push origin main")" "policy rollback" "cursor: refused as a rollback"
like "$(gemini "git push origin main")" "policy rollback" "gemini: refused as a rollback"
out=$("$SBX" -C "$FOLDER" policy check -- git push origin main 2>&1)
like "$out" "verdict: deny" "sbx policy check: deny too"
like "$out" "policy rollback" "and says why"
is "$(ls "$SB/queue/new" | wc -l)" "$queued" "nothing was queued under the rolled-back policy"

# 4. Forging a newer time breaks the signature.
jq -c --argjson t "$(( $(jq -r .time "$REC"/*) + 10 ))" '.time = $t' "$T/old.accepted" \
	>"$SB/policy.accepted"
like "$(hook_bash "git push origin main" | reason)" "bad signature" \
	"a rolled-back acceptance with a raised time has a bad signature"

# 5. The record is out of the agent's reach through the hook.
like "$(hook_bash "rm -f $REC/*" | decision)" "deny" "rm of the record is not allowed"
w=$(payload Write "$(jq -cn --arg p "$REC/x" '{file_path: $p, content: "{}"}')" |
	CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre | decision)
is "$w" "deny" "Write into the record's directory is not allowed"

# 6. A record that is not this folder's fails closed.
cp "$T/old.accepted" "$SB/policy.accepted"
f=$(ls "$REC")
cp "$REC/$f" "$T/rec"
jq -c '.folder = "/elsewhere"' "$T/rec" >"$REC/$f"
r=$(hook_bash "git status")
is "$(echo "$r" | decision)" "deny" "a foreign record: denied"
like "$(echo "$r" | reason)" "malformed or not this folder" "and says so"
printf 'garbage' >"$REC/$f"
like "$(hook_bash "git status" | reason)" "malformed or not this folder" "a garbage record: denied"
cp "$T/rec" "$REC/$f"

# 7. The way back is a human's acceptance (here: of the old policy).
accept_policy
is "$(hook_bash "git push origin main" | decision)" "allow" "accepted again: the policy is used"
[ "$(atime)" -gt "$old_t" ]
ok $? "with a new, later acceptance time"

done_testing
