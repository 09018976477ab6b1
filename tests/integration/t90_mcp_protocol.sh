#!/usr/bin/env bash
# sbx-mcp speaks JSON-RPC 2.0 / MCP on stdio: good messages, malformed and
# hostile ones (not JSON, wrong types, batches, huge lines, unknown
# methods), and the tools' own argument checks. Only protocol lines on
# stdout, one reply per request, none per notification, exit 0 on EOF.
. "$(dirname "$0")/lib.sh"

MCP="$SBX_BIN/sbx-mcp"
init_folder

# mcp LINE...: sends the lines to a fresh server in the folder; prints stdout.
mcp() {
	(cd "$FOLDER" && printf '%s\n' "$@" | "$MCP" 2>>"$T/mcp.err")
}
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
call() {	# call ID TOOL ARGS-JSON: a tools/call line
	jq -cn --argjson id "$1" --arg n "$2" --argjson a "$3" \
		'{jsonrpc:"2.0", id:$id, method:"tools/call", params:{name:$n, arguments:$a}}'
}
by_id() { jq -c --argjson id "$1" 'select(.id == $id)'; }

# initialize and version negotiation.
for v in 2024-11-05 2025-03-26 2025-06-18 2025-11-25; do
	out=$(mcp "$(echo "$INIT" | jq -c --arg v $v '.params.protocolVersion = $v')")
	is "$(echo "$out" | jq -r .result.protocolVersion)" "$v" "initialize echoes supported version $v"
done
out=$(mcp "$(echo "$INIT" | jq -c '.params.protocolVersion = "1999-01-01"')")
is "$(echo "$out" | jq -r .result.protocolVersion)" "2025-11-25" "an unknown version gets the latest we speak"
is "$(echo "$out" | jq -r .result.serverInfo.name)" "sbx-mcp" "serverInfo names the server"
is "$(echo "$out" | jq -c .result.capabilities.tools)" '{"listChanged":false}' "capabilities offer tools"
out=$(mcp '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7}}')
is "$(echo "$out" | jq -r .error.code)" "-32602" "initialize with a non-string version: -32602"

# Notifications never get a reply; ping does.
out=$(mcp "$INIT" '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","method":"no/such/notification","params":[1]}' \
	'{"jsonrpc":"2.0","id":"p","method":"ping"}')
is "$(echo "$out" | wc -l | tr -d ' ')" "2" "two requests, two replies: notifications are not answered"
is "$(echo "$out" | by_id '"p"' | jq -c .result)" "{}" "ping answers {}"

# tools/list.
out=$(mcp "$INIT" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | by_id 2)
is "$(echo "$out" | jq -r '[.result.tools[].name] | sort | join(",")')" \
	"check_request,fetch_url,request_path_access,run_privileged,sandbox_status" "tools/list names the five tools"
is "$(echo "$out" | jq -r '[.result.tools[] | select(.inputSchema.type == "object" and (.description | length) > 80)] | length')" \
	"5" "each has an object inputSchema and a description for the model"
unlike "$(echo "$out" | jq -r '.result.tools[].name')" "approve" "no tool approves anything"

# Malformed and hostile messages.
out=$(mcp 'this is not json')
is "$(echo "$out" | jq -c '[.id, .error.code]')" '[null,-32700]' "not JSON: -32700 with id null"
out=$(mcp '{"jsonrpc":"2.0","id":3,"method":"ping"')
is "$(echo "$out" | jq -c '[.id, .error.code]')" '[null,-32700]' "truncated JSON: -32700"
out=$(mcp '[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}]')
is "$(echo "$out" | jq -c '[.id, .error.code]')" '[null,-32600]' "a batch: one -32600, none of it run"
is "$(mcp '[]' | jq -r .error.code)" "-32600" "an empty batch: -32600"
is "$(mcp '42' | jq -r .error.code)" "-32600" "a bare number: -32600"
is "$(mcp '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}' | jq -c '[.id, .error.code]')" '[null,-32600]' "an object id: -32600"
is "$(mcp '{"jsonrpc":"2.0","id":null,"method":"ping"}' | jq -c '[.id, .error.code]')" '[null,-32600]' "a null id: -32600"
is "$(mcp '{"jsonrpc":"1.0","id":6,"method":"ping"}' | jq -c '[.id, .error.code]')" '[6,-32600]' "jsonrpc 1.0: -32600"
is "$(mcp '{"id":7,"method":"ping"}' | jq -r .error.code)" "-32600" "no jsonrpc member: -32600"
is "$(mcp '{"jsonrpc":"2.0","id":8,"method":42}' | jq -r .error.code)" "-32600" "a numeric method: -32600"
is "$(mcp '{"jsonrpc":"2.0","id":9,"method":"tools/list","params":[1]}' | jq -r .error.code)" "-32602" "params as an array: -32602"
is "$(mcp '{"jsonrpc":"2.0","id":10,"method":"resources/list"}' | jq -c '[.id, .error.code]')" '[10,-32601]' "an unknown method: -32601"
is "$(mcp '{"jsonrpc":"2.0","id":11,"result":{}}' | wc -c | tr -d ' ')" "0" "a stray response is ignored"
out=$(mcp "$(printf '{"jsonrpc":"2.0","id":12,"method":"\xff\xfe\x80"}')")
is "$(echo "$out" | jq -r .error.code)" "-32700" "invalid UTF-8 in a method: -32700 (not strict JSON)"
echo "$out" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1
ok $? "and the reply is valid UTF-8"
out=$(cd "$FOLDER" && printf '%s\r\n' '{"jsonrpc":"2.0","id":13,"method":"ping"}' | "$MCP")
is "$(echo "$out" | jq -c .result)" "{}" "CRLF line endings are accepted"

