#!/usr/bin/env bash
# Codex and Cursor payloads through sbx-hook: allowed, escalated (and run
# once approved), denied; malformed input is always a deny in the
# client's own dialect.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 20}'
start_daemon
ok $? "sbxd serves the folder"

codex_payload() {	# codex_payload TOOL INPUT-JSON
	jq -cn --arg tool "$1" --argjson input "$2" --arg cwd "$FOLDER" \
		'{session_id: "codex-1", turn_id: "t1", transcript_path: null, cwd: $cwd,
		  hook_event_name: "PreToolUse", model: "gpt-5", tool_name: $tool,
		  tool_input: $input, tool_use_id: "call_1"}'
}
codex() { "$HOOK" codex 2>>"$T/hook.err"; }
cursor_payload() {	# cursor_payload EVENT EXTRA-JSON
	jq -cn --arg e "$1" --argjson x "$2" --arg root "$FOLDER" \
		'{hook_event_name: $e, conversation_id: "conv-1", generation_id: "gen-1",
		  workspace_roots: [$root]} + $x'
}
cursor() { "$HOOK" cursor 2>>"$T/hook.err"; }
perm() { jq -r .permission 2>/dev/null; }
agent_msg() { jq -r .agent_message 2>/dev/null; }

# ---- Codex ------------------------------------------------------------------
out=$(codex_payload Bash '{"command": "ls -la"}' | codex)
is "$?:$out" "0:" "codex: an allowed command prints nothing (Codex goes on)"
out=$(codex_payload Bash '{"command": "rm -rf /"}' | codex)
is "$(echo "$out" | decision)" "deny" "codex: rm -rf / is denied"
like "$(echo "$out" | reason)" "denied by policy" "codex: with the policy's reason"
is "$(echo "$out" | jq -r .hookSpecificOutput.hookEventName)" "PreToolUse" "codex: answer in hookSpecificOutput"
patch_in() { jq -cn --arg p "$1" '{command: ("*** Begin Patch\n*** Update File: " + $p + "\n@@\n-a\n+b\n*** End Patch\n")}'; }
out=$(codex_payload apply_patch "$(patch_in src/main.c)" | codex)
is "$out" "" "codex: apply_patch inside the project is allowed"
out=$(codex_payload apply_patch "$(patch_in .sandbox/policy.json)" | codex)
is "$(echo "$out" | decision)" "deny" "codex: apply_patch on .sandbox/policy.json is denied"
# Calls sbxd cannot run are approved, then retried once (a short wait here).
set_limits '{"hook_wait_seconds": 1}'
out=$(codex_payload apply_patch "$(patch_in /etc/hosts)" | codex)
is "$(echo "$out" | decision)" "deny" "codex: apply_patch outside the project is not run"
like "$(echo "$out" | reason)" "pending as request [0-9a-f]{16}.*repeat the identical call once" \
	"codex: it waits for a human, to be retried once approved"
wait_for 10 has_pending	# (the hook answers after 1 s; sbxd may take it in later, under load)
is "$("$SBX" -C "$FOLDER" pending --json | jq '[.[] | select(.tool == "apply_patch")] | length')" "1" \
	"codex: the patch is queued for a human"
out=$(codex_payload mcp__other__drop_db '{}' | codex)
is "$(echo "$out" | decision)" "deny" "codex: an unknown MCP tool is not run"
deny_all() {
	for p in $(pending_ids); do "$SBX" -C "$FOLDER" deny "$p" >/dev/null; done
	wait_for 10 bash -c "[ -z \"\$($SBX -C $FOLDER pending --json | jq -r '.[].id')\" ]"
}
deny_all
set_limits '{"hook_wait_seconds": 20}'
out=$(codex_payload mcp__sbx__run_privileged '{"command": "git push"}' | codex)
is "$out" "" "codex: sbx's own MCP tools are allowed"

codex_payload Bash '{"command": "./task.sh codex"}' | codex >"$T/codex.out" &
hp=$!
wait_for 10 has_pending
ok $? "codex: an escalated command is queued"
is "$("$SBX" -C "$FOLDER" show "$(pending_ids)" --json | jq -r .agent)" "codex" "codex: recorded as from codex"
"$SBX" -C "$FOLDER" approve "$(pending_ids)" >/dev/null
wait "$hp"
is "$(decision <"$T/codex.out")" "deny" "codex: answered deny, so the tool never runs in the agent"
like "$(reason <"$T/codex.out" | head -1)" "ALREADY EXECUTED" "codex: the reason says it ran outside the agent"
like "$(reason <"$T/codex.out")" "out: codex" "codex: with the output of the approved run"
is "$(grep -c 'run codex' "$FOLDER/runs.log")" "1" "codex: it ran once, outside the agent"

for bad in '' 'not json' '[1]' '{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}' \
	'{"hook_event_name":"PreToolUse","tool_input":{"command":"ls"}}' \
	'{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"ls"}'; do
	out=$(printf '%s' "$bad" | CLAUDE_PROJECT_DIR="$FOLDER" codex)
	is "$?:$(echo "$out" | decision)" "0:deny" "codex: bad input '${bad:0:30}' is a deny"
done

