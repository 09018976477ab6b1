#!/usr/bin/env bash
# An unlisted host through sbx-proxy is asked of a human through the
# folder queue, like any escalation: approved once (real signed `sbx
# approve`) it connects and stays open for the session; remembered, it
# connects in a later session without a question; denied or unanswered,
# the client gets a 403 that says why. sbxd consumes the approval and
# executes nothing. Each case leaves its audit record.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/proxylib.sh"

init_folder
PORT=$(free_port)
for ip in 127.0.0.4 127.0.0.5 127.0.0.6 127.0.0.7; do
	start_server "$ip" "$PORT" || echo "# cannot start a server on $ip:$PORT"
done
set_network '.network.allowedDomains = [] | .network.ask_timeout_seconds = 20'
start_daemon
ok $? "sbxd serves the folder"
start_proxy p sess-A
ok $? "sbx-proxy for session sess-A"

# 1. Approve once.
pc p connect "127.0.0.4:$PORT" /hello.txt >"$T/c1.out" 2>&1 &
cp1=$!
wait_for 10 has_pending
ok $? "CONNECT to an unlisted host is queued as a request"
json=$("$SBX" -C "$FOLDER" pending --json)
id=$(echo "$json" | jq -r '.[0].id')
is "$(echo "$json" | jq -r '.[0].tool')" "network" "pending --json: tool network"
is "$(echo "$json" | jq -r '.[0].command')" "CONNECT 127.0.0.4:$PORT" "pending --json: CONNECT host:port"
is "$(echo "$json" | jq -r '.[0].session')" "sess-A" "pending --json: the jail session"
is "$(echo "$json" | jq -r '.[0].trigger')" "network" "pending --json: the network trigger"
like "$("$SBX" -C "$FOLDER" pending)" "network: CONNECT 127.0.0.4:$PORT, session sess-A" "sbx pending shows network: CONNECT host:port and the session"
kill -0 "$cp1" 2>/dev/null
ok $? "the client waits while the human decides"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
ok $? "sbx approve signs the decision"
wait "$cp1"
ok $? "approved: the connection goes through"
like "$(cat "$T/c1.out")" "hello from the server" "... and reaches the server"
show=$("$SBX" -C "$FOLDER" show "$id" --json)
is "$(echo "$show" | jq -r .status)" "approved" "the request is approved (not done: nothing ran)"
is "$(echo "$show" | jq -r .result.status)" "approved" "its result says approved"
like "$("$SBX" -C "$FOLDER" show "$id")" "result   approved \(nothing is executed" \
	"sbx show says nothing was executed"
story=$("$SBX" -C "$FOLDER" audit show --request "$id" --json)
is "$(echo "$story" | jq -r '[.[].event] | map(select(. == "exec_started")) | length')" "0" \
	"sbxd executed nothing for it"
like "$(echo "$story" | jq -r '[.[].event] | join(" ")')" \
	"request_received decision approval_consumed request_closed" \
	"its story: received, decided, consumed, closed"
n_req=$(sqlite3 -cmd '.timeout 5000' "$FOLDER/.sandbox/state.db" "SELECT count(*) FROM requests")
out=$(pc p connect "127.0.0.4:$PORT" /hello.txt)
like "$out" "hello from the server" "the same host again in this session connects"
is "$(sqlite3 -cmd '.timeout 5000' "$FOLDER/.sandbox/state.db" "SELECT count(*) FROM requests")" "$n_req" \
	"... without asking again"

# 2. Deny with a reason.
pc p connect "127.0.0.5:$PORT" /hello.txt >"$T/c2.out" 2>&1 &
cp2=$!
wait_for 10 has_pending
id2=$(pending_ids)
"$SBX" -C "$FOLDER" approve "$id2" --prefix "CONNECT 127.0.0.5:$PORT" >"$T/prefix.out" 2>&1
ok $([ $? -ne 0 ]; echo $?) "a network request cannot be remembered by prefix"
like "$(cat "$T/prefix.out")" "remembered exactly" "... the approver is told why"
"$SBX" -C "$FOLDER" deny "$id2" --reason "no exfiltration hosts" >/dev/null
wait "$cp2"
ok $([ $? -ne 0 ]; echo $?) "denied: the client is refused"
like "$(cat "$T/c2.out")" "^HTTP/1.1 403" "... with 403"
like "$(cat "$T/c2.out")" "DENIED by [^ ]+: no exfiltration hosts" "... and the approver's reason"
unlike "$(cat "$T/c2.out")" "hello from the server" "... and nothing from the server"

