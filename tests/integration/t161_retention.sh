#!/usr/bin/env bash
# Retention (limits.keep_results_days): a finished request's files are
# pruned only after its result was delivered plus the retention; its
# history stays (state.db, audit log) and `sbx show` says the output was
# pruned. 0 days means right after delivery.
. "$(dirname "$0")/lib.sh"

SB="$FOLDER/.sandbox"
files_of() { ls "$SB/results/$1".* "$SB/done/$1.json" "$SB/pending/$1.json" 2>/dev/null | wc -l; }
gone() { [ ! -e "$SB/results/$1.json" ] && [ ! -e "$SB/done/$1.json" ]; }
in_done() { [ -f "$SB/done/$1.json" ]; }

init_folder
setup_task
# Validation: the policy refuses what is not a whole number of days in range.
p="$SB/policy.json"
cp "$p" "$T/good.json"
for bad in -1 3651 1.5 '"7"'; do
	jq --argjson v "$bad" '.limits.keep_results_days = $v' "$T/good.json" >"$p"
	out=$("$SBX" -C "$FOLDER" policy accept 2>&1)
	rc=$?
	[ $rc -ne 0 ] && printf '%s' "$out" | grep -q keep_results_days
	ok $? "keep_results_days $bad is refused, by name"
done
cp "$T/good.json" "$p"
accept_policy
set_limits '{"hook_wait_seconds": 20, "keep_results_days": 0}'
start_daemon

# 1. Not delivered: the hook gave up before the result (killed), so the
# result waits in results/ and the request in pending/: never pruned.
bash_payload "./task.sh early" >"$T/early.json"
"$HOOK" pre <"$T/early.json" >/dev/null &
hp=$!
wait_for 10 has_pending
U=$(pending_ids)
kill "$hp"
wait "$hp" 2>/dev/null
"$SBX" -C "$FOLDER" approve "$U" >/dev/null
wait_for 10 test -f "$SB/results/$U.json"
ok $? "an undelivered request gets its result"
# Two sweep passes (sbxd sweeps every few seconds).
sleep 11
[ -f "$SB/results/$U.json" ] && [ -f "$SB/pending/$U.json" ]
ok $? "with 0 days of retention, an undelivered result is still kept after two passes"
like "$("$SBX" -C "$FOLDER" show "$U")" "result +done, exit 0" "sbx show still shows its result"

# 2. Delivered: pruned right after (0 days), history kept.
hook_bash "./task.sh later" >"$T/out" &
hp=$!
wait_for 10 has_pending
D=$(pending_ids)
"$SBX" -C "$FOLDER" approve "$D" >/dev/null
wait "$hp"
like "$(reason <"$T/out")" "out: later" "the waiting hook gets its result"
wait_for 20 gone "$D"
ok $? "after delivery, the output files are pruned (0 days)"
is "$(files_of "$D")" 0 "results/ID.json, .stdout, .stderr and done/ID.json are gone"
out=$("$SBX" -C "$FOLDER" show "$D")
like "$out" "status +done" "sbx show keeps the history from state.db"
like "$out" "output +pruned on [0-9]{4}-[0-9]{2}-[0-9]{2}" "and says the output was pruned, and when"
"$SBX" -C "$FOLDER" show "$D" --json | jq -e '.output_pruned > 0' >/dev/null
ok $? "sbx show --json has output_pruned"
like "$("$SBX" -C "$FOLDER" audit show --request "$D")" "exec_finished.*stdout" \
	"the audit log still has the run and its output sizes"
grep -q '"event":"output_pruned"' "$SB/audit.jsonl"
ok $? "the pruning is in the audit log"

# 3. The undelivered one, delivered now (the same call again): then pruned.
[ -f "$SB/results/$U.json" ]
ok $? "the undelivered result survived the other request's pruning"
hook_bash "./task.sh early" >"$T/out2"
like "$(reason <"$T/out2" | head -1)" "ALREADY EXECUTED" \
	"the agent's second call gets the result that was kept"
like "$(reason <"$T/out2")" "out: early" "with its output"
wait_for 20 gone "$U"
ok $? "once delivered, it is pruned too"

# 4. With days of retention, delivered output stays.
set_limits '{"keep_results_days": 30}'
hook_bash "./task.sh kept" >/dev/null &
hp=$!
wait_for 10 has_pending
K=$(pending_ids)
"$SBX" -C "$FOLDER" approve "$K" >/dev/null
wait "$hp"
wait_for 20 in_done "$K"
ok $? "a delivered request moves to done/"
sleep 6
[ -f "$SB/results/$K.json" ] && [ -f "$SB/done/$K.json" ]
ok $? "with 30 days of retention its output is kept"
unlike "$("$SBX" -C "$FOLDER" show "$K")" "pruned" "sbx show does not say pruned"

# 5. Older history (no record of its delivery, as before retention
# existed): adopted at start as delivered then, and pruned by its rules.
stop_daemon
sqlite3 -cmd '.timeout 5000' "$SB/state.db" "drop table retention"
set_limits '{"keep_results_days": 0}'
start_daemon
wait_for 20 gone "$K"
ok $? "output delivered before sbxd knew of retention is adopted and pruned"
like "$("$SBX" -C "$FOLDER" show "$K")" "output +pruned on" "and sbx show says so"

stop_daemon
"$SBX" -C "$FOLDER" audit verify >/dev/null
ok $? "the audit log verifies"
done_testing
