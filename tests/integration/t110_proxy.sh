#!/usr/bin/env bash
# sbx-proxy on its own, as `sbx jail` runs it: the Unix socket, allowed
# and denied hosts (CONNECT and plain HTTP), hostile input, the
# connection limit, a policy that is not accepted, the audit records, and
# how it stops. Servers listen on 127.0.0.x only.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/proxylib.sh"

init_folder
PORT=$(free_port)
start_server 127.0.0.2 "$PORT"
ok $? "a server on 127.0.0.2 (allowed)"
start_server 127.0.0.3 "$PORT"
ok $? "a server on 127.0.0.3 (denied)"
set_network ".network.allowedDomains = [\"127.0.0.2:$PORT\"] |
	.network.deniedDomains = [\"127.0.0.3\"] | .network.ask_timeout_seconds = 2"
start_daemon
ok $? "sbxd serves the folder"

out=$("$PROXY" --help)
ok $? "sbx-proxy --help exits 0"
like "$out" "usage: sbx-proxy -C DIR --socket PATH --session ID" "--help prints the usage on stdout"
"$PROXY" -C "$FOLDER" --socket "$T/x.sock" 2>"$T/usage.err"
is "$?" 2 "a missing --session is a usage error (exit 2)"
"$PROXY" -C "$FOLDER" --socket "$T/x.sock" --session 'a b' 2>"$T/usage.err"
is "$?" 2 "a session id with a space is refused"
"$PROXY" -C "$T" --socket "$T/x.sock" --session s 2>"$T/nofolder.err"
is "$?" 1 "a folder without .sandbox/ does not start (exit 1)"
like "$(cat "$T/nofolder.err")" "sbx init" "... and says how to fix it"
: >"$T/taken.sock"
"$PROXY" -C "$FOLDER" --socket "$T/taken.sock" --session s 2>"$T/taken.err"
is "$?" 1 "an existing file at the socket path is never replaced"
like "$(cat "$T/taken.err")" "never replaces" "... with a clear message"

start_proxy p sess-110 --header-timeout 3
ok $? "sbx-proxy writes ready on --ready-fd once it listens"
P_PID=$PXPID
is "$(stat -c %a "$T/p.sock")" 600 "the socket is mode 0600"

# Allowed, through CONNECT and as plain HTTP.
out=$(pc p connect "127.0.0.2:$PORT" /hello.txt)
ok $? "CONNECT to an allowed host:port is answered 200"
like "$out" "hello from the server" "... and the tunnel reaches the server"
out=$(pc p get "http://127.0.0.2:$PORT/hello.txt")
ok $? "a plain-HTTP request to an allowed host is forwarded"
like "$out" "hello from the server" "... and the answer comes back"

# IPv6 loopback, listed as [::1]:PORT, when the machine has it.
if python3 -c "import socket; socket.socket(socket.AF_INET6).bind(('::1', 0))" 2>/dev/null; then
	(cd "$T/www" && exec python3 -m http.server --bind ::1 "$PORT") >/dev/null 2>&1 &
	SERVERS="$SERVERS $!"
	wait_for 10 can_connect ::1 "$PORT"
	set_network ".network.allowedDomains += [\"[::1]:$PORT\"]"
	like "$(pc p connect "[::1]:$PORT" /hello.txt)" "hello from the server" \
		"CONNECT [::1]:PORT, listed as [::1]:PORT, connects"
	like "$(pc p get "http://[::1]:$PORT/hello.txt")" "hello from the server" \
		"plain HTTP to http://[::1]:PORT/ too"
else
	echo "ok $((_n += 1)) - IPv6 loopback # SKIP no ::1 here"
fi

# Denied: at once, nothing asked.
out=$(pc p connect "127.0.0.3:$PORT" /hello.txt)
rc=$?
ok $((rc == 1 ? 0 : 1)) "CONNECT to a denied host is refused"
like "$out" "^HTTP/1.1 403" "... with 403"
like "$out" "is denied: .*127.0.0.3.*denied" "... and a body that says it is denied"
unlike "$out" "no human answered" "... at once, without waiting for anyone"
out=$(pc p get "http://127.0.0.3:$PORT/hello.txt")
like "$out" "^HTTP/1.1 403" "a plain-HTTP request to a denied host gets 403"
unlike "$out" "hello from the server" "... and never reaches it"
is "$(pending_ids | wc -l | tr -d ' ')" 0 "nothing was asked for the denied host"

# The same IP on another port is not what was listed.
out=$(pc p connect "127.0.0.2:1" /)
like "$out" "^HTTP/1.1 403" "the allowed IP on another port is not allowed"
like "$out" "no human answered within 2 s" "... it was asked, and nobody answered"

# Hostile input: the proxy answers and stays up.
raw() { printf "$1" | pc p raw; }
like "$(raw 'GARBAGE\r\n\r\n')" "^HTTP/1.1 400" "a line that is not HTTP gets 400"
like "$(raw '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n')" "^HTTP/1.1 400" "a TLS hello sent to the proxy gets 400"
like "$(raw "GET /hello.txt HTTP/1.1\r\nHost: 127.0.0.2:$PORT\r\n\r\n")" "^HTTP/1.1 400.*" "an origin-form request (not a proxy request) gets 400"
like "$(raw "GET https://127.0.0.2:$PORT/ HTTP/1.1\r\n\r\n")" "CONNECT" "an https:// URI is sent to CONNECT"
like "$(raw "GET http://127.0.0.2:$PORT/hello.txt HTTP/1.1\r\nHost: 127.0.0.3:$PORT\r\n\r\n")" "^HTTP/1.1 400.*" "a Host header that disagrees with the URI gets 400"
like "$(raw "CONNECT 127.2:$PORT HTTP/1.1\r\n\r\n")" "^HTTP/1.1 400" "a short-form IP (127.2) is refused, not resolved"
like "$(raw "CONNECT 2130706435:$PORT HTTP/1.1\r\n\r\n")" "^HTTP/1.1 400" "a decimal IP is refused"
like "$(raw "CONNECT 127.0.0.2 HTTP/1.1\r\n\r\n")" "^HTTP/1.1 400" "CONNECT without a port gets 400"
like "$(raw "CONNECT 127.0.0.2:99999 HTTP/1.1\r\n\r\n")" "^HTTP/1.1 400" "a port over 65535 gets 400"
like "$(raw "CONNECT user@127.0.0.2:$PORT HTTP/1.1\r\n\r\n")" "^HTTP/1.1 400" "user info in a CONNECT target gets 400"
like "$(raw "CONNECT 127.0.0.2:$PORT HTTP/1.1\r\nbad header\r\n\r\n")" "^HTTP/1.1 400" "a header line without a name gets 400"
like "$(raw "CONNECT 127.0.0.2:$PORT HTTP/1.1\r\nX: a\x01b\r\n\r\n")" "^HTTP/1.1 400" "a control character in a header gets 400"
like "$(raw "GET http://127.0.0.2:$PORT/hello.txt HTTP/1.1\r\nHost: 127.0.0.2:$PORT\r\nHost: 127.0.0.3:$PORT\r\n\r\n")" "^HTTP/1.1 400" "two Host headers get 400"
like "$(raw "GET http://127.0.0.2:$PORT/hello.txt HTTP/1.1\r\nX-A: b\r\n Host: 127.0.0.3\r\n\r\n")" "^HTTP/1.1 400" "a folded header line gets 400"
like "$(raw "CONNECT 127.0.0.2:$PORT HTTP/2.0\r\n\r\n")" "^HTTP/1.1 400" "HTTP/2.0 on the request line gets 400"
big=$(python3 -c "print('X-Pad: ' + 'a' * 20000)")
like "$(printf 'CONNECT 127.0.0.2:%s HTTP/1.1\r\n%s\r\n\r\n' "$PORT" "$big" | pc p raw)" "^HTTP/1.1 431" "a 20 KB head gets 431"
like "$(head -c 300000 /dev/urandom | pc p raw 2>&1)" "HTTP/1.1 (400|431)|Broken pipe|reset" "300 KB of random bytes are refused"
like "$(printf 'CONNECT 127.0.0.2:%s HT' "$PORT" | pc p raw 2>&1)" "^HTTP/1.1 408" \
	"a head that never ends gets 408 after --header-timeout"
check "sbx-proxy is alive after all of that" kill -0 "$P_PID"
out=$(pc p connect "127.0.0.2:$PORT" /hello.txt)
like "$out" "hello from the server" "... and still serves allowed hosts"

# The connection limit: 2 at once here; the third is told to retry.
start_proxy lim sess-lim --max-connections 2 --header-timeout 20
ok $? "a proxy with --max-connections 2"
mkfifo "$T/hold.in"
pc lim hold 2 <"$T/hold.in" >"$T/hold.out" &
hp=$!
exec 7>"$T/hold.in"
wait_for 10 grep -q "holding 2" "$T/hold.out"
sleep 0.3
out=$(pc lim connect "127.0.0.2:$PORT" /hello.txt)
like "$out" "^HTTP/1.1 503" "over the limit: 503"
like "$out" "too many connections" "... that says why"
exec 7>&-
wait "$hp"
wait_for 10 sh -c "python3 '$PROXYC' '$T/lim.sock' connect 127.0.0.2:$PORT /hello.txt >/dev/null"
ok $? "once the held connections close, connections are served again"

# A policy nobody accepted: every connection is refused, with the reason.
p="$FOLDER/.sandbox/policy.json"
cp "$p" "$T/policy.good"
jq '.network.allowedDomains += ["127.0.0.9"]' "$T/policy.good" >"$p"
out=$(pc p connect "127.0.0.2:$PORT" /hello.txt)
like "$out" "^HTTP/1.1 403" "after an unaccepted edit of policy.json even a listed host is refused"
like "$out" "policy accept" "... and the body says to accept the policy"
accept_policy
out=$(pc p connect "127.0.0.2:$PORT" /hello.txt)
like "$out" "hello from the server" "once accepted, the listed host connects again"

# Every connection left one record, written by sbxd.
wait_for 10 events_drained
ok $? "sbxd consumed every connection event"
# sbx-proxy drops a connection's event when the connection ends, and sbxd
# reads its box on the 5 s pass: wait until the records are in the log.
wait_for 15 sh -c "'$SBX' -C '$FOLDER' audit show --json 2>/dev/null | jq -e '[.[] |
	select(.event == \"network_connection\" and .data.verdict == \"allowed\" and
	.data.method == \"CONNECT\" and .data.host == \"127.0.0.2\")] | length > 0' >/dev/null"
wait_for 10 events_drained
recs=$(net_records)
n=$(echo "$recs" | grep -c . )
ok $(( n >= 25 ? 0 : 1 )) "one audit record per connection ($n)"
# sbxd records the events in the order it finds them, not as they came:
# pick the record of a connection to 127.0.0.2 among the allowed ones.
allowed=$(echo "$recs" | jq -c "select(.data.verdict == \"allowed\" and .data.method == \"CONNECT\"
	and .data.host == \"127.0.0.2\")" | head -1)
is "$(echo "$allowed" | jq -r .data.host)" "127.0.0.2" "an allowed record has the host"
is "$(echo "$allowed" | jq -r .data.port)" "$PORT" "... the port"
ok $(( $(echo "$allowed" | jq -r .data.bytes_down) > 20 ? 0 : 1 )) "... the bytes down"
ok $(( $(echo "$allowed" | jq -r .data.bytes_up) > 10 ? 0 : 1 )) "... the bytes up"
like "$(echo "$allowed" | jq -r .data.duration_ms)" '^[0-9]+$' "... the duration"
is "$(echo "$allowed" | jq -r .session)" "sess-110" "... and the session"
is "$(echo "$allowed" | jq -r .actor)" "proxy" "... from the proxy"
denied=$(echo "$recs" | jq -c 'select(.data.verdict == "denied")' | head -1)
is "$(echo "$denied" | jq -r .data.host)" "127.0.0.3" "a denied connection is recorded"
is "$(echo "$denied" | jq -r .data.bytes_down)" "0" "... with nothing relayed"
like "$(echo "$recs" | jq -r 'select(.data.verdict == "refused") | .data.reason' | sort -u)" "not an HTTP proxy request" "garbage is recorded as refused, with why"
like "$(echo "$recs" | jq -r 'select(.session == "sess-lim") | .data.reason')" "limit" "the connection over the limit is recorded"
like "$("$SBX" -C "$FOLDER" audit show)" "network_connection .*CONNECT 127.0.0.2:$PORT allowed, up" "sbx audit show says what a connection did"
"$SBX" -C "$FOLDER" audit verify >"$T/verify.out" 2>&1
ok $? "sbx audit verify: the chain holds with the proxy's records"

# Connection records come only from the proxy's own drop box (read-only in
# the jail): one dropped into the agent's queue/events is rejected.
printf '{"v":1,"kind":"network_connection","host":"forged.example","verdict":"allowed"}' \
	>"$FOLDER/.sandbox/queue/events/00000000000000ab.json"
wait_for 10 sh -c "ls '$FOLDER/.sandbox/rejected' | grep -q '00000000000000ab.json.why'"
ok $? "a connection record in the agent's drop box goes to rejected/"
like "$(cat "$FOLDER"/.sandbox/rejected/*00000000000000ab.json.why)" "only from sbx-proxy" \
	"... with the reason"
printf '{"v":1,"kind":"network_connection","host":"x","verdict":"allowed","evil":1}' \
	>"$FOLDER/.sandbox/proxy/events/00000000000000aa.json"
wait_for 10 sh -c "ls '$FOLDER/.sandbox/rejected' | grep -q 00000000000000aa"
ok $? "a proxy event with an unknown key goes to rejected/"
unlike "$(net_records | jq -r .data.host)" "forged.example" "no forged record is in the log"

# It stops on SIGTERM and removes its socket; a tunnel still open is
# closed and recorded; it dies with its parent.
mkfifo "$T/tun.in"
pc p tunnel "127.0.0.2:$PORT" <"$T/tun.in" >"$T/tun.out" &
tp=$!
exec 8>"$T/tun.in"
wait_for 10 grep -q "200" "$T/tun.out"
ok $? "a tunnel is open when the proxy is told to stop"
kill -TERM "$P_PID"
wait "$P_PID"
is "$?" 0 "SIGTERM: exit 0"
ok $([ ! -e "$T/p.sock" ]; echo $?) "... and the socket is gone"
exec 8>&-
wait "$tp"
wait_for 10 events_drained
like "$(net_records | jq -r 'select(.data.error != null) | .data.error')" "sbx-proxy stopped" \
	"the tunnel cut by the stop is recorded, and says so"
sh -c '"$1" -C "$2" --socket "$3" --session orphan & echo $! >"$4"; sleep 1' sh \
	"$PROXY" "$FOLDER" "$T/orphan.sock" "$T/orphan.pid"
opid=$(cat "$T/orphan.pid")
wait_for 10 sh -c "! kill -0 $opid 2>/dev/null"
ok $? "when its parent dies, sbx-proxy stops"
ok $([ ! -e "$T/orphan.sock" ]; echo $?) "... and removes its socket"

done_testing
