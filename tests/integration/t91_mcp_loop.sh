#!/usr/bin/env bash
# The approval loop through sbx-mcp: run_privileged, request_path_access
# and check_request against the real sbxd and a scripted approver.
. "$(dirname "$0")/lib.sh"

MCP="$SBX_BIN/sbx-mcp"
init_folder
setup_task
set_limits '{"hook_wait_seconds": 20}'
start_daemon
ok $? "sbxd serves the folder"

# One long-lived server, fed through a FIFO like a client would.
mkfifo "$T/mcp.in"
(cd "$FOLDER" && exec "$MCP" <"$T/mcp.in" >"$T/mcp.out" 2>"$T/mcp.err") &
MPID=$!
exec 7>"$T/mcp.in"
send() { printf '%s\n' "$1" >&7; }
# (Not jq -e: jq 1.6 sets its status from the last input only.)
reply_line() { jq -c --argjson id "$1" 'select(.id == $id)' "$T/mcp.out" 2>/dev/null; }
has_reply() { [ -n "$(reply_line "$1")" ]; }
reply() {	# reply ID: waits for and prints the reply to request ID
	wait_for 30 has_reply "$1" && reply_line "$1"
}
call() {
	send "$(jq -cn --argjson id "$1" --arg n "$2" --argjson a "$3" \
		'{jsonrpc:"2.0", id:$id, method:"tools/call", params:{name:$n, arguments:$a}}')"
}
approve_next() {	# approve_next [deny REASON]: decides the one pending request
	wait_for 10 has_pending || return 1
	if [ "${1:-}" = deny ]; then
		"$SBX" -C "$FOLDER" deny "$(pending_ids)" --reason "$2" >/dev/null
	else
		"$SBX" -C "$FOLDER" approve "$(pending_ids)" >/dev/null
	fi
}
send '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
reply 0 >/dev/null
ok $? "initialized"

# Approved: the output comes back as the tool result.
call 1 run_privileged '{"command": "./task.sh one", "reason": "test"}'
approve_next
r=$(reply 1)
is "$(echo "$r" | jq -r .result.isError)" "false" "approved and exit 0: not an error"
like "$(echo "$r" | jq -r .result.content[0].text | head -1)" "ALREADY EXECUTED outside the agent as request [0-9a-f]{16} \\(exit status 0" "the text says it ran, with the exit status"
like "$(echo "$r" | jq -r .result.content[0].text)" "out: one" "stdout reaches the model"
like "$(echo "$r" | jq -r .result.content[0].text)" "err: one" "stderr reaches the model"
sc=$(echo "$r" | jq -c .result.structuredContent)
is "$(echo "$sc" | jq -r '[.status, .exit_code, .stdout_truncated] | join(",")')" "done,0,false" "structuredContent: status, exit code, truncation"
like "$(echo "$sc" | jq -r .duration_ms)" '^[0-9]+$' "structuredContent: duration"
id1=$(echo "$sc" | jq -r .id)
is "$(runs)" "1" "it ran once"

# A failing command is an error result with its status.
call 2 run_privileged '{"command": "./task.sh fail"}'
approve_next
r=$(reply 2)
is "$(echo "$r" | jq -r '[.result.isError, .result.structuredContent.exit_code] | join(",")')" "true,3" "exit 3: isError, exit code 3"

# Denied by the human: an error result with the reason.
call 3 run_privileged '{"command": "./task.sh two"}'
approve_next deny "not today"
r=$(reply 3)
is "$(echo "$r" | jq -r .result.isError)" "true" "denied by the human: isError"
like "$(echo "$r" | jq -r .result.content[0].text)" "DENIED by [^ ]+: not today" "with the human's reason"
is "$(grep -c 'run two' "$FOLDER/runs.log")" "0" "and it never ran"

# The wait runs out: the id, then check_request until done.
call 4 run_privileged '{"command": "./task.sh four", "wait_seconds": 1}'
r=$(reply 4)
id=$(echo "$r" | jq -r .result.structuredContent.id)
is "$(echo "$r" | jq -r .result.structuredContent.status)" "pending" "after wait_seconds: pending with the id"
call 5 check_request "$(jq -cn --arg i "$id" '{id: $i}')"
is "$(reply 5 | jq -r .result.structuredContent.status)" "pending" "check_request: pending"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait_for 10 test -f "$FOLDER/.sandbox/results/$id.json"
call 6 check_request "$(jq -cn --arg i "$id" '{id: $i}')"
r=$(reply 6)
is "$(echo "$r" | jq -r .result.structuredContent.status)" "done" "check_request: done after approval"
like "$(echo "$r" | jq -r .result.content[0].text)" "out: four" "with the output"
test -e "$FOLDER/.sandbox/queue/delivered/$id" || test -f "$FOLDER/.sandbox/done/$id.json"
ok $? "check_request leaves a delivery receipt, so sbxd files it under done/"
call 7 check_request "$(jq -cn --arg i "$id1" '{id: $i}')"
like "$(reply 7 | jq -r .result.content[0].text)" "out: one" "check_request works for an earlier, delivered request"

