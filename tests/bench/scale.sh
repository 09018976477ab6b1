#!/usr/bin/env bash
# scale.sh - the scale benchmark (issue 16), part of `make bench`, alone
# with `make bench-scale`. In a temp dir:
#  1. real escalation round trips (hook -> queue -> sbxd with a remembered
#     rule -> result) at 1k, 10k and 100k requests of history, p50/p90/p99
#     next to a measured floor (tests/bench/floor: two renames, an inotify
#     wake each way, `sh -c true`, five fsyncs). The history between the
#     levels is pre-filled by tests/bench/histfill, which clones the first
#     real request (rows, files and audit records, through the real audit
#     writer) while sbxd is stopped; the measured round trips are real.
#     The first round trip after each sbxd start is timed on its own
#     ("first round trip after a start": a folder left idle is opened at
#     its first event), not among the measured ones.
#  2. `sbx audit verify` (whole process, wall time and peak RSS) on that
#     folder's log, next to `b2sum -l 256` over the same segments; and
#     `sbx audit show --request ID` at 100k.
#  3. `sbxd --all` with 1, 100 and 1,000 recorded folders: time until it
#     serves them all, RSS, CPU used in SCALE_IDLE seconds of idleness.
# SCALE_N sets the measured round trips per level (default 300),
# SCALE_LEVELS the history levels (default "1000 10000 100000"),
# SCALE_FOLDERS the folder counts (default "1 100 1000"), SCALE_RUNS the
# runs per folder count (default 3: each is printed, with the load
# average), SCALE_ONLY=folders only part 3.
# SCALE_BEFORE_BIN=DIR also runs, at each level and on the same folder,
# the round trips of another build's sbxd and sbx-hook (the code before a
# change), right after this build's: a before/after under the same load.
# SCALE_TURNS=K (with SCALE_BEFORE_BIN) splits each build's N round trips
# into K turns that alternate the two builds, each turn with a fresh
# sbxd, the first build of a turn alternating too: whichever build runs
# first after the floor and a start pays for it, so one block each
# (K=1, the default) favours the second.
set -eu
: "${SBX_BIN:?}" "${SBX_BENCH_BIN:?}"
N=${SCALE_N:-300}
LEVELS=${SCALE_LEVELS:-"1000 10000 100000"}
FOLDERS=${SCALE_FOLDERS:-"1 100 1000"}
IDLE=${SCALE_IDLE:-5}
TURNS=${SCALE_TURNS:-1}
RUNS=${SCALE_RUNS:-3}
ONLY=${SCALE_ONLY:-}
B=$SBX_BENCH_BIN
T=$(mktemp -d "${TMPDIR:-/tmp}/sbx-scale.XXXXXX")
T=$(cd "$T" && pwd -P)
export SBX_CONFIG_DIR="$T/config"
F="$T/proj"
DPID="" FPID=""
trap '[ -n "$DPID" ] && kill $DPID 2>/dev/null; [ -n "$FPID" ] && kill $FPID 2>/dev/null;
	wait 2>/dev/null; rm -rf "$T"' EXIT
mkdir -p "$F"
"$SBX_BIN/sbx" init "$F" >/dev/null

