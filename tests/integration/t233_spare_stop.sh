#!/usr/bin/env bash
# The spare executor stopped (SIGSTOP) by an approved command of the
# same user, so that the next command would hang: its child (the spare
# finds it stopped and starts the command the direct way), or the spare
# itself (sbxd gets no answer, kills it, reads its last words and starts
# the command the direct way). Checked from outside: the next command
# runs exactly once with its output, nothing hangs, and the stopped
# processes are gone, not left stopped.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sparelib.sh"

init_folder
spare_task
set_limits '{"hook_wait_seconds": 30}'
start_daemon
wait_for 10 sh -c "pgrep -P $DPID -x sbxd-spare >/dev/null"
ok $? "sbxd keeps a spare executor"

# stopped_gone PID...: none of them is left (stopped or otherwise).
stopped_gone() {
	local p
	for p in "$@"; do
		kill -0 "$p" 2>/dev/null && [ "$(ps -o stat= -p "$p" | cut -c1)" != Z ] && return 1
	done
	return 0
}

r=$(run "./task.sh stop-cmd")
like "$r" "stopped spare child [0-9]+ [0-9]+" "an approved command stops the spare's child"
set -- $(echo "$r" | grep -oE 'stopped spare child [0-9]+ [0-9]+' | grep -oE '[0-9]+')
is "$(ps -o stat= -p "$2" | cut -c1)" T "(it is stopped)"
r=$(run "./task.sh show after-stop-cmd")
like "$r" "out: after-stop-cmd" "the next command runs, with its output"
is "$(runs_of "show after-stop-cmd")" 1 "exactly once"
wait_for 5 stopped_gone "$2"
ok $? "the stopped child is gone"

r=$(run "./task.sh stop-spare")
like "$r" "stopped spare [0-9]+ [0-9]+" "an approved command stops the spare executor"
set -- $(echo "$r" | grep -oE 'stopped spare [0-9]+ [0-9]+' | grep -oE '[0-9]+')
is "$(ps -o stat= -p "$1" | cut -c1)" T "(it is stopped)"
r=$(run "./task.sh show after-stop-spare")
like "$r" "out: after-stop-spare" "the next command runs, with its output"
is "$(runs_of "show after-stop-spare")" 1 "exactly once"
like "$r" "EXECUTED .*exit status 0" "and its result is a normal one (exit status 0)"
wait_for 5 stopped_gone "$1" "$2"
ok $? "the stopped spare and its child are gone"
wait_for 20 sh -c "pgrep -P $DPID -x sbxd-spare >/dev/null"
ok $? "sbxd forks a new spare (nothing else happening)"
r=$(run "./task.sh show last")
like "$r" "out: last" "which runs the next command"
is "$(runs_of "show last")" 1 "exactly once"
done_testing
