#!/usr/bin/env bash
# sbx-hook pre on good and bad input: always exit 0 with one JSON answer,
# never an allow it cannot justify.
. "$(dirname "$0")/lib.sh"

init_folder

run_hook() {	# run_hook < input: prints "EXIT<tab>DECISION<tab>REASON"
	local out rc
	out=$(CLAUDE_PROJECT_DIR="${PROJ:-$FOLDER}" "$HOOK" pre 2>"$T/hook.err")
	rc=$?
	printf '%s\t%s\t%s' "$rc" "$(echo "$out" | decision)" "$(echo "$out" | reason)"
}

expect_deny() {	# expect_deny DESCRIPTION REGEX < input
	local got
	got=$(run_hook)
	is "$(echo "$got" | cut -f1-2)" "0	deny" "$1: exit 0 and deny"
	like "$(echo "$got" | cut -f3-)" "$2" "$1: reason says why"
}

expect_deny "empty stdin" "not a JSON object" < <(printf '')
expect_deny "truncated JSON" "not a JSON object" < <(printf '{"hook_event_name": "PreToolUse", "tool_name": "Bash", ')
expect_deny "a JSON array" "not a JSON object" < <(printf '[1,2,3]')
expect_deny "binary garbage" "not a JSON object" < <(printf '\x00\xff\xfe garbage')
expect_deny "5 MB of input" "larger than 4 MiB" < <(head -c 5000000 /dev/zero | tr '\0' ' ')
expect_deny "a different event" "not PreToolUse" < <(bash_payload "ls" | jq -c '.hook_event_name = "PostToolUse"')
expect_deny "no tool_name" "no tool_name" < <(bash_payload "ls" | jq -c 'del(.tool_name)')
expect_deny "tool_input not an object" "malformed tool_input" < <(bash_payload "ls" | jq -c '.tool_input = "ls"')
expect_deny "a \\u0000 escape (cJSON would cut the command there)" "u0000" < <(printf '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls\\u0000; rm -rf ~"}, "cwd": "%s"}' "$FOLDER")
expect_deny "tool_name not a string" "no tool_name" < <(bash_payload "ls" | jq -c '.tool_name = 42')

# Folder discovery.
mkdir -p "$T/elsewhere"
PROJ="$T/elsewhere" expect_deny "no .sandbox above cwd" "no .sandbox/ folder" < <(bash_payload "ls" "$T/elsewhere")
mkdir -p "$FOLDER/sub/deeper"
out=$(bash_payload "ls" "$FOLDER/sub/deeper" | "$HOOK" pre)
is "$(echo "$out" | decision)" "allow" "the folder is found by walking up from cwd"

# Verdicts from the policy.
is "$(hook_bash "ls -la" | decision)" "allow" "a harmless read-only command is allowed"
is "$(hook_bash "git status" | decision)" "allow" "git status is allowed"
out=$(hook_bash "rm -rf /")
is "$(echo "$out" | decision)" "deny" "rm -rf / is denied"
like "$(echo "$out" | reason)" "denied by policy" "with the policy's reason"
out=$(payload Write "$(jq -cn --arg p "$FOLDER/.sandbox/policy.json" '{file_path: $p, content: "{}"}')" | "$HOOK" pre)
is "$(echo "$out" | decision)" "deny" "writing the sandbox policy is denied (self-protection)"
out=$(hook_bash "echo '{}' > .sandbox/policy.json")
is "$(echo "$out" | decision)" "deny" "a shell redirection into .sandbox/ is denied (self-protection)"

# A missing or invalid policy denies everything, with the reason.
cp "$FOLDER/.sandbox/policy.json" "$T/policy.good"
echo '{"allow": [' >"$FOLDER/.sandbox/policy.json"
expect_deny "policy that is not JSON" "policy is invalid" < <(bash_payload "ls")
echo '{"allowWirte": []}' >"$FOLDER/.sandbox/policy.json"
expect_deny "policy with an unknown key" "allowWirte" < <(bash_payload "ls")
: >"$FOLDER/.sandbox/policy.json"
expect_deny "empty policy" "policy is invalid" < <(bash_payload "ls")
rm "$FOLDER/.sandbox/policy.json"
expect_deny "missing policy" "policy is invalid" < <(bash_payload "ls")
cp "$T/policy.good" "$FOLDER/.sandbox/policy.json"

# An unwritable queue: the escalation is refused, never allowed. (A file
# where the temp directory should be fails for root too.)
mv "$FOLDER/.sandbox/queue/tmp" "$T/tmp.saved"
touch "$FOLDER/.sandbox/queue/tmp"
out=$(hook_bash "sudo true")
is "$(echo "$out" | decision)" "deny" "an unwritable queue denies"
like "$(echo "$out" | reason)" "could not be queued" "and says the request could not be queued"
rm "$FOLDER/.sandbox/queue/tmp"
mv "$T/tmp.saved" "$FOLDER/.sandbox/queue/tmp"

# Misuse of the executable itself exits 2 (blocks in Claude Code).
"$HOOK" 2>/dev/null </dev/null
is "$?" "2" "sbx-hook without a mode exits 2"
"$HOOK" bogus 2>/dev/null </dev/null
is "$?" "2" "sbx-hook with an unknown mode exits 2"

done_testing