# 3. Unanswered: the bound from the policy, then a 403 that says what to ask for.
set_network '.network.ask_timeout_seconds = 1'
out=$(pc p connect "127.0.0.6:$PORT" /hello.txt)
like "$out" "^HTTP/1.1 403" "unanswered: 403"
like "$out" "no human answered within 1 s" "... that says nobody answered in time"
wait_for 10 has_pending	# (the proxy names the request; sbxd may take it in later, under load)
id3=$(pending_ids)
like "$out" "sbx approve $id3" "... and names the request to approve"
like "$out" "network.allowedDomains" "... or the policy key to change"
# Answered later: the next try collects the approval.
"$SBX" -C "$FOLDER" approve "$id3" >/dev/null
wait_for 10 test -f "$FOLDER/.sandbox/results/$id3.json"
out=$(pc p connect "127.0.0.6:$PORT" /hello.txt)
like "$out" "hello from the server" "approved after the timeout: the retry connects"

# 4. Remember: a later session connects with no question.
set_network '.network.ask_timeout_seconds = 20'
pc p connect "127.0.0.7:$PORT" /hello.txt >"$T/c4.out" 2>&1 &
cp4=$!
wait_for 10 has_pending
id4=$(pending_ids)
"$SBX" -C "$FOLDER" approve "$id4" --remember >/dev/null
wait "$cp4"
ok $? "approved and remembered: connects"
"$SBX" -C "$FOLDER" approve "$id4" >"$T/again.out" 2>&1
ok $([ $? -ne 0 ]; echo $?) "a second decision for the consumed request is refused"
start_proxy q sess-B
out=$(pc q connect "127.0.0.7:$PORT" /hello.txt)
like "$out" "hello from the server" "a new session reaches the remembered host"
is "$("$SBX" -C "$FOLDER" pending --json | jq length)" "0" "... and nobody was asked"
auto=$(sqlite3 -cmd '.timeout 5000' "$FOLDER/.sandbox/state.db" \
	"SELECT status || ' ' || auto || ' ' || session FROM requests ORDER BY created DESC, rowid DESC LIMIT 1")
is "$auto" "approved 1 sess-B" "... approved by the remembered rule, for session sess-B"
out=$(pc q connect "127.0.0.4:$PORT" /hello.txt) &
qp=$!
wait_for 10 has_pending
ok $? "an approval once in session A does not open the host for session B"
"$SBX" -C "$FOLDER" deny "$(pending_ids)" >/dev/null
wait "$qp"

# 5. The records.
wait_for 10 events_drained
recs=$(net_records)
is "$(echo "$recs" | jq -r "select(.request == \"$id\") | .data.verdict" | head -1)" "approved" \
	"the approved connection is recorded with its request"
like "$(echo "$recs" | jq -r "select(.request == \"$id\") | .data.bytes_down" | head -1)" '^[1-9][0-9]*$' \
	"... and the bytes it carried"
like "$(echo "$recs" | jq -r "select(.request == \"$id\") | .data.reason" | sort | tr '\n' ';')" \
	"^approved by [^;]+;approved earlier in this session;" \
	"the connection that used the session's approval names the same request"
is "$(echo "$recs" | jq -r "select(.request == \"$id2\") | .data.verdict")" "denied" \
	"the denied connection is recorded"
like "$(echo "$recs" | jq -r "select(.request == \"$id3\") | .data.verdict" | sort -u | tr '\n' ' ')" \
	"approved refused" "the unanswered one is recorded refused, its retry approved"
like "$("$SBX" -C "$FOLDER" audit show --request "$id2")" "network_connection .*denied" \
	"sbx audit show --request tells the connection's story"
"$SBX" -C "$FOLDER" audit verify >"$T/verify.out" 2>&1
ok $? "sbx audit verify holds"

done_testing