start_sbxd() {	# start_sbxd LOG ARGS...: waits for WANT "serving" lines (or 3 s without one
	# more, once one came; 120 s for the first)
	local log=$1 want=${WANT:-1} n last=0 still=0 t0
	shift
	: >"$log"
	t0=$(date +%s)
	"${SBXD:-$SBX_BIN/sbxd}" "$@" 2>"$log" &
	DPID=$!
	while [ $still -lt 300 ] && [ $(($(date +%s) - t0)) -lt 120 ]; do
		n=$(grep -c serving "$log" || true)
		[ "$n" -ge "$want" ] && { T_LAST=$(date +%s%N); return 0; }
		kill -0 $DPID 2>/dev/null || { echo "scale: sbxd exited: $(tail -1 "$log")" >&2; return 1; }
		if [ "$n" = "$last" ]; then
			[ "$n" -gt 0 ] && still=$((still + 1))
		else
			still=0 last=$n T_LAST=$(date +%s%N)
		fi
		sleep 0.01
	done
	echo "scale: sbxd serves $n of $want folders" >&2
	return 1
}
stop_sbxd() { kill $DPID 2>/dev/null; wait $DPID 2>/dev/null || true; DPID=""; }
pct() {	# pct FILE P: the P-th percentile of sorted times
	local n
	n=$(wc -l <"$1")
	awk -v p="$2" -v n="$n" 'NR == (int(n * p / 100) < n ? int(n * p / 100) : n - 1) + 1' "$1"
}
# p50 p90 p99 of a spawn run, and each as a ratio to the floor's p50
line() {	# line LABEL TIMES
	local a b c
	a=$(pct "$2" 50) b=$(pct "$2" 90) c=$(pct "$2" 99)
	printf '%-34s %8s %8s %8s   %5.1fx %5.1fx %5.1fx\n' "$1" "$a" "$b" "$c" \
	    "$(echo "$a / $FLOOR" | bc -l)" "$(echo "$b / $FLOOR" | bc -l)" \
	    "$(echo "$c / $FLOOR" | bc -l)"
}
# warm BIN OUT: the first round trip after sbxd's start, outside the
# measured ones (a folder left idle is opened at its first event: a cost
# once per start, which would otherwise land in the tail of whichever
# build restarts more often); its ms appended to OUT
warm() {
	local t0 t1
	t0=$(date +%s%N)
	(cd "$F" && "$1/sbx-hook" pre <"$T/esc.json" >/dev/null)
	t1=$(date +%s%N)
	echo "scale=3; ($t1 - $t0) / 1000000" | bc >>"$2"
}
hist() { sqlite3 "$F/.sandbox/state.db" "select count(*) from requests"; }