# A 2 MiB line is refused without being buffered whole; the server goes on.
{ printf '{"jsonrpc":"2.0","id":14,"method":"ping","params":{"x":"'; head -c 2097152 /dev/zero | tr '\0' a
  printf '"}}\n{"jsonrpc":"2.0","id":15,"method":"ping"}\n'; } >"$T/huge.in"
out=$(cd "$FOLDER" && "$MCP" <"$T/huge.in")
is "$(echo "$out" | head -1 | jq -c '[.id, .error.code]')" '[null,-32700]' "a 2 MiB line: -32700"
is "$(echo "$out" | by_id 15 | jq -c .result)" "{}" "and the next message is still answered"
is "$(echo "$out" | wc -l | tr -d ' ')" "2" "exactly one reply for the huge line"

# Random bytes: the server survives, answers each non-empty line with an
# error at most, and stays on protocol.
head -c 200000 /dev/urandom >"$T/noise.in"
printf '\n{"jsonrpc":"2.0","id":"last","method":"ping"}\n' >>"$T/noise.in"
(cd "$FOLDER" && "$MCP" <"$T/noise.in" >"$T/noise.out" 2>/dev/null)
is "$?" "0" "200 kB of random bytes: the server exits 0 at EOF"
is "$(jq -r .jsonrpc "$T/noise.out" 2>/dev/null | sort -u)" "2.0" "every reply to noise is a JSON-RPC message"
is "$(jq -c 'select(.id == "last") | .result' "$T/noise.out")" "{}" "and a good message after the noise is answered"
is "$(jq -r 'select(.result != null and .id != "last") | .id' "$T/noise.out" | wc -l | tr -d ' ')" "0" "noise never produces a result"

# Every stdout line is a JSON-RPC message; EOF ends the server with 0.
(cd "$FOLDER" && printf '%s\n' "$INIT" 'x' '[1]' '{"jsonrpc":"2.0","id":1,"method":"nope"}' | "$MCP" >"$T/all.out" 2>"$T/all.err")
is "$?" "0" "exit 0 on EOF"
is "$(jq -r '.jsonrpc' "$T/all.out" | sort -u)" "2.0" "stdout carries only protocol messages"
(cd "$FOLDER" && "$MCP" </dev/null >/dev/null 2>&1)
is "$?" "0" "exit 0 on an empty stdin"

