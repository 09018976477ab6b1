#!/usr/bin/env bash
# The spare executor killed by an approved command (same user): its
# child alone (the spare notices and ends; a run that came first would
# start the direct way), or the spare itself (sbxd forgets it and forks
# another).
# Checked from outside: the next approved command runs exactly once,
# in a pids cgroup with its limit, with the right output; the killed
# spare's cgroup is removed; a fork bomb stays within the limit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sparelib.sh"

command -v python3 >/dev/null || skip_all "python3 is not installed"
init_folder
spare_task
set_limits '{"hook_wait_seconds": 30, "exec_max_processes": 40}'
start_daemon
need_spare_cgroup

# check_show LABEL OUTPUT: the command ran once more, in its cgroup.
shows=0
check_show() {
	shows=$((shows + 1))
	like "$2" "out: $1" "$1: the next command's output comes back"
	like "$2" "err: $1" "$1: and its stderr"
	is "$(runs_of "show $1")" 1 "$1: it ran exactly once"
	like "$2" "cgroup: /sbx-" "$1: in a pids cgroup of sbxd's"
	like_limit "$2" 40 "$1: with the run's process limit"
}

old=$(spare_cgroups "$DPID")
r=$(run "./task.sh kill-cmd")
like "$r" "killed spare child [0-9]+ of [0-9]+" "an approved command kills the spare's child"
idle=$(echo "$r" | grep -oE 'killed spare child [0-9]+ of [0-9]+' | grep -oE '[0-9]+$')
wait_for 5 sh -c "! kill -0 $idle 2>/dev/null"
ok $? "the spare notices at once and ends (sbxd forks another)"
check_show after-kill-cmd "$(run "./task.sh show after-kill-cmd")"

r=$(run "./task.sh kill-spare")
like "$r" "killed spare [0-9]+" "an approved command kills the spare executor"
victim=$(echo "$r" | grep -oE 'killed spare [0-9]+' | grep -oE '[0-9]+$')
check_show after-kill-spare "$(run "./task.sh show after-kill-spare")"
wait_for 5 sh -c "! kill -0 $victim 2>/dev/null"
ok $? "the killed spare is gone (reaped)"
# The cgroups of the spares that were killed are removed; only the
# current spares' are left (sbxd keeps two: daemon/exec.c).
wait_for 5 sh -c "[ \$(ls -d /sys/fs/cgroup/pids/sbx-spare-$DPID-* 2>/dev/null | wc -l) -le 2 ]"
ok $? "no cgroup of a killed spare is left ($(spare_cgroups "$DPID" | wc -l) left, was: $old)"
wait_for 5 sh -c "pgrep -P $DPID -x sbxd-spare >/dev/null"
ok $? "sbxd forks a new spare"

# A fork bomb handed to the (new) spare stays within the limit.
r=$(run "./task.sh bomb")
like "$r" "fork refused after [0-9]+" "a fork bomb is refused"
n=$(echo "$r" | grep -oE 'fork refused after [0-9]+' | grep -oE '[0-9]+$')
[ -n "$n" ] && [ "$n" -le 40 ]
ok $? "after at most 40 processes (got ${n:-none})"
is "$(runs_of bomb)" 1 "the bomb ran once"
done_testing