# ---- Cursor -----------------------------------------------------------------
sh_in() { jq -cn --arg c "$1" --arg cwd "$FOLDER" '{command: $c, cwd: $cwd}'; }
out=$(cursor_payload beforeShellExecution "$(sh_in 'ls -la')" | cursor)
is "$out" '{"permission":"allow"}' "cursor: an allowed command: permission allow"
out=$(cursor_payload beforeShellExecution "$(sh_in 'rm -rf /')" | cursor)
is "$(echo "$out" | perm)" "deny" "cursor: rm -rf / is denied"
like "$(echo "$out" | agent_msg)" "denied by policy" "cursor: agent_message has the reason"
like "$(echo "$out" | jq -r .user_message)" "^sbx: " "cursor: user_message says it too"
out=$(cursor_payload beforeShellExecution "$(sh_in 'echo x > .sandbox/policy.json')" | cursor)
is "$(echo "$out" | perm)" "deny" "cursor: a write into .sandbox/ is denied"

cursor_payload beforeShellExecution "$(sh_in './task.sh cursor')" | cursor >"$T/cursor.out" &
hp=$!
wait_for 10 has_pending
ok $? "cursor: an escalated command is queued"
is "$("$SBX" -C "$FOLDER" show "$(pending_ids)" --json | jq -r .agent)" "cursor" "cursor: recorded as from cursor"
"$SBX" -C "$FOLDER" approve "$(pending_ids)" >/dev/null
wait "$hp"
is "$(perm <"$T/cursor.out")" "deny" "cursor: answered deny, so it never runs in the agent"
like "$(agent_msg <"$T/cursor.out" | head -1)" "ALREADY EXECUTED" "cursor: agent_message says it ran outside the agent"
like "$(agent_msg <"$T/cursor.out")" "out: cursor" "cursor: agent_message carries the output"

set_limits '{"hook_wait_seconds": 1}'
echo "SECRET=1" >"$FOLDER/.env"
echo "hello" >"$FOLDER/readme.txt"
out=$(cursor_payload beforeReadFile "$(jq -cn --arg p "$FOLDER/readme.txt" '{file_path: $p, content: "hello"}')" | cursor)
is "$out" '{"permission":"allow"}' "cursor: reading a project file is allowed"
out=$(cursor_payload beforeReadFile "$(jq -cn --arg p "$FOLDER/.env" '{file_path: $p, content: "SECRET=1"}')" | cursor)
is "$out" '{"permission":"deny"}' "cursor: reading .env is not allowed (permission only for reads)"

out=$(cursor_payload beforeMCPExecution '{"tool_name": "run_privileged", "tool_input": "{\"command\": \"git push\"}", "command": "/usr/local/bin/sbx-mcp"}' | cursor)
is "$out" '{"permission":"allow"}' "cursor: sbx's own MCP tool is allowed (server recognised by its command)"
out=$(cursor_payload beforeMCPExecution '{"tool_name": "drop_db", "tool_input": {"name": "prod"}, "command": "npx db-server"}' | cursor)
is "$(echo "$out" | perm)" "deny" "cursor: another server's tool needs approval, so it is not run"
like "$(echo "$out" | agent_msg)" "mcp__cursor__drop_db" "cursor: named so a policy rule can allow it"
out=$(cursor_payload beforeMCPExecution '{"tool_name": "x", "tool_input": "{not json", "command": "srv"}' | cursor)
is "$(echo "$out" | perm)" "deny" "cursor: tool_input that is not JSON is denied"
deny_all

for bad in '' 'not json' '{"hook_event_name":"afterFileEdit"}' \
	'{"hook_event_name":"beforeShellExecution","cwd":"/tmp"}' \
	'{"hook_event_name":"beforeShellExecution","command":42}'; do
	out=$(printf '%s' "$bad" | cursor)
	is "$?:$(echo "$out" | perm)" "0:deny" "cursor: bad input '${bad:0:30}' is a deny"
done
mkdir -p "$T/elsewhere"
out=$(jq -cn --arg d "$T/elsewhere" '{hook_event_name: "beforeShellExecution", command: "ls", cwd: $d, workspace_roots: [$d]}' | cursor)
like "$(echo "$out" | agent_msg)" "no .sandbox/ folder" "cursor: outside a prepared folder every call is denied"

# ---- all dialects: escalations sbxd cannot run wait for approve-then-retry --
out=$(payload WebFetch '{"url": "https://unlisted.example.net/x", "prompt": "p"}' | "$HOOK" pre)
is "$(echo "$out" | decision)" "deny" "pre: a WebFetch to an unlisted host is not run"
like "$(echo "$out" | reason)" "repeat the identical call once" "pre: it waits for approval, then a retry"
out=$(payload Write "$(jq -cn --arg p "/srv/sbx-test-outside-$$.txt" '{file_path: $p, content: "x"}')" | "$HOOK" pre)
like "$(echo "$out" | reason)" "pending as request" "pre: so does a write outside the project"
wait_for 10 bash -c "[ \"\$($SBX -C $FOLDER pending --json | jq '[.[] | select(.tool == \"WebFetch\" or .tool == \"Write\")] | length')\" = 2 ]"
ok $? "both are queued for a human"

done_testing
