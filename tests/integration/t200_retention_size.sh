#!/usr/bin/env bash
# Retention by size (limits.keep_results_mb): past the cap, the output of
# the oldest deliveries is pruned first, and only delivered output: a
# result the agent has not fetched yet is kept (and not counted), however
# large. `sbx show` says the output was pruned, when, and by which limit.
. "$(dirname "$0")/lib.sh"

SB="$FOLDER/.sandbox"
gone() { [ ! -e "$SB/results/$1.json" ] && [ ! -e "$SB/results/$1.stdout" ] &&
	[ ! -e "$SB/done/$1.json" ]; }
kept() { [ -f "$SB/results/$1.json" ] && [ -f "$SB/results/$1.stdout" ]; }
in_done() { [ -f "$SB/done/$1.json" ]; }

init_folder
setup_task
p="$SB/policy.json"
cp "$p" "$T/good.json"
for bad in -1 1048577 1.5 '"1"'; do
	jq --argjson v "$bad" '.limits.keep_results_mb = $v' "$T/good.json" >"$p"
	out=$("$SBX" -C "$FOLDER" policy accept 2>&1)
	rc=$?
	[ $rc -ne 0 ] && printf '%s' "$out" | grep -q keep_results_mb
	ok $? "keep_results_mb $bad is refused, by name"
done
cp "$T/good.json" "$p"
accept_policy
is "$("$SBX" -C "$FOLDER" policy show | jq ".limits.keep_results_mb")" 1024 \
	"the default cap is 1024 MiB"
# 1 MiB of delivered output; days would keep everything.
set_limits '{"hook_wait_seconds": 20, "keep_results_days": 30, "keep_results_mb": 1}'
start_daemon

# U: 700 kB of output that is never delivered (the hook was killed).
bash_payload "./task.sh big 700000" >"$T/u.json"
"$HOOK" pre <"$T/u.json" >/dev/null &
hp=$!
wait_for 10 has_pending
U=$(pending_ids)
kill "$hp"
wait "$hp" 2>/dev/null
"$SBX" -C "$FOLDER" approve "$U" >/dev/null
wait_for 10 test -f "$SB/results/$U.json"
ok $? "the undelivered request has its result"

# A, B, C: 400 kB each, delivered one after the other.
deliver() {	# deliver NAME: runs ./task.sh big 400000 NAME through an approval
	hook_bash "./task.sh big 400000 $1" >"$T/$1.out" &
	local h=$!
	wait_for 10 has_pending || return 1
	local id
	id=$(pending_ids)
	"$SBX" -C "$FOLDER" approve "$id" >/dev/null
	wait "$h"
	wait_for 20 in_done "$id" || return 1
	echo "$id"
}
A=$(deliver a)
ok $? "A is delivered"
B=$(deliver b)
ok $? "B is delivered"
kept "$A" && kept "$B"
ok $? "A and B (about 840 kB together) are under the cap: both kept"
C=$(deliver c)
ok $? "C is delivered"
wait_for 20 gone "$A"
ok $? "past the cap, the oldest delivery (A) is pruned"
kept "$B" && kept "$C"
ok $? "B and C are kept: the pruning stops once under the cap"
kept "$U" && [ -f "$SB/pending/$U.json" ]
ok $? "the undelivered 700 kB result is kept, though the folder is over the cap with it"
out=$("$SBX" -C "$FOLDER" show "$A")
like "$out" "status +done" "sbx show keeps A's history"
like "$out" "output +pruned on [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]+ \\(limits.keep_results_mb" \
	"and says its output was pruned, when, and by the size cap"
"$SBX" -C "$FOLDER" show "$A" --json | jq -e '.output_pruned > 0 and
	.output_pruned_by == "keep_results_mb"' >/dev/null
ok $? "sbx show --json has output_pruned and output_pruned_by"
grep '"event":"output_pruned"' "$SB/audit.jsonl" | grep -q '"by_size":1'
ok $? "the audit log has the pruning, by size"
like "$("$SBX" -C "$FOLDER" audit show --request "$A")" "exec_finished.*stdout" \
	"the audit log still has A's run and its output sizes"

# U delivered now (the same call again): the oldest others go first,
# until under the cap; U, the newest delivery, is kept.
"$HOOK" pre <"$T/u.json" >"$T/u.out"
like "$(reason <"$T/u.out" | head -1)" "ALREADY EXECUTED" "the second call gets U's kept result"
wait_for 20 in_done "$U"
ok $? "U is delivered"
wait_for 20 gone "$C"
ok $? "B and C (the oldest deliveries) are pruned to bring the folder under the cap"
gone "$B"
ok $? "B too"
kept "$U"
ok $? "U's output, the newest delivery, is kept"

stop_daemon
"$SBX" -C "$FOLDER" audit verify >/dev/null
ok $? "the audit log verifies"
done_testing
