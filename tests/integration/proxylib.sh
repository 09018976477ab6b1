# proxylib.sh - helpers for the sbx-proxy tests (sourced after lib.sh).
#
# Servers are python3's http.server on 127.0.0.x only, serving $T/www;
# the client is tests/tools/proxyc.py on the proxy's Unix socket.
PROXY="$SBX_BIN/sbx-proxy"
PROXYC="$(cd "$(dirname "$0")/../tools" && pwd)/proxyc.py"
SERVERS=""
PROXIES=""

proxy_cleanup() {
	local p
	for p in $PROXIES $SERVERS; do
		kill "$p" 2>/dev/null
	done
	for p in $PROXIES $SERVERS; do
		wait "$p" 2>/dev/null
	done
}
trap 'proxy_cleanup; cleanup' EXIT

if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 is needed for the proxy tests"
	exit 0
fi

mkdir -p "$T/www"
echo "hello from the server" >"$T/www/hello.txt"

# A port that is free on 127.0.0.1 (and, in practice, on 127.0.0.x).
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

can_connect() {
	python3 -c "import socket,sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), 1)" "$1" "$2"
}

# start_server IP PORT: serves $T/www on IP:PORT.
start_server() {
	(cd "$T/www" && exec python3 -m http.server --bind "$1" "$2") >/dev/null 2>&1 &
	SERVERS="$SERVERS $!"
	wait_for 10 can_connect "$1" "$2"
}

# start_proxy NAME SESSION [ARGS...]: sbx-proxy on $T/NAME.sock; sets PXPID.
start_proxy() {
	local name=$1 session=$2
	shift 2
	rm -f "$T/$name.ready"
	"$PROXY" -C "$FOLDER" --socket "$T/$name.sock" --session "$session" \
		--ready-fd 3 "$@" 3>"$T/$name.ready" 2>>"$T/$name.log" &
	PXPID=$!
	PROXIES="$PROXIES $PXPID"
	wait_for 10 grep -qx ready "$T/$name.ready"
}

# pc NAME ARGS...: the test client on proxy NAME's socket.
pc() {
	local name=$1
	shift
	python3 "$PROXYC" "$T/$name.sock" "$@"
}

# set_network JQ-EXPR: edits the policy's "network" and accepts it.
set_network() {
	local p="$FOLDER/.sandbox/policy.json"
	jq "$1" "$p" >"$p.new" && mv "$p.new" "$p"
	accept_policy
}

# net_records: the audit log's network_connection records, one JSON a line.
net_records() {
	"$SBX" -C "$FOLDER" audit show --json 2>/dev/null |
		jq -c '.[] | select(.event == "network_connection")'
}

# events_drained: sbxd has recorded every connection event (sbx-proxy's
# drop box is read by sbxd's periodic pass, every 5 s).
events_drained() {
	[ -z "$(ls -A "$FOLDER/.sandbox/proxy/events" 2>/dev/null)" ]
}
