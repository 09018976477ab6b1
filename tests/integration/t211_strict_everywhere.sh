#!/usr/bin/env bash
# Strict JSON wherever sbx judges JSON: the Gemini CLI dialect (the fourth
# entry of the hook's dialect table), sbx-mcp's JSON-RPC lines and
# `sbx policy check --hook-json`. A duplicate key (the first harmless, the
# second not), raw control bytes, NUL, invalid UTF-8 and trailing data are
# a clear error or a deny, never a crash and never the harmless reading.
. "$(dirname "$0")/lib.sh"

init_folder
cd "$FOLDER" || exit 1
MCP="$SBX_BIN/sbx-mcp"

# --- sbx-hook gemini ---------------------------------------------------------
# (a non-zero exit shows as the reason "EXIT NOT 0", which no check accepts)
gemini_t='{"hook_event_name":"BeforeTool","session_id":"s","tool_name":"run_shell_command","tool_input":{CMD},"cwd":"'"$FOLDER"'"}'
gemini() {	# gemini CMD-MEMBER [TRAILER]: prints "allow" or "deny<TAB>reason"
	local t=${gemini_t//CMD/$1} out
	printf "$t${2:-}" >"$T/in"
	out=$("$HOOK" gemini <"$T/in") || out='{"decision":"deny","reason":"EXIT NOT 0"}'
	printf '%s' "$out" | jq -r 'if .decision == "deny" then "deny\t" + .reason else "allow" end'
}
is "$(gemini '"command":"ls -la"')" "allow" "gemini: a clean payload is allowed"
for c in '"command":"ls","command":"rm -rf /"|duplicate key' \
	'"command":"ls","comm\\\\u0061nd":"rm -rf /"|duplicate key' \
	'"command":"ls\001"|raw control byte' \
	'"command":"ls\000; echo x > /etc/passwd"|NUL byte' \
	'"command":"ls \377"|invalid UTF-8' \
	'"command":"ls \300\257"|invalid UTF-8'; do
	got=$(gemini "${c%|*}")
	like "$got" "^deny	.*${c#*|}" "gemini: ${c#*|} in the payload: denied, and why"
done
like "$(gemini '"command":"ls"' ' {"command":"rm -rf /"}')" "^deny	.*after the JSON value" \
	"gemini: trailing data: denied, and why"
like "$(gemini '"command":"ls\\\\u0000; rm -rf ~"')" "^deny	.*u0000" "gemini: a \\u0000 escape: denied"
head -c 5000000 /dev/zero | tr '\0' ' ' >"$T/big"
like "$("$HOOK" gemini <"$T/big" | jq -r .reason)" "larger than 4 MiB" \
	"gemini: 5 MB of input: denied, with the size"

# --- sbx-mcp -------------------------------------------------------------------
# mcp: the lines of a file to a fresh server in the folder; prints stdout.
mcp() { "$MCP" <"$1" 2>>"$T/mcp.err"; }
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
n=0
for c in '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sandbox_status","name":"run_privileged","arguments":{"command":"id"}}}|duplicate key' \
	'{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}|duplicate key' \
	'{"jsonrpc":"2.0","id":1,"method":"ping\001"}|raw control byte' \
	'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_privileged","arguments":{"command":"ls\000; id"}}}|NUL byte' \
	'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_privileged","arguments":{"command":"ls\\\\u0000; id"}}}|u0000' \
	'{"jsonrpc":"2.0","id":1,"method":"ping \377"}|invalid UTF-8' \
	'{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":3,"method":"ping"}|after the JSON value'; do
	n=$((n + 1))
	{ echo "$INIT"; printf "${c%|*}\n"; echo '{"jsonrpc":"2.0","id":2,"method":"ping"}'; } >"$T/mcp.in"
	out=$(mcp "$T/mcp.in")
	ok $? "mcp case $n: exit 0"
	err=$(echo "$out" | jq -c 'select(.error)')
	is "$(echo "$err" | jq -c '[.id, .error.code]')" '[null,-32700]' \
		"mcp: ${c#*|}: a -32700 parse error with id null"
	like "$(echo "$err" | jq -r .error.message)" "not strict JSON \(.*${c#*|}" "mcp: and it says why"
	is "$(echo "$out" | jq -c 'select(.id == 2) | .result')" "{}" "mcp: the next line is still answered"
	is "$(echo "$out" | jq -c 'select(.id == 1 or .id == 3)' | wc -l | tr -d ' ')" "0" \
		"mcp: nothing of the refused line was acted on"
done
is "$(ls "$FOLDER/.sandbox/queue/new" | wc -l | tr -d ' ')" "0" "mcp: nothing was queued"

# --- sbx policy check --hook-json ------------------------------------------------
check() {	# check BYTES: prints "VERDICT<TAB>REASON"
	printf "$1" >"$T/hook.json"
	"$SBX" -C "$FOLDER" policy check --hook-json "$T/hook.json" | jq -r '.verdict + "\t" + .reason'
}
P='{"tool_name":"Bash","tool_input":{CMD},"cwd":"'"$FOLDER"'"}'
like "$(check "${P//CMD/\"command\":\"ls\"}")" "^allow" "policy check: a clean payload is allowed"
for c in '"command":"ls","command":"rm -rf /"|duplicate key' \
	'"command":"ls\001"|raw control byte' \
	'"command":"ls\000; rm -rf /"|NUL byte' \
	'"command":"ls \377"|invalid UTF-8'; do
	like "$(check "${P//CMD/${c%|*}}")" "^deny	malformed hook payload: not strict JSON \(.*${c#*|}" \
		"policy check: ${c#*|}: deny, and why"
done
like "$(check "${P//CMD/\"command\":\"ls\"} {}")" "^deny	.*after the JSON value" \
	"policy check: trailing data: deny, and why"
like "$(check "${P//CMD/\"command\":\"ls\\\\\\\\u0000; rm -rf /\"}")" "^deny	.*u0000" \
	"policy check: a \\u0000 escape: deny"

done_testing
