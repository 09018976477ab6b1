#!/usr/bin/env bash
# An approved command that may write cgroup files (root, or a delegated
# cgroup) attacks the spare's pids cgroup: it puts a process of its own
# into it (to be counted against, or escape with, the next command), or
# moves the spare's child out of it (so that the next command would run
# outside any cgroup). The spare finds its child not alone, or not
# there, and starts the next command the direct way, in a cgroup of its
# own. Checked from outside: the next command runs once, in a cgroup
# holding none of the attacker's processes, with its limit; the
# intruder is killed with the spare's cgroup.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sparelib.sh"

init_folder
spare_task
set_limits '{"hook_wait_seconds": 30, "exec_max_processes": 40}'
start_daemon
need_spare_cgroup

r=$(run "./task.sh intrude")
like "$r" "intruder [0-9]+ in /sys/fs/cgroup/.*/sbx-spare-" "an approved command puts a process of its own into the spare's cgroup"
intruder=$(cat "$FOLDER/intruder")
r=$(run "./task.sh show after-intrude")
like "$r" "out: after-intrude" "the next command runs, with its output"
is "$(runs_of "show after-intrude")" 1 "exactly once"
like "$r" "cgroup: /sbx-" "in a pids cgroup of sbxd's"
unlike "$r" "cgroup: /sbx-spare-" "not the cgroup the intruder was put in"
like_limit "$r" 40 "with its process limit"
procs=$(echo "$r" | sed -n 's/^procs: //p')
unlike " $procs " " $intruder " "its cgroup holds none of the attacker's processes ($procs)"
wait_for 5 sh -c "! kill -0 $intruder 2>/dev/null"
ok $? "the intruder was killed with the spare's cgroup"

r=$(run "./task.sh move-out")
like "$r" "moved [0-9]+ out" "an approved command moves the spare's child out of its cgroup"
r=$(run "./task.sh show after-move-out")
like "$r" "out: after-move-out" "the next command runs, with its output"
is "$(runs_of "show after-move-out")" 1 "exactly once"
like "$r" "cgroup: /sbx-" "in a pids cgroup of sbxd's, not outside one"
like_limit "$r" 40 "with its process limit"

# Left alone, the spare serves: the command runs in the spare's cgroup.
wait_for 10 spares_ready "$DPID"
e=$(spare_of "$DPID")
c=$(spare_cmd_of "$DPID")
r=$(run "./task.sh show untouched")
# (the spare's cgroup keeps its name for the run: a rename would wait for
# every cgroup move on the machine before the command's output is read)
like "$r" "cgroup: /sbx-spare-$DPID-" "an untouched spare runs the next command in its cgroup"
# (cgroup.procs is sorted by pid, and pids wrap at pid_max: the command's
# children may come first)
like "$r" "procs: ([0-9]+ )*$c " "... as the spare's own child"
like_limit "$r" 40 "with the run's limit set"
like "$r" "procs: ([0-9]+ )*$e " "... and its executor ($e), in the cgroup with it"
is "$(runs_of "show untouched")" 1 "exactly once"
done_testing
