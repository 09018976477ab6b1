#!/usr/bin/env bash
# Every tool call can be approved: a call sbxd cannot run itself (a Write
# outside the project, an MCP server's tool) is queued; the human's
# signed approval leaves a one-time allowance bound to the exact tool and
# input; the identical retry consumes it and is allowed; a second retry
# is escalated again; a different input is not covered; all audited.
. "$(dirname "$0")/lib.sh"

init_folder
set_limits '{"hook_wait_seconds": 1}'
start_daemon
mkdir -p "$T/outside"
OUT="$T/outside/notes.txt"
write_payload() {
	payload Write "$(jq -cn --arg p "$OUT" --arg c "$1" '{file_path: $p, content: $c}')"
}
hook_write() { write_payload "$1" | env -u TMPDIR CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre; }

# First call: queued, the model is told to retry once after approval.
out=$(hook_write "hello")
is "$(echo "$out" | decision)" "deny" "a Write outside the project is not allowed at once"
r=$(echo "$out" | reason)
like "$r" "pending as request [0-9a-f]{16}" "it is queued for a human"
like "$r" "repeat the identical call once" "and the model is told to retry once after approval"
id=$(echo "$r" | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
is "$("$SBX" -C "$FOLDER" show "$id" --json | jq -r '[.status, .tool] | join(" ")')" "pending Write" \
	"sbx shows it pending, as a Write"
like "$("$SBX" -C "$FOLDER" pending)" "Write .*notes\\.txt" "sbx pending lists it with its input"

# Approve: nothing runs in sbxd; the allowance waits for the retry.
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait_for 10 test -f "$FOLDER/.sandbox/results/$id.json"
is "$(jq -r .status "$FOLDER/.sandbox/results/$id.json")" "approved" "sbxd records it approved"
[ ! -e "$OUT" ]
ok $? "and writes nothing itself"

# A different input is not covered.
out=$(hook_write "something else")
is "$(echo "$out" | decision)" "deny" "a Write with other content is not covered by the approval"

# The identical retry: allowed once.
out=$(hook_write "hello")
is "$(echo "$out" | decision)" "allow" "the identical retry is allowed"
like "$(echo "$out" | reason)" "approved by [^ ]+ as request $id" "naming the approval"
test -e "$FOLDER/.sandbox/queue/delivered/$id"
ok $? "the allowance was consumed (delivery receipt)"

# A second identical retry is escalated again.
out=$(hook_write "hello")
is "$(echo "$out" | decision)" "deny" "a second identical retry is not allowed"
like "$(echo "$out" | reason)" "pending as request [0-9a-f]{16}" "it is escalated again"
unlike "$(echo "$out" | reason)" "request $id" "as a new request"

# Approved while the hook still waits: allowed at once.
set_limits '{"hook_wait_seconds": 20}'
write_payload "while waiting" | env -u TMPDIR CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre >"$T/w.out" &
hp=$!
wait_for 10 bash -c "$SBX -C $FOLDER pending --json | jq -e '.[] | select(.input.content == \"while waiting\")'"
wid=$("$SBX" -C "$FOLDER" pending --json | jq -r '.[] | select(.input.content == "while waiting") | .id')
"$SBX" -C "$FOLDER" approve "$wid" >/dev/null
wait "$hp"
is "$(decision <"$T/w.out")" "allow" "approved while the hook waits: allowed at once"

# Another MCP server's tool, and a denial.
out=$(payload mcp__github__create_pull_request '{"title": "x"}' |
	CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre)
mid=$(echo "$out" | reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
[ -n "$mid" ]
ok $? "another MCP server's tool is queued for approval too"
"$SBX" -C "$FOLDER" deny "$mid" --reason "not today" >/dev/null
wait_for 10 test -f "$FOLDER/.sandbox/results/$mid.json"
out=$(payload mcp__github__create_pull_request '{"title": "x"}' |
	CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre)
is "$(echo "$out" | decision)" "deny" "denied, the retry is denied"
like "$(echo "$out" | reason)" "DENIED by [^ ]+: not today" "with the human's reason"

# Everything is audited.
a=$("$SBX" -C "$FOLDER" audit show --request "$id")
like "$a" "request_received" "audit: the request"
like "$a" "decision" "audit: the decision"
like "$a" "request_closed +.*approved" "audit: approved, nothing executed"
wait_for 10 bash -c "$SBX -C $FOLDER audit show --request $id | grep -q result_delivered"
ok $? "audit: the allowance consumed by the retry"

done_testing
