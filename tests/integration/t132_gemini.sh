#!/usr/bin/env bash
# sbx-hook gemini (Gemini CLI BeforeTool): allowed, denied, escalated and
# run once approved, malformed input always a deny; and sbx init --gemini:
# the hook in .gemini/settings.json, the folder in Gemini's
# trustedFolders.json (project hooks run only in trusted folders), merged
# with the user's entries and taken out exactly by sbx remove.
. "$(dirname "$0")/lib.sh"

TF="$GEMINI_CLI_HOME/.gemini/trustedFolders.json"
SJ="$FOLDER/.gemini/settings.json"

# ---- init --gemini ---------------------------------------------------------------
mkdir -p "$GEMINI_CLI_HOME/.gemini"
printf '{\n  "/elsewhere": "TRUST_PARENT"\n}\n' >"$TF"
cp "$TF" "$T/tf.user"
"$SBX" init --gemini "$FOLDER" >"$T/init.out" 2>&1
ok $? "sbx init --gemini succeeds"
# The command is the fail-closed wrapper: sh -c '... "$0" gemini ...' PATH
is "$(jq -r '.hooks.BeforeTool[0] | "\(.matcher) \(.hooks[0].command | test("^sh -c .*\"\\$0\" gemini; .* exit 2. ") and endswith(" '"$SBX_BIN"'/sbx-hook")) \(.hooks[0].timeout)"' "$SJ")" \
	".* true $(( ($(jq -r .limits.hook_wait_seconds "$FOLDER/.sandbox/policy.json") + 30) * 1000 ))" \
	"settings.json runs sbx-hook gemini (fail-closed wrapper) for every tool, timeout in ms above the hook's wait"
is "$(jq -r --arg f "$FOLDER" '[.[$f], .["/elsewhere"]] | join(" ")' "$TF")" "TRUST_FOLDER TRUST_PARENT" \
	"trustedFolders.json trusts the folder and keeps the user's entry"
like "$(cat "$T/init.out")" "Gemini CLI trusts this folder" "init says so"
"$SBX" init --gemini "$FOLDER" >/dev/null 2>&1
is "$(jq -c . "$TF")" "{\"/elsewhere\":\"TRUST_PARENT\",\"$FOLDER\":\"TRUST_FOLDER\"}" "init again changes nothing"
"$SBX" remove "$FOLDER" >/dev/null 2>&1
ok $? "sbx remove succeeds"
is "$(jq -c . "$TF")" '{"/elsewhere":"TRUST_PARENT"}' "remove takes out only the folder's trust"
! test -e "$SJ"
ok $? "and the settings.json init created"
printf '{"%s": "DO_NOT_TRUST"}\n' "$FOLDER" >"$TF"
cp "$TF" "$T/tf.before"
"$SBX" init --gemini "$FOLDER" >"$T/r.out" 2>"$T/r.err"
is "$?" "1" "the user's DO_NOT_TRUST: init fails"
cmp -s "$TF" "$T/tf.before"
ok $? "and trustedFolders.json is unchanged"
like "$(cat "$T/r.err")" "will NOT run sbx's hook" "it says Gemini will not run the hook"
rm -f "$TF"
"$SBX" init --gemini "$FOLDER" >/dev/null 2>&1
ok $? "init --gemini with no trustedFolders.json"
"$SBX" remove "$FOLDER" >/dev/null 2>&1
! test -e "$TF"
ok $? "remove deletes the trustedFolders.json init created"

# ---- the hook ---------------------------------------------------------------------
"$SBX" init --gemini "$FOLDER" >/dev/null 2>&1
gdoc() { "$SBX" -C "$FOLDER" doctor 2>&1 | grep -E '^(ok|FAIL) +(Gemini|no sbx PreToolUse)'; }
like "$(gdoc)" "^ok +Gemini CLI: .gemini/settings.json runs sbx-hook gemini" "doctor: the Gemini hook and the folder's trust"
unlike "$(gdoc)" "no sbx PreToolUse hook" "doctor: a Gemini-only folder is not \"no hook registered\""
cp "$TF" "$T/tf.saved"
echo '{}' >"$TF"
like "$(gdoc)" "^FAIL +Gemini CLI: .* does not trust this folder" "doctor: an untrusted folder fails"
cp "$T/tf.saved" "$TF"
setup_task
set_limits '{"hook_wait_seconds": 20}'
start_daemon
ok $? "sbxd serves the folder"
gem() {	# gem TOOL INPUT-JSON [EXTRA-JSON]
	jq -cn --arg tool "$1" --argjson input "$2" --argjson x "${3:-{\}}" --arg cwd "$FOLDER" \
		'{session_id: "gem-1", transcript_path: "/dev/null", cwd: $cwd,
		  hook_event_name: "BeforeTool", timestamp: "2026-01-01T00:00:00Z",
		  tool_name: $tool, tool_input: $input} + $x' | "$HOOK" gemini 2>>"$T/hook.err"
}
dec() { jq -r '.decision // "none"' 2>/dev/null; }
why() { jq -r '.reason // ""' 2>/dev/null; }

