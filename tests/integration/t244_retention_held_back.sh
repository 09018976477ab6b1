#!/usr/bin/env bash
# Retention with requests held back: a delivered request whose file is
# back in pending/ (an agent outside the jail planted it there) is kept,
# but it neither counts as freed nor blocks the others, so the size cap
# (limits.keep_results_mb) is met by pruning the next oldest; and sbxd
# does not re-run retention every second on what it cannot prune: after
# a pass with nothing it may prune it waits (SBX_PRUNE_CAP_STUCK, 60 s),
# as strace on sbxd shows. The copy put back into pending/ is moved aside
# at sbxd's next look there, never filed over done/ a second time.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip_all "strace is not installed"

SB="$FOLDER/.sandbox"
init_folder
setup_task
set_limits '{"hook_wait_seconds": 20, "keep_results_days": 30, "keep_results_mb": 1}'
start_daemon
in_done() { [ -f "$SB/done/$1.json" ]; }
deliver() {	# deliver NAME: ./task.sh big 400000 NAME, approved and delivered
	hook_bash "./task.sh big 400000 $1" >"$T/$1.out" &
	local h=$! id
	wait_for 10 has_pending || return 1
	id=$(pending_ids)
	"$SBX" -C "$FOLDER" approve "$id" >/dev/null
	wait "$h"
	wait_for 20 in_done "$id" || return 1
	echo "$id"
}
kept() { [ -f "$SB/results/$1.stdout" ]; }
hold() { cp "$SB/done/$1.json" "$SB/pending/$1.json"; }
passes() {	# passes SECONDS: retention passes of sbxd in that time (strace)
	rm -f "$T/st"
	strace -qq -o "$T/st" -e trace=openat -p "$DPID" &
	local sp=$!
	wait_traced "$sp" "$DPID" || skip_all "strace cannot attach to sbxd here"
	sleep "$1"
	kill "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	grep -c 'policy.json"' "$T/st"
}
set_limits '{"keep_results_mb": 1024}'
A=$(deliver a)
ok $? "A is delivered (400 kB)"
B=$(deliver b)
ok $? "B is delivered (400 kB)"
C=$(deliver c)
ok $? "C is delivered (400 kB): 1.2 MB kept, under a cap of 1 GiB"

# 1. All three held back, then the cap lowered to 1 MiB: over it with
# nothing prunable. One pass, then none for the 60 s it waits.
hold "$A" && hold "$B" && hold "$C"
n0=$(grep -c policy_loaded "$SB/audit.jsonl")
set_limits '{"keep_results_mb": 1}'
# sbxd sees the new acceptance and runs retention with the new cap
wait_for 10 bash -c "[ \$(grep -c policy_loaded '$SB/audit.jsonl') -gt $n0 ]"
ok $? "sbxd runs retention with the new cap"
sleep 2
is "$(passes 5)" 0 "over the cap with only held-back output: no retention pass for 5 s (none every second)"
kept "$A" && kept "$B" && kept "$C"
ok $? "held-back output is kept"

# 2. B and C no longer held back; A still is. D's delivery brings it to
# 1.6 MB: B and C, the oldest not held back, are pruned, and the cap is
# met with A kept.
rm "$SB/pending/$B.json" "$SB/pending/$C.json"
D=$(deliver d)
ok $? "D is delivered: 1.6 MB, over the cap"
wait_for 10 bash -c "! test -f '$SB/results/$C.stdout'"
ok $? "C is pruned ..."
! kept "$B"
ok $? "... and B: the cap is met without counting A as freed"
kept "$A"
ok $? "A, held back, is kept"
kept "$D"
ok $? "D is kept (0.8 MB with A)"
like "$("$SBX" -C "$FOLDER" show "$B")" "output +pruned on .*keep_results_mb" \
	"sbx show says B's output was pruned by the size cap"
sleep 2
is "$(passes 4)" 0 "under the cap: no further retention pass"

# 3. At sbxd's next look at pending/ (its start), the copy of A put back
# there is moved aside: A is not filed (nor recorded delivered) twice.
stop_daemon
start_daemon
wait_for 10 bash -c "ls '$SB/rejected' | grep -q -- '-$A.json.why\$'"
ok $? "the copy of A in pending/ is moved to rejected/ at the next start"
like "$(cat "$SB"/rejected/*-"$A".json.why)" "already delivered" "with a note that says why"
is "$(grep -c "\"result_delivered\".*$A\|$A.*\"result_delivered\"" "$SB/audit.jsonl")" 1 \
	"A's delivery is recorded once"
kept "$A"
ok $? "A's output is still kept (until its own retention)"
is "$(runs)" 4 "each command ran once"
done_testing