# tools/call errors: protocol errors versus tool errors.
out=$(mcp "$INIT" "$(call 20 no_such_tool '{}')" | by_id 20)
is "$(echo "$out" | jq -r .error.code)" "-32602" "an unknown tool: -32602"
out=$(mcp '{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"arguments":{}}}')
is "$(echo "$out" | jq -r .error.code)" "-32602" "tools/call without a name: -32602"
out=$(mcp '{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"run_privileged","arguments":"ls"}}')
is "$(echo "$out" | jq -r .result.isError)" "true" "arguments as a string: a tool error"
out=$(mcp "$(call 23 run_privileged '{"command": 42}')")
like "$(echo "$out" | jq -r '"\(.result.isError) \(.result.content[0].text)"')" 'true.*command.*required' "command of the wrong type: a tool error that says what is wanted"
out=$(mcp "$(call 24 run_privileged '{"command": "ls", "sudo": true}')")
like "$(echo "$out" | jq -r .result.content[0].text)" 'unknown argument "sudo"' "an unknown argument is refused by name"
out=$(mcp "$(call 25 run_privileged '{"command": "ls", "wait_seconds": -1}')")
is "$(echo "$out" | jq -r .result.isError)" "true" "a negative wait is refused"
out=$(mcp "$(call 26 run_privileged '{"command": "git push", "cwd": "/etc"}')")
like "$(echo "$out" | jq -r .result.content[0].text)" "not a directory inside the project" "a cwd outside the project is refused"
out=$(mcp "$(call 27 check_request '{"id": "../../../etc/passwd"}')")
like "$(echo "$out" | jq -r '"\(.result.isError) \(.result.content[0].text)"')" 'true.*16-hex-digit' "check_request refuses a path as id"
out=$(mcp "$(call 28 check_request '{"id": "0123456789abcdef"}')")
like "$(echo "$out" | jq -r '"\(.result.isError) \(.result.content[0].text)"')" 'true.*no request' "check_request on an unknown id"
out=$(mcp "$(call 29 request_path_access '{"path": "/tmp/x", "mode": "delete"}')")
like "$(echo "$out" | jq -r .result.content[0].text)" '"read" or "write"' "request_path_access: mode must be read or write"
out=$(mcp "$(call 30 request_path_access '{"path": "/tmp/x", "mode": "read", "content": "x"}')")
is "$(echo "$out" | jq -r .result.isError)" "true" "request_path_access: no content with read"
out=$(mcp "$(call 31 fetch_url '{"url": "file:///etc/passwd"}')")
like "$(echo "$out" | jq -r .result.content[0].text)" 'http:// or https://' "fetch_url refuses other schemes"
out=$(mcp "$(call 32 fetch_url '{"url": "https://example.com/ x"}')")
is "$(echo "$out" | jq -r .result.isError)" "true" "fetch_url refuses spaces"

# The policy decides first: denied stays denied, allowed is not queued.
out=$(mcp "$(call 40 run_privileged '{"command": "rm -rf /"}')")
like "$(echo "$out" | jq -r '"\(.result.isError) \(.result.content[0].text)"')" 'true.*denied by policy' "a command the policy denies stays denied, with the reason"
out=$(mcp "$(call 41 run_privileged '{"command": "ls"}')")
like "$(echo "$out" | jq -r '"\(.result.isError) \(.result.content[0].text)"')" 'true.*nothing was queued' "an allowed command is not queued"
out=$(mcp "$(call 42 request_path_access "$(jq -cn --arg p "$FOLDER/.sandbox/policy.json" '{path: $p, mode: "write", content: "{}"}')")")
like "$(echo "$out" | jq -r '"\(.result.isError) \(.result.content[0].text)"')" 'true.*denied by policy' "writing the sandbox policy through MCP is denied"
is "$(ls "$FOLDER/.sandbox/queue/new" | wc -l | tr -d ' ')" "0" "nothing was queued by any of this"

# Without a daemon: queued, pending, visible to check_request and status.
out=$(mcp "$(call 50 run_privileged '{"command": "git push origin main", "reason": "publish", "wait_seconds": 0}')")
is "$(echo "$out" | jq -r .result.isError)" "false" "an escalated command with no wait is not an error"
id=$(echo "$out" | jq -r .result.structuredContent.id)
like "$id" '^[0-9a-f]{16}$' "it returns the request id"
like "$(echo "$out" | jq -r .result.content[0].text)" "check_request" "and says to use check_request"
is "$(jq -r .agent "$FOLDER/.sandbox/queue/new/$id.json")" "mcp" "the request is marked as from MCP"
is "$(jq -r .input.command "$FOLDER/.sandbox/queue/new/$id.json")" "git push origin main" "with the exact command"
out=$(mcp "$(call 51 check_request "$(jq -cn --arg i "$id" '{id: $i}')")")
is "$(echo "$out" | jq -r .result.structuredContent.status)" "pending" "check_request: pending"
like "$(echo "$out" | jq -r .result.content[0].text)" "sbxd.*not running" "and says the daemon is not running"
out=$(mcp "$(call 52 sandbox_status '{}')")
sc=$(echo "$out" | jq -c .result.structuredContent)
is "$(echo "$sc" | jq -r .folder)" "$FOLDER" "sandbox_status: the folder"
is "$(echo "$sc" | jq -r .daemon_running)" "false" "sandbox_status: daemon not running"
is "$(echo "$sc" | jq -r .requests.pending)" "1" "sandbox_status: one pending"
is "$(echo "$sc" | jq -r .requests.unfinished[0].command)" "git push origin main" "sandbox_status lists it"
like "$(echo "$sc" | jq -r .policy.blake2b)" '^[0-9a-f]{64}$' "sandbox_status: the policy hash"
is "$(echo "$sc" | jq -r .policy.blake2b)" "$(b2sum -l 256 "$FOLDER/.sandbox/policy.json" | cut -d' ' -f1)" "which is BLAKE2b-256 of policy.json"

# No folder: the server still starts and the tools say what to do.
mkdir -p "$T/bare"
out=$(cd "$T/bare" && printf '%s\n' "$INIT" "$(call 60 sandbox_status '{}')" | "$MCP" 2>/dev/null)
is "$(echo "$out" | by_id 0 | jq -r .result.serverInfo.name)" "sbx-mcp" "without a folder initialize still works"
like "$(echo "$out" | by_id 60 | jq -r .result.content[0].text)" "sbx init" "and the tools say to run sbx init"

done_testing