is "$(gem run_shell_command '{"command": "ls -la"}')" "{}" "an allowed command: {} (Gemini goes on)"
out=$(gem run_shell_command '{"command": "rm -rf /"}')
is "$(echo "$out" | dec)" "deny" "rm -rf / is denied"
like "$(echo "$out" | why)" "denied by policy" "with the policy's reason"
mkdir -p "$FOLDER/sub"
is "$(gem run_shell_command '{"command": "cat x.txt", "dir_path": "sub"}' | dec)" "none" \
	"a command in a dir_path inside the project is allowed"
is "$(gem run_shell_command '{"command": "echo x > ../outside.txt", "dir_path": "/tmp"}' | dec)" "deny" \
	"dir_path moves the command's cwd: a write outside the project is not allowed"
is "$(gem write_file "$(jq -cn --arg p "$FOLDER/a.txt" '{file_path: $p, content: "x"}')" )" "{}" \
	"write_file inside the project is allowed"
out=$(gem write_file "$(jq -cn --arg p "$SJ" '{file_path: $p, content: "{}"}')")
like "$(echo "$out" | why)" "self-protection" "write_file on .gemini/settings.json is denied (self-protection)"
is "$(gem replace "$(jq -cn --arg p "$FOLDER/.sandbox/policy.json" '{file_path: $p, old_string: "a", new_string: "b"}')" | dec)" \
	"deny" "replace on .sandbox/policy.json is denied"
is "$(gem read_file '{"file_path": "/root/.ssh/id_ed25519"}' | dec)" "deny" "read_file of an SSH key is not allowed"
is "$(gem glob '{"pattern": "**/*.c"}')" "{}" "glob in the project is allowed"
is "$(gem update_topic '{"topic": "x"}')" "{}" "Gemini's own bookkeeping tools are allowed"
is "$(gem web_fetch '{"prompt": "summarise"}' | dec)" "deny" "web_fetch without a URL is denied"
# Gemini fetches every URL in the prompt; sbx judges one a call.
out=$(gem web_fetch '{"prompt": "summarise https://example.com/a and HTTPS://evil.example/x"}')
is "$(echo "$out" | dec)" "deny" "web_fetch naming two URLs is denied (the second in capitals)"
like "$(echo "$out" | why)" "more than one URL" "... saying why"
is "$(gem web_fetch '{"url": "https://example.com/a", "prompt": "and http://evil.example/x"}' | dec)" \
	"deny" "a URL in the prompt beside the url field is denied too"
is "$(gem mcp_other_drop_db '{}' '{"mcp_context": {"server_name": "other"}}' | dec)" "deny" \
	"an unknown MCP tool is not run"
is "$(gem mcp_sbx_check_request '{"id": "x"}' '{"mcp_context": {"server_name": "sbx"}}')" "{}" \
	"sbx's own MCP tools are allowed"
is "$(gem some_new_tool '{}' | dec)" "deny" "an unknown tool is denied"

# The calls above that escalated (read_file, the unknown tools) wait as
# requests of their own, to be approved and retried once: the one below
# is picked out by its command.
task_id() { "$SBX" -C "$FOLDER" pending --json 2>/dev/null |
	jq -r '.[] | select(.command == "./task.sh gemini") | .id'; }
gem run_shell_command '{"command": "./task.sh gemini"}' >"$T/gem.out" &
hp=$!
wait_for 10 sh -c "[ -n \"\$(\"$SBX\" -C \"$FOLDER\" pending --json | jq -r '.[] | select(.command == \"./task.sh gemini\") | .id')\" ]"
ok $? "an escalated command is queued"
is "$("$SBX" -C "$FOLDER" show "$(task_id)" --json | jq -r .agent)" "gemini" "recorded as from gemini"
"$SBX" -C "$FOLDER" approve "$(task_id)" >/dev/null
wait "$hp"
is "$(dec <"$T/gem.out")" "deny" "answered deny, so the tool never runs in the agent"
like "$(why <"$T/gem.out" | tr '\n' ' ')" "ALREADY EXECUTED.*out: gemini" "the reason carries the approved run's output"
is "$(grep -c 'run gemini' "$FOLDER/runs.log")" "1" "it ran once, outside the agent"

for bad in '' 'not json' '[1]' '{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}' \
	'{"hook_event_name":"BeforeTool","tool_input":{"command":"ls"}}' \
	'{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":"ls"}' \
	'{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{}}'; do
	out=$(printf '%s' "$bad" | "$HOOK" gemini 2>/dev/null)
	is "$?:$(echo "$out" | dec)" "0:deny" "bad input '${bad:0:30}' is a deny, exit 0"
done

done_testing
