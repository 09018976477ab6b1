#!/usr/bin/env bash
# The jail's network: its own namespace with no route out; HTTP(S) goes
# through the proxy's Unix socket, forwarded from 127.0.0.1 inside by
# sbx-jail-init. The proxy here is a stand-in (tests/tools/fake-proxy.py)
# that speaks the contract, so this tests the jail's side only.
. "$(dirname "$0")/lib.sh"

command -v bwrap >/dev/null || { echo "1..0 # SKIP bubblewrap is not installed"; exit 0; }
command -v python3 >/dev/null && command -v curl >/dev/null ||
	{ echo "1..0 # SKIP python3 and curl are needed"; exit 0; }

export HOME="$T/home"
mkdir -p "$HOME" "$T/bin"
cp "$SBX_BIN/sbx" "$SBX_BIN/sbx-jail-init" "$SBX_BIN/sbx-hook" "$T/bin/"
cp "$(dirname "$0")/../tools/fake-proxy.py" "$T/bin/sbx-proxy"
export FAKE_PROXY_LOG="$T/proxy.log"
J="$T/bin/sbx"
init_folder
start_daemon

out=$("$J" -C "$FOLDER" jail -- sh -c 'echo "proxy=$HTTP_PROXY https=$HTTPS_PROXY all=$ALL_PROXY lc=$http_proxy,$https_proxy,$all_proxy no=$NO_PROXY,$no_proxy session=$SBX_JAIL_SESSION"' 2>&1)
like "$out" "proxy=http://127\\.0\\.0\\.1:[0-9]+ https=http://127\\.0\\.0\\.1:[0-9]+ all=http://127\\.0\\.0\\.1:[0-9]+" \
	"HTTP_PROXY, HTTPS_PROXY and ALL_PROXY point at the forwarder"
like "$out" "lc=http://127[^,]*,http://127[^,]*,http://127" "and their lower-case forms"
like "$out" "no=localhost,127\\.0\\.0\\.1,::1,localhost,127\\.0\\.0\\.1,::1 " \
	"NO_PROXY and no_proxy: loopback stays in the jail by default"
session=$(echo "$out" | sed -n 's/.*session=\([0-9a-f]*\).*/\1/p')
like "$session" "^[0-9a-f]{16}$" "the jail has a session id"
grep -q "started $session" "$T/proxy.log" && grep -q "stopped $session" "$T/proxy.log"
ok $? "sbx jail started the proxy with that session, and stopped it at the end"

out=$("$J" -C "$FOLDER" jail -- curl -s -m 10 http://example.com/path 2>&1)
like "$out" "fake-proxy [0-9a-f]{16} saw: GET http://example.com/path" \
	"a request from the jail reaches the proxy through its Unix socket"
grep -q "GET http://example.com/path" "$T/proxy.log"
ok $? "the proxy logged it (outside)"

out=$("$J" -C "$FOLDER" jail -- sh -c 'curl --noproxy "*" -s -m 3 http://192.0.2.1/; echo "rc=$?"; curl --noproxy "*" -s -m 3 http://127.0.0.1:9/ ; echo "rc=$?"' 2>&1)
unlike "$out" "rc=0" "without the proxy nothing connects: the jail has no route out"

# The agent's own servers on loopback stay reachable directly.
out=$("$J" -C "$FOLDER" jail -- sh -c 'cd /tmp && echo hello-inside >f && python3 -m http.server 8765 --bind 127.0.0.1 >/dev/null 2>&1 & i=0; while [ $i -lt 200 ]; do curl -s -m 2 http://127.0.0.1:8765/f && break; sleep 0.1; i=$((i + 1)); done' 2>&1)
like "$out" "hello-inside" "a server the agent starts on 127.0.0.1 is reached directly (NO_PROXY)"

# A loopback host the policy lists goes through the proxy instead.
p="$FOLDER/.sandbox/policy.json"
jq '.network.allowedDomains = ["localhost"]' "$p" >"$p.new" && mv "$p.new" "$p"
accept_policy
out=$("$J" -C "$FOLDER" jail -- sh -c 'echo "no=$NO_PROXY"; curl -s -m 10 http://localhost:9999/listed' 2>&1)
like "$out" "no=127\\.0\\.0\\.1,::1" "a loopback host in allowedDomains is taken out of NO_PROXY"
like "$out" "saw: GET http://localhost:9999/listed" "and goes through the proxy to the host"

# Many connections at once, and bulk data, through the forwarder.
out=$("$J" -C "$FOLDER" jail -- bash -c 'for i in $(seq 1 20); do curl -s -m 20 http://h$i.example/ & done; wait' 2>&1)
is "$(echo "$out" | grep -c 'saw: GET http://h[0-9]*.example/')" 20 "20 parallel connections all get through"
out=$("$J" -C "$FOLDER" jail -- sh -c 'curl -s -m 60 http://bulk.example/bulk/20000000 | wc -c' 2>&1)
is "$(echo "$out" | tr -d ' ')" 20000000 "20 MB pass through the forwarder intact"

# A proxy that cannot start: an error before COMMAND, with the fix.
FAKE_PROXY_FAIL=1 "$J" -C "$FOLDER" jail -- touch "$FOLDER/ran" >"$T/fail.out" 2>&1
is "$?" 125 "a proxy that does not start is exit 125"
[ ! -e "$FOLDER/ran" ]
ok $? "and COMMAND did not run"
like "$(cat "$T/fail.out")" "proxy .* did not start.*--offline" "the message says what to do"
done_testing
