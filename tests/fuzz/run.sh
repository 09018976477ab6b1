#!/bin/sh
# tests/fuzz/run.sh SECONDS [NAME...] - runs each libFuzzer target in
# $FUZZ_DIR (default build/fuzz) for SECONDS on a copy of its seeds
# (tests/fuzz/seeds/NAME; the repository's seeds never grow) with its
# dictionary (tests/fuzz/dict/NAME.dict, or the family's). Fails on any
# crash, leak, timeout or OOM and prints the reproducer. Prints TAP:
# "ok N - NAME ..." per target, then "N passed, N failed".
#   FUZZ_KEEP=DIR   keep the working corpora and logs in DIR
set -u
secs=${1:-20}
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd)
dir=${FUZZ_DIR:-build/fuzz}
names=$*
if [ -z "$names" ]; then
	for f in "$dir"/fuzz_*; do
		[ -x "$f" ] && [ -f "$f" ] && names="$names ${f##*/fuzz_}"
	done
fi
work=${FUZZ_KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/sbx-fuzz-run.XXXXXX")}
mkdir -p "$work"
set -- $names
echo "1..$#"
pass=0 fail=0 i=0
for n in $names; do
	i=$((i + 1))
	bin=$dir/fuzz_$n
	corp=$work/$n/corpus
	mkdir -p "$corp" "$work/$n/artifacts"
	seeds=$n
	[ "$n" = bash ] && seeds=shell          # the analyser reads command lines too
	[ -d "$here/seeds/$seeds" ] && cp "$here/seeds/$seeds"/* "$corp"/ 2>/dev/null
	dict=
	for d in "$here/dict/$n.dict" "$here/dict/$seeds.dict" "$here/dict/${n%%_*}.dict"; do
		[ -f "$d" ] && { dict="-dict=$d"; break; }
	done
	if [ ! -x "$bin" ]; then
		echo "not ok $i - $n: $bin is not built (make fuzz)"
		fail=$((fail + 1))
		continue
	fi
	log=$work/$n/log
	# a target's temp dir: left behind only by a crash, then kept here
	mkdir -p "$work/$n/tmp"
	# -timeout: one input; -rss_limit_mb: the whole process; leaks are
	# found by LeakSanitizer at the end of each input that allocated.
	SBX_FUZZ_TMP=$work/$n/tmp "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
	    -print_final_stats=1 -artifact_prefix="$work/$n/artifacts/" $dict \
	    "$corp" >"$log" 2>&1
	rc=$?
	stats=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 |
	    sed -E 's/^#([0-9]+).*cov: ([0-9]+) ft: ([0-9]+).*/\1 runs, cov \2, ft \3/')
	repro=$(ls "$work/$n/artifacts" 2>/dev/null | head -1)
	if [ $rc -eq 0 ] && [ -z "$repro" ]; then
		echo "ok $i - $n: ${secs}s, ${stats:-no stats}"
		pass=$((pass + 1))
	else
		kind=$(grep -m1 -oE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer)[^(]*' "$log")
		echo "not ok $i - $n: exit $rc, ${kind:-see log}"
		grep -m1 -E 'runtime error|^SUMMARY' "$log" | sed 's/^/#   /'
		[ -n "$repro" ] && echo "#   reproducer: $work/$n/artifacts/$repro" &&
		    echo "#   replay: $bin $work/$n/artifacts/$repro"
		echo "#   log: $log"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ -z "${FUZZ_KEEP:-}" ] && [ $fail -eq 0 ] && rm -rf "$work"
[ $fail -eq 0 ]
