#!/usr/bin/env bash
# The real sbx-proxy behind `sbx jail`, end to end: from inside the jail,
# curl through HTTP(S)_PROXY reaches an allowed local server (plain HTTP
# and a CONNECT tunnel), a denied one gets 403 at once, and an unlisted one
# is asked outside (`sbx pending` shows it with the jail's session) and
# answered: approved it connects, denied it gets 403. Every connection is
# in the audit log with the jail's session. Servers on 127.0.0.x only.
. "$(dirname "$0")/lib.sh"

command -v bwrap >/dev/null || { echo "1..0 # SKIP bubblewrap is not installed"; exit 0; }
command -v curl >/dev/null || { echo "1..0 # SKIP curl is needed"; exit 0; }
. "$(dirname "$0")/proxylib.sh"

export HOME="$T/home"
mkdir -p "$HOME"
init_folder
PORT=$(free_port)
for ip in 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5; do
	start_server "$ip" "$PORT" || echo "# cannot start a server on $ip:$PORT"
done
set_network ".network.allowedDomains = [\"127.0.0.2:$PORT\"] |
	.network.deniedDomains = [\"127.0.0.3\"] | .network.ask_timeout_seconds = 30"
start_daemon
ok $? "sbxd serves the folder"

jail() { "$SBX" -C "$FOLDER" jail -- "$@"; }

# Allowed: plain HTTP through HTTP_PROXY, and a CONNECT tunnel.
out=$(jail sh -c "echo session=\$SBX_JAIL_SESSION; curl -s -m 20 http://127.0.0.2:$PORT/hello.txt" 2>&1)
like "$out" "hello from the server" "in the jail, curl reaches an allowed server through the proxy"
session=$(echo "$out" | sed -n 's/^session=//p')
like "$session" "^[0-9a-f]{16}$" "the jail has a session id"
out=$(jail curl -s -p -m 20 "http://127.0.0.2:$PORT/hello.txt" 2>&1)
like "$out" "hello from the server" "a CONNECT tunnel (curl -p) to the allowed server works too"

# Denied: 403 at once, nothing asked.
out=$(jail curl -s -m 20 -w '\ncode=%{http_code}\n' "http://127.0.0.3:$PORT/hello.txt" 2>&1)
like "$out" "code=403" "a denied server gets 403"
like "$out" "is denied" "... with a body that says so"
unlike "$out" "hello from the server" "... and nothing from it"
is "$(pending_ids | wc -l | tr -d ' ')" 0 "nothing was asked for it"

# Unlisted: asked outside, approved, connects.
jail sh -c "curl -s -p -m 40 http://127.0.0.4:$PORT/hello.txt; echo; echo session=\$SBX_JAIL_SESSION" \
	>"$T/j1.out" 2>&1 &
jp=$!
wait_for 20 has_pending
ok $? "an unlisted host from the jail is queued for a human"
json=$("$SBX" -C "$FOLDER" pending --json)
id=$(echo "$json" | jq -r '.[0].id')
is "$(echo "$json" | jq -r '.[0].tool + ": " + .[0].command')" "network: CONNECT 127.0.0.4:$PORT" \
	"sbx pending shows network: CONNECT host:port"
like "$(echo "$json" | jq -r '.[0].session')" "^[0-9a-f]{16}$" "... with the jail's session"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait "$jp"
like "$(cat "$T/j1.out")" "hello from the server" "approved outside: the curl in the jail gets its answer"
jsess=$(sed -n 's/^session=//p' "$T/j1.out")
is "$(echo "$json" | jq -r '.[0].session')" "$jsess" "the question named this jail's session"

# Unlisted and denied.
jail curl -s -m 40 -w '\ncode=%{http_code}\n' "http://127.0.0.5:$PORT/hello.txt" >"$T/j2.out" 2>&1 &
jp=$!
wait_for 20 has_pending
"$SBX" -C "$FOLDER" deny "$(pending_ids)" --reason "not this one" >/dev/null
wait "$jp"
like "$(cat "$T/j2.out")" "code=403" "denied outside: the curl in the jail gets 403"
like "$(cat "$T/j2.out")" "DENIED by [^ ]+: not this one" "... with the approver's reason"

# No way around the proxy: straight to the server, without it.
out=$(jail sh -c "curl --noproxy '*' -s -m 5 http://127.0.0.4:$PORT/hello.txt; echo rc=\$?" 2>&1)
unlike "$out" "hello from the server" "without the proxy the jail reaches nothing"

# The proxy's drop box is out of the jail's reach.
out=$(jail sh -c "echo '{}' >'$FOLDER/.sandbox/proxy/events/00000000000000cc.json' && echo WROTE" 2>&1)
unlike "$out" "WROTE" "the jail cannot write sbx-proxy's drop box"
ok $([ ! -e "$FOLDER/.sandbox/proxy/events/00000000000000cc.json" ]; echo $?) \
	"... checked outside"

# The records, with the jail's session.
wait_for 10 events_drained
recs=$(net_records)
is "$(echo "$recs" | jq -r "select(.session == \"$session\") | .data.verdict")" "allowed" \
	"the first jail's connection is recorded allowed, with its session"
is "$(echo "$recs" | jq -r "select(.data.host == \"127.0.0.3\") | .data.verdict")" "denied" \
	"the denied one is recorded"
is "$(echo "$recs" | jq -r "select(.request == \"$id\") | .data.verdict")" "approved" \
	"the approved one is recorded with its request"
"$SBX" -C "$FOLDER" audit verify >/dev/null 2>&1
ok $? "sbx audit verify holds"

done_testing