echo "sbx scale benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $N round trips per level"
# The filesystem under the temp dir: on ext4 without a journal every
# create walks its block group's free inodes and skips those deleted in
# the last minute (six while their inode table block is dirty; kernel
# fs/ext4/ialloc.c, recently_deleted), so a create costs 10 us or 1 ms
# depending on what was deleted nearby (a previous run's clean-up too).
fs=$(findmnt -no FSTYPE -T "$T" 2>/dev/null || true)
dev=$(findmnt -no SOURCE -T "$T" 2>/dev/null || true)
if [ "$fs" = ext4 ] && [ "$(cat "/sys/fs/ext4/${dev##*/}/journal_task" 2>/dev/null)" = "<none>" ]; then
	fs="$fs ($dev), no journal: creates skip inodes deleted in the last minutes"
fi
echo "temp dir on ${fs:-an unknown filesystem}"
echo
if [ "$ONLY" != folders ]; then
# --- 1. round trips against history
# The floor is measured again before each level: the ratio compares
# figures taken under the same load.
mkdir "$T/floor"
floor() {	# floor TIMES: N floor round trips; sets FLOOR (p50)
	"$B/floor" serve "$T/floor" &
	FPID=$!
	sleep 0.2
	SPAWN_TIMES="$1" "$B/spawn" floor "$N" /dev/null -- "$B/floor" call "$T/floor" >/dev/null
	kill $FPID; wait $FPID 2>/dev/null || true; FPID=""
	FLOOR=$(pct "$1" 50)
}

jq -cn --arg c true --arg cwd "$F" '{session_id: "bench", transcript_path: "/dev/null",
  cwd: $cwd, permission_mode: "default", hook_event_name: "PreToolUse",
  tool_name: "Bash", tool_input: {command: $c, description: "bench"},
  tool_use_id: "toolu_bench"}' >"$T/esc.json"
jq '.escalate = ["Bash(true)"] | .limits.hook_wait_seconds = 30 | .limits.max_per_minute = 100000' \
	"$F/.sandbox/policy.json" >"$T/p" && mv "$T/p" "$F/.sandbox/policy.json"
"$SBX_BIN/sbx" -C "$F" policy accept >/dev/null
start_sbxd "$T/sbxd.log" "$F"
(cd "$F" && "$SBX_BIN/sbx-hook" pre <"$T/esc.json" >/dev/null) &
HP=$!
for _ in $(seq 200); do
	id=$("$SBX_BIN/sbx" -C "$F" pending --json | jq -r '.[0].id // empty')
	[ -n "$id" ] && break
	sleep 0.05
done
"$SBX_BIN/sbx" -C "$F" approve "$id" --remember >/dev/null
wait $HP || true
# The template must be delivered (its receipt swept into done/) to clone.
for _ in $(seq 200); do [ -f "$F/.sandbox/done/$id.json" ] && break; sleep 0.05; done
[ -f "$F/.sandbox/done/$id.json" ] || { echo "scale: the first request was not delivered" >&2; exit 1; }
stop_sbxd

printf '%-34s %8s %8s %8s   %s\n' "round trip, remembered (ms)" p50 p90 p99 "ratio to the floor's p50"
for lvl in $LEVELS; do
	have=$(hist)
	if [ "$have" -lt "$lvl" ]; then
		t0=$(date +%s.%N)
		"$B/histfill" "$F" "$SBX_CONFIG_DIR" "$id" $((lvl - have))
		# Written back before the level is measured: otherwise the first
		# round trips' fsyncs wait for the pre-fill's hundreds of MB.
		sync -f "$F/.sandbox"
		fill=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
	fi
	before=$(hist)
	floor "$T/t.floor.$lvl"
	printf '%-34s %8s %8s %8s\n' "floor (renames, inotify, sh)" "$FLOOR" \
	    "$(pct "$T/t.floor.$lvl" 90)" "$(pct "$T/t.floor.$lvl" 99)"
	start_sbxd "$T/sbxd.log" "$F"
	(cd "$F" && "$SBX_BIN/sbx-hook" pre <"$T/esc.json") | jq -r .hookSpecificOutput.permissionDecisionReason | tee "$T/reason" |
		head -1 | grep -q "remembered approval" ||
		{ echo "scale: the round trips did not go through a remembered approval:" "$(cat "$T/reason")" >&2; exit 1; }
	stop_sbxd
	: >"$T/first.t.$lvl"
	: >"$T/first.b.$lvl"
	if [ -z "${SCALE_BEFORE_BIN:-}" ]; then
		start_sbxd "$T/sbxd.log" "$F"
		warm "$SBX_BIN" "$T/first.t.$lvl"
		(cd "$F" && SPAWN_TIMES="$T/t.$lvl" "$B/spawn" x "$N" "$T/esc.json" -- \
		    "$SBX_BIN/sbx-hook" pre >/dev/null)
		stop_sbxd
	else
		: >"$T/t.$lvl"
		: >"$T/b.$lvl"
		for turn in $(seq "$TURNS"); do
			# n: this turn's share of N (the first turns take the rest)
			n=$(( N / TURNS + (turn <= N % TURNS) ))
			for which in $( [ $((turn % 2)) = 1 ] && echo "t b" || echo "b t"); do
				bin=$SBX_BIN
				[ "$which" = b ] && bin=$SCALE_BEFORE_BIN
				SBXD="$bin/sbxd" start_sbxd "$T/sbxd.log" "$F"
				warm "$bin" "$T/first.$which.$lvl"
				(cd "$F" && SPAWN_TIMES="$T/turn" "$B/spawn" x "$n" "$T/esc.json" -- \
				    "$bin/sbx-hook" pre >/dev/null)
				stop_sbxd
				cat "$T/turn" >>"$T/$which.$lvl"
			done
		done
		sort -n -o "$T/t.$lvl" "$T/t.$lvl"
		sort -n -o "$T/b.$lvl" "$T/b.$lvl"
	fi
	line "history $before requests" "$T/t.$lvl"
	[ -n "${SCALE_BEFORE_BIN:-}" ] && line "  the same, build before" "$T/b.$lvl"
	sort -n -o "$T/first.t.$lvl" "$T/first.t.$lvl"
	sort -n -o "$T/first.b.$lvl" "$T/first.b.$lvl"
	printf '%-34s %8s ms%s\n' "  first round trip after a start" "$(pct "$T/first.t.$lvl" 50)" \
	    "$( [ -s "$T/first.b.$lvl" ] && echo "; build before $(pct "$T/first.b.$lvl" 50) ms")"
	echo "  (pre-filled in ${fill:-0} s; results/ holds $(find "$F/.sandbox/results" -type f | wc -l) files,"\
	    "$(du -sm "$F/.sandbox/results" | cut -f1) MB; done/ $(du -sm "$F/.sandbox/done" | cut -f1) MB)"
done

# --- 2. the audit log at this size
echo
segs=$(ls "$F"/.sandbox/audit*.jsonl | sort)
bytes=$(cat $segs | wc -c)
mb=$(echo "$bytes / 1000000" | bc -l)
timed() {	# timed OUT CMD...: wall seconds (ns resolution), peak RSS KB, CPU s into OUT
	local out=$1 t0 t1
	shift
	t0=$(date +%s%N)
	/usr/bin/time -f "%M %U %S" -o "$out.rss" "$@" || return 1
	t1=$(date +%s%N)
	echo "$(echo "($t1 - $t0) / 1000000000" | bc -l) $(awk '{print $1, $2 + $3}' "$out.rss")" >"$out"
}
timed "$T/time.b2" b2sum -l 256 $segs >/dev/null
timed "$T/time.v" "$SBX_BIN/sbx" -C "$F" audit verify >"$T/verify.out" ||
	{ cat "$T/verify.out"; echo "scale: the audit log does not verify" >&2; exit 1; }
read -r vb rb cb <"$T/time.b2"
read -r vv rv cv <"$T/time.v"
printf 'audit log: %.0f MB in %d segments, %s records\n' "$mb" "$(echo $segs | wc -w)" \
    "$(sed -n 's/^audit log OK: \([0-9]*\) records.*/\1/p' "$T/verify.out")"
printf '%-34s %8.1f MB/s  peak RSS %6d KB  CPU %.2f s\n' "b2sum -l 256 (whole process)" \
    "$(echo "$mb / $vb" | bc -l)" "$rb" "$cb"
printf '%-34s %8.1f MB/s  peak RSS %6d KB  CPU %.2f s  (%.0f%% of b2sum; by CPU %.0f%%)\n' \
    "sbx audit verify" "$(echo "$mb / $vv" | bc -l)" "$rv" "$cv" "$(echo "100 * $vb / $vv" | bc -l)" \
    "$(echo "if ($cv > 0) 100 * $cb / $cv else 0" | bc -l)"
timed "$T/time.s" "$SBX_BIN/sbx" -C "$F" audit show --request "$id" >"$T/show.out"
read -r vs rs _ <"$T/time.s"
printf '%-34s %8.1f ms    peak RSS %6d KB  (%d records)\n' "sbx audit show --request ID" \
    "$(echo "$vs * 1000" | bc -l)" "$rs" "$(wc -l <"$T/show.out")"

fi   # parts 1 and 2

# --- 3. many folders
echo
printf '%-10s %8s %8s %10s %12s   %s\n' folders served "start s" "RSS MB" "idle CPU ms" \
    "load average (1 5 15 min)"
for nf in $FOLDERS; do
	C="$T/mf$nf/config"
	mkdir -p "$C"
	for k in $(seq "$nf"); do
		mkdir -p "$T/mf$nf/f$k"
		SBX_CONFIG_DIR="$C" "$SBX_BIN/sbx" init "$T/mf$nf/f$k" >/dev/null
	done
	for run in $(seq "$RUNS"); do
	t0=$(date +%s%N)
	WANT=$nf start_sbxd "$T/mf$nf.log" -c "$C" --all || true
	t1=$T_LAST      # the last folder's "serving" line
	served=$(grep -c serving "$T/mf$nf.log" || true)
	if kill -0 "$DPID" 2>/dev/null; then
		sleep 1
		rss=$(awk '/VmRSS/ {print $2}' /proc/$DPID/status)
		c0=$(awk '{print $14 + $15}' /proc/$DPID/stat)
		sleep "$IDLE"
		c1=$(awk '{print $14 + $15}' /proc/$DPID/stat)
		printf '%-10s %8s %8.2f %10.1f %12d   %s   (in %d s)\n' "$nf" "$served" \
		    "$(echo "($t1 - $t0) / 1000000000" | bc -l)" "$(echo "$rss / 1024" | bc -l)" \
		    $(((c1 - c0) * 1000 / $(getconf CLK_TCK))) "$(cut -d' ' -f1-3 /proc/loadavg)" "$IDLE"
	else
		printf '%-10s %8s   sbxd exited: %s\n' "$nf" "$served" "$(tail -1 "$T/mf$nf.log")"
	fi
	stop_sbxd
	done
done
