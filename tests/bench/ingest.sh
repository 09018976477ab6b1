#!/usr/bin/env bash
# ingest.sh - sbxd's ingest rate through an inotify overflow: INGEST_N
# (default 20000) requests land in queue/new while sbxd runs, more than
# the inotify queue holds (fs.inotify.max_queued_events); prints the rate
# at which sbxd recorded them, and the rate for a second burst on top of
# the first (a table that already holds them).
set -eu
: "${SBX_BIN:?}" "${SBX_BENCH_BIN:?}"
N=${INGEST_N:-20000}
T=$(mktemp -d "${TMPDIR:-/tmp}/sbx-ingest.XXXXXX")
T=$(cd "$T" && pwd -P)
export SBX_CONFIG_DIR="$T/config"
F="$T/proj"
DPID=""
trap '[ -n "$DPID" ] && kill $DPID 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
mkdir -p "$F"
"$SBX_BIN/sbx" init "$F" >/dev/null
jq '.escalate = ["Bash(true:*)"]' \
	"$F/.sandbox/policy.json" >"$T/p" && mv "$T/p" "$F/.sandbox/policy.json"
"$SBX_BIN/sbx" -C "$F" policy accept >/dev/null
"$SBX_BIN/sbxd" "$F" 2>"$T/sbxd.log" &
DPID=$!
for _ in $(seq 100); do grep -q serving "$T/sbxd.log" && break; sleep 0.05; done
count() { sqlite3 "$F/.sandbox/state.db" "SELECT count(*) FROM requests"; }
burst() {	# burst PREFIX TOTAL-AFTER
	local t0 t1 n
	"$SBX_BENCH_BIN/reqgen" "$F" "$N" "$1"
	t0=$(date +%s.%N)
	"$SBX_BENCH_BIN/reqgen" --release "$F" >/dev/null
	while [ "$(count)" -lt "$2" ]; do sleep 0.1; done
	t1=$(date +%s.%N)
	n=$(grep -c "inotify queue overflow" "$T/sbxd.log" || true)
	echo "ingest: $N requests in $(echo "$t1 - $t0" | bc) s: $(echo "$N / ($t1 - $t0)" | bc) requests/s" \
		"(into a table of $(( $2 - N )); inotify overflows so far: $n)"
}
echo "sbxd ingest through an inotify overflow, $(nproc) cores, $(sysctl -n fs.inotify.max_queued_events) queued events max"
burst a "$N"
burst b "$((2 * N))"
