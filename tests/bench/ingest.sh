#!/usr/bin/env bash
# ingest.sh - sbxd's ingest rate through an inotify overflow: INGEST_N
# (default 20000) requests land in queue/new while sbxd runs, more than
# the inotify queue holds (fs.inotify.max_queued_events); prints the rate
# at which sbxd recorded them, and the rate for a second burst on top of
# the first (a table that already holds them). A third burst lands while
# sbxd is stopped (SIGSTOP), so the inotify queue overflows for certain
# when INGEST_N exceeds fs.inotify.max_queued_events, and sbxd recovers by
# rescanning; a real hook call made right after the burst reports how long
# it waited for its answer.
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
# A pending cap above the bursts, so the hook in the middle is not refused
# by its own cap and its request goes through sbxd with the burst.
jq '.escalate = ["Bash(true:*)"] | .limits.max_pending = 100000' \
	"$F/.sandbox/policy.json" >"$T/p" && mv "$T/p" "$F/.sandbox/policy.json"
"$SBX_BIN/sbx" -C "$F" policy accept >/dev/null
"$SBX_BIN/sbxd" "$F" 2>"$T/sbxd.log" &
DPID=$!
for _ in $(seq 100); do grep -q serving "$T/sbxd.log" && break; sleep 0.05; done
count() { sqlite3 "$F/.sandbox/state.db" "SELECT count(*) FROM requests"; }
jq -cn --arg cwd "$F" '{session_id: "bench", transcript_path: "/dev/null", cwd: $cwd,
  permission_mode: "default", hook_event_name: "PreToolUse", tool_name: "Bash",
  tool_input: {command: "true # the hook in the middle", description: "bench"},
  tool_use_id: "toolu_bench"}' >"$T/hook.json"
burst() {	# burst PREFIX TOTAL-AFTER [stop]
	local t0 t1 n h0
	"$SBX_BENCH_BIN/reqgen" "$F" "$N" "$1"
	t0=$(date +%s.%N)
	[ "${3:-}" = stop ] && kill -STOP $DPID
	"$SBX_BENCH_BIN/reqgen" --release "$F" >/dev/null
	if [ "${3:-}" = stop ]; then
		kill -CONT $DPID
		h0=$(date +%s%N)
		(cd "$F" && "$SBX_BIN/sbx-hook" pre <"$T/hook.json" >"$T/hook.out"
		 echo $(( ($(date +%s%N) - h0) / 1000000 )) >"$T/hook.ms")
	fi
	while [ "$(count)" -lt "$2" ]; do sleep 0.1; done
	t1=$(date +%s.%N)
	n=$(grep -c "inotify queue overflow" "$T/sbxd.log" || true)
	echo "ingest: $N requests in $(echo "$t1 - $t0" | bc) s: $(echo "$N / ($t1 - $t0)" | bc) requests/s" \
		"(into a table of $(( $2 - N )); inotify overflows so far: $n)"
	if [ "${3:-}" = stop ]; then
		echo "  a hook called right after the burst was answered in $(cat "$T/hook.ms") ms:" \
		    "$(jq -r .hookSpecificOutput.permissionDecisionReason "$T/hook.out" | cut -c1-100)"
	fi
}
echo "sbxd ingest through an inotify overflow, $(nproc) cores, $(sysctl -n fs.inotify.max_queued_events) queued events max"
burst a "$N"
burst b "$((2 * N))"
burst c "$((3 * N))" stop
