#!/usr/bin/env bash
# Bad hook input is a deny with a reason, in every dialect: duplicate keys
# (even spelled with escapes), raw control bytes, NUL, invalid UTF-8, lone
# surrogates, trailing data; a payload cwd that is missing, relative or
# does not exist.
. "$(dirname "$0")/lib.sh"

init_folder
cd "$FOLDER" || exit 1

# Each case is a JSON text with CMD standing for the command member and
# CWD for the cwd value, so that one template serves all three dialects.
claude_t='{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{CMD},"cwd":CWD}'
codex_t='{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{CMD},"cwd":CWD,"tool_use_id":"c"}'
cursor_t='{"hook_event_name":"beforeShellExecution","conversation_id":"c","generation_id":"g",CMD,"cwd":CWD,"workspace_roots":["'"$FOLDER"'"]}'

# build TEMPLATE CMD-MEMBER CWD-VALUE [TRAILER]: printf-expanded bytes
build() {
	local t=${1//CMD/$2}
	t=${t//CWD/$3}
	printf "$t$4"
}
run() {	# run DIALECT BYTES-FILE: prints "DECISION<tab>REASON"
	local out
	case $1 in
	claude) out=$(CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre <"$2")
		printf '%s\t%s' "$(echo "$out" | decision)" "$(echo "$out" | reason)" ;;
	codex) out=$("$HOOK" codex <"$2")
		[ -z "$out" ] && { printf 'allow\t'; return; }
		printf '%s\t%s' "$(echo "$out" | decision)" "$(echo "$out" | reason)" ;;
	cursor) out=$("$HOOK" cursor <"$2")
		printf '%s\t%s' "$(echo "$out" | jq -r .permission)" "$(echo "$out" | jq -r .agent_message)" ;;
	esac
}
expect() {	# expect DIALECT WANT-DECISION REGEX DESCRIPTION CMD-MEMBER [CWD] [TRAILER]
	local tv="${1}_t" got
	build "${!tv}" "$5" "${6:-\"$FOLDER\"}" "${7:-}" >"$T/in"
	got=$(run "$1" "$T/in")
	is "$(echo "$got" | cut -f1)" "$2" "$1: $4: $2"
	[ "$2" = deny ] && like "$(echo "$got" | cut -f2-)" "$3" "$1: $4: reason says why"
}

for d in claude codex cursor; do
	expect $d allow "" "a clean payload" '"command":"ls -la"'
	expect $d deny "duplicate key" "a duplicate command key" '"command":"ls","command":"rm -rf /"'
	expect $d deny "duplicate key" "a duplicate key spelled with an escape" '"command":"ls","comm\\\\u0061nd":"rm -rf /"'
	expect $d deny "raw control byte" "a raw control byte in a string" '"command":"ls\001"'
	expect $d deny "NUL byte" "a raw NUL in the command" '"command":"ls\000; echo x > /etc/passwd"'
	expect $d deny "invalid UTF-8" "invalid UTF-8 in the command" '"command":"ls \377"'
	expect $d deny "invalid UTF-8" "an overlong UTF-8 sequence" '"command":"ls \300\257"'
	expect $d deny "surrogate|not a JSON object" "a lone surrogate escape" '"command":"ls \\\\ud800"'
	expect $d deny "after the JSON value" "trailing data" '"command":"ls"' "" ' {"command":"rm -rf /"}'
	expect $d deny "after the JSON value" "trailing garbage" '"command":"ls"' "" 'xyz'
	expect $d deny "relative cwd" "a relative cwd" '"command":"rm -rf x"' '"sub"'
	expect $d deny "does not resolve" "a cwd that does not exist" '"command":"rm -rf x"' '"/nonexistent/dir"'
done
expect claude deny "no cwd" "no cwd at all" '"command":"rm -rf x"' 'null'
# Cursor's MCP arguments may come as JSON text: checked as strictly.
printf '{"hook_event_name":"beforeMCPExecution","conversation_id":"c","generation_id":"g","tool_name":"t","tool_input":"{\\"a\\":1,\\"a\\":2}","cwd":"%s","workspace_roots":["%s"]}' \
	"$FOLDER" "$FOLDER" >"$T/in"
got=$(run cursor "$T/in")
is "$(echo "$got" | cut -f1)" "deny" "cursor: MCP arguments as JSON text with a duplicate key: deny"
like "$(echo "$got" | cut -f2-)" "duplicate key" "cursor: and says why"

done_testing
