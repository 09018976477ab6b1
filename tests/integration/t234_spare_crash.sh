#!/usr/bin/env bash
# sbxd killed (SIGKILL, a crash) while its spare executor waits: the
# spare learns it from the kernel (parent-death signal), kills its child
# and removes its cgroup. Stopped cleanly (SIGTERM), the same. Checked
# from outside: no process of the spare is left, no cgroup of this sbxd
# is left, and a new sbxd runs the next command once.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sparelib.sh"

init_folder
spare_task
set_limits '{"hook_wait_seconds": 30, "exec_max_processes": 40}'
start_daemon
need_spare_cgroup

# gone PID...: none of them is left.
gone() {
	local p
	for p in "$@"; do
		kill -0 "$p" 2>/dev/null && return 1
	done
	return 0
}

# A command first, so the spare checked below is one forked after a run.
r=$(run "./task.sh show first")
like "$r" "out: first" "a command runs"
wait_for 5 spare_cmd_of "$DPID"
spare=$(spare_of "$DPID")
child=$(spare_cmd_of "$DPID")
[ -n "$spare" ] && [ -n "$child" ]
ok $? "sbxd keeps a spare ($spare) and its child ($child)"
wait_for 5 sh -c "[ -n \"\$(ls -d /sys/fs/cgroup/pids/sbx-spare-$DPID-* /sys/fs/cgroup/sbx-spare-$DPID-* 2>/dev/null)\" ]"
ok $? "in a cgroup of its own ($(spare_cgroups "$DPID"))"

kill -KILL "$DPID"
wait "$DPID" 2>/dev/null
crashed=$DPID
DPID=""
wait_for 10 gone "$spare" "$child"
ok $? "after sbxd's crash, neither the spare nor its child is left"
wait_for 10 sh -c "[ -z \"\$(ls -d /sys/fs/cgroup/pids/sbx-spare-$crashed-* /sys/fs/cgroup/sbx-spare-$crashed-* 2>/dev/null)\" ]"
ok $? "nor a cgroup of the crashed sbxd ($(spare_cgroups "$crashed"))"

start_daemon
r=$(run "./task.sh show after-crash")
like "$r" "out: after-crash" "a new sbxd runs the next command"
is "$(runs_of "show after-crash")" 1 "exactly once"
wait_for 5 spare_cmd_of "$DPID"
spare=$(spare_of "$DPID")
child=$(spare_cmd_of "$DPID")
stopped=$DPID
stop_daemon
wait_for 10 gone "$spare" "$child"
ok $? "stopped cleanly, sbxd leaves no spare behind"
is "$(spare_cgroups "$stopped")" "" "nor its cgroup"
done_testing
