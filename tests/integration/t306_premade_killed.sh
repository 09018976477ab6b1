#!/usr/bin/env bash
# A spare executor that made its run's files ahead (unnamed, in work/)
# fails closed like any spare: killed or stopped by an approved command,
# the next command runs exactly once, with its output, and no file of the
# dead spare is left anywhere under .sandbox (they had no name). An
# executor killed while its command runs (its captures linked to
# work/ID.stdout and work/ID.stderr when the run started) loses no
# output: the result sbxd writes for it (interrupted) carries what the
# command printed. sbxd stopped with its spares idle leaves nothing in
# work/ either. Checked from outside.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sparelib.sh"

init_folder
spare_task
cat >"$FOLDER/slow.sh" <<'SH'
#!/bin/sh
echo "run slow" >>"$(dirname "$0")/runs.log"
echo "out: slow"
echo "err: slow" >&2
exec sleep 30
SH
chmod +x "$FOLDER/slow.sh"
add_rule escalate 'Bash(./slow.sh)'
set_limits '{"hook_wait_seconds": 30}'
start_daemon
wait_for 10 sh -c "pgrep -P $DPID -x sbxd-spare >/dev/null"
ok $? "sbxd keeps a spare executor"
work() { ls -A "$FOLDER/.sandbox/work" | tr '\n' ' '; }
# Two runs first, so that both spares made their files here.
run "./task.sh show warm1" >/dev/null
run "./task.sh show warm2" >/dev/null
wait_for 10 spares_ready "$DPID"
is "$(work)" "" "work/ holds no name between runs"

# 1. The spare killed, then stopped, by an approved command.
for how in kill stop; do
	r=$(run "./task.sh $how-spare")
	like "$r" "(killed|stopped) spare [0-9]+" "$how: an approved command ${how}s the next run's spare"
	r=$(run "./task.sh show after-$how")
	like "$r" "out: after-$how" "$how: the next command's output comes back"
	like "$r" "err: after-$how" "$how: and its stderr"
	is "$(runs_of "show after-$how")" 1 "$how: it ran exactly once"
	is "$(work)" "" "$how: no file of the spare is left in work/"
	n=$(find "$FOLDER/.sandbox" -newer "$FOLDER/runs.log" -type f ! -path '*/results/*' \
		! -name 'state.db*' ! -name 'audit*' ! -path '*/done/*' ! -path '*/delivered/*' | wc -l)
	is "$n" 0 "$how: nor anywhere else under .sandbox"
	wait_for 10 spares_ready "$DPID"
done

# 2. The executor killed mid-run, after its command printed.
hook_bash "./slow.sh" >"$T/a.out" &
hp=$!
wait_for 20 has_pending
id=$(pending_ids | head -1)
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait_for 20 grep -q "err: slow" "$FOLDER/.sandbox/work/$id.stderr"
ok $? "the running command's output is in work/$id.stdout and .stderr"
# the command's shell (the oldest process running it): its parent is
# the executor
# (this test's own: another run of it may run ./slow.sh at the same time)
p=$(own_oldest "sh -c ./slow.sh\$")
ex=$(ps -o ppid= -p "$p" | tr -d ' ')
left=$(pgrep -f "sleep 30\$" -P "$p" 2>/dev/null)
is "$(ps -o comm= -p "$ex")" sbxd "(its executor, $ex)"
kill -KILL "$ex"
wait "$hp"
res="$FOLDER/.sandbox/results/$id.json"
wait_for 10 test -s "$res"
is "$(jq -r .status "$res")" interrupted "the killed run's result says interrupted"
like "$(jq -r .stdout "$res")" "out: slow" "with the output the command printed"
like "$(jq -r .stderr "$res")" "err: slow" "and its stderr"
like "$(reason <"$T/a.out")" "out: slow" "the hook delivers it, with the output"
is "$(runs_of slow)" 1 "it ran once"
wait_for 10 sh -c "! kill -0 ${left:-$p} 2>/dev/null"
ok $? "nothing of it is left running"

# 3. sbxd stopped with its spares idle (their files made): nothing left.
wait_for 10 spares_ready "$DPID"
run "./task.sh show last" >/dev/null
wait_for 10 spares_ready "$DPID"
stop_daemon
is "$(work)" "$id.stderr $id.stdout " "sbxd stopped: work/ holds only the killed run's captures"
start_daemon
r=$(run "./task.sh show restarted")
like "$r" "out: restarted" "after a restart the next command runs"
is "$(runs_of "show restarted")" 1 "once"
done_testing