# request_path_access: a write outside the project, then a read of it.
out_file="$T/outside/notes.txt"
mkdir -p "$T/outside"
content=$'line one\nit'"'"'s "quoted" $HOME `x`\n'
call 8 request_path_access "$(jq -cn --arg p "$out_file" --arg c "$content" '{path: $p, mode: "write", content: $c, reason: "test"}')"
wait_for 10 has_pending
is "$("$SBX" -C "$FOLDER" pending --json | jq -r '.[0].command' | head -1)" "printf '%s' 'line one" "the human sees the exact write command"
approve_next
r=$(reply 8)
is "$(echo "$r" | jq -r .result.isError)" "false" "the approved write succeeded"
is "$(cat "$out_file")" "$(printf '%s' "$content")" "the file holds exactly the content, quotes and all"
p="$FOLDER/.sandbox/policy.json"
jq --arg d "$T/outside" '.filesystem.denyRead += [$d]' "$p" >"$p.new" && mv "$p.new" "$p"
accept_policy
call 9 request_path_access "$(jq -cn --arg p "$out_file" '{path: $p, mode: "read"}')"
wait_for 10 has_pending
is "$("$SBX" -C "$FOLDER" pending --json | jq -r '.[0].command')" "cat -- '$out_file'" "a read under denyRead is escalated as the exact cat command"
approve_next
r=$(reply 9)
is "$(echo "$r" | jq -r .result.isError)" "false" "the approved read succeeded"
like "$(echo "$r" | jq -r .result.content[0].text)" "it's \"quoted\" \\\$HOME" "and returns the file's content"
call 11 request_path_access "$(jq -cn --arg p "$T/outside/missing" '{path: $p, mode: "read"}')"
approve_next
r=$(reply 11)
is "$(echo "$r" | jq -r '[.result.isError, .result.structuredContent.exit_code] | join(",")')" "true,1" "a read that fails is an error with its exit status"

# While a call waits for a human the server still answers: ping, a second
# call in parallel; a cancelled call gets no reply and stays queued.
call 20 run_privileged '{"command": "./task.sh par1"}'
wait_for 10 has_pending
send '{"jsonrpc":"2.0","id":21,"method":"ping"}'
is "$(reply 21 | jq -c .result)" "{}" "a ping is answered while a call waits for a human"
! has_reply 20
ok $? "and the waiting call has not been answered yet"
call 22 run_privileged '{"command": "./task.sh par2"}'
wait_for 10 bash -c "[ \$($SBX -C $FOLDER pending --json | jq length) = 2 ]"
ok $? "a second call runs in parallel: two requests pending"
for i in $(pending_ids); do "$SBX" -C "$FOLDER" approve "$i" >/dev/null; done
like "$(reply 20 | jq -r .result.content[0].text)" "out: par1" "the first call gets its own output"
like "$(reply 22 | jq -r .result.content[0].text)" "out: par2" "the second call gets its own output"
call 23 run_privileged '{"command": "./task.sh cancelled"}'
wait_for 10 has_pending
cid=$(pending_ids)
send '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":23,"reason":"user"}}'
send '{"jsonrpc":"2.0","id":24,"method":"ping"}'
reply 24 >/dev/null
sleep 0.5
! has_reply 23
ok $? "a cancelled call gets no reply"
call 25 check_request "$(jq -cn --arg i "$cid" '{id: $i}')"
is "$(reply 25 | jq -r .result.structuredContent.status)" "pending" "its request stays queued for the human"
"$SBX" -C "$FOLDER" deny "$cid" >/dev/null

# sandbox_status with the daemon running.
call 10 sandbox_status '{}'
r=$(reply 10)
is "$(echo "$r" | jq -r .result.structuredContent.daemon_running)" "true" "sandbox_status: the daemon is running"
is "$(echo "$r" | jq -r .result.structuredContent.daemon_pid)" "$DPID" "with its pid"
like "$(echo "$r" | jq -r '.result.structuredContent.requests.finished_last_24h.done')" '^[0-9]+$' "and counts finished requests"

# A server killed mid-call takes its waiting call with it.
mkfifo "$T/mcp2.in"
(cd "$FOLDER" && exec "$MCP" <"$T/mcp2.in" >"$T/mcp2.out" 2>/dev/null) &
M2=$!
exec 8>"$T/mcp2.in"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_privileged","arguments":{"command":"./task.sh orphan"}}}' >&8
wait_for 10 has_pending
child=$(ps -o pid= --ppid "$M2" | tr -d ' ' | head -1)
like "$child" '^[0-9]+$' "the waiting call runs in a child of the server"
{ kill -9 "$M2"; wait "$M2"; } 2>/dev/null
wait_for 5 bash -c "! kill -0 $child"
ok $? "killing the server ends the child that waited"
exec 8>&-
"$SBX" -C "$FOLDER" deny "$(pending_ids)" >/dev/null

exec 7>&-
wait "$MPID"
is "$?" "0" "the server exits 0 when its stdin closes"
is "$(jq -r .jsonrpc "$T/mcp.out" | sort -u)" "2.0" "stdout held only protocol messages"

done_testing
