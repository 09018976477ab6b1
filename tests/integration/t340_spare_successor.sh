#!/usr/bin/env bash
# A spare executor's cgroup serves run after run (daemon/exec.c): after
# its run the executor kills what is left in it, starts its successor
# in it (a child of sbxd, born there, never moved) and exits; sbxd takes
# the successor as a spare. So a run moves no process into a cgroup and
# makes or removes none (each holds up every fork, exec and exit on the
# machine for milliseconds with cgroup v1). Checked from outside: strace
# over sbxd and all it starts sees no write to a cgroup.procs, no mkdir
# or rmdir of a cgroup across runs; the same two cgroups serve them all;
# a process a command leaves behind is killed before the successor
# comes; a command that kills its own executor is killed with its
# cgroup, which goes, and the next command runs once, in a spare's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sparelib.sh"

command -v strace >/dev/null || skip_all "strace is not installed"
command -v python3 >/dev/null || skip_all "python3 is not installed"
init_folder
spare_task
set_limits '{"hook_wait_seconds": 30, "exec_max_processes": 40}'
start_daemon
need_spare_cgroup

r=$(run "./task.sh show first")
like "$r" "out: first" "a command runs"
wait_for 10 spares_ready "$DPID"
before=$(spare_cgroups "$DPID" | sort | tr '\n' ' ')
is "$(echo $before | wc -w)" 2 "two spare cgroups ($before)"

tree() { local c; for c in $(pgrep -P "$1"); do echo "$c"; tree "$c"; done; }
procs="$DPID $(tree "$DPID")"
# shellcheck disable=SC2046
strace -f -qq -o "$T/d.st" -e trace=openat,open,mkdir,mkdirat,rmdir,clone,clone3 \
	$(printf -- '-p %s ' $procs) &
SP=$!
# shellcheck disable=SC2086
wait_traced "$SP" $procs || skip_all "strace cannot attach to sbxd here"
cgs="" fail_cg=""
for i in 1 2 3 4; do
	r=$(run "./task.sh show run$i")
	like "$r" "out: run$i" "run $i: its output comes back"
	cgs="$cgs $(echo "$r" | sed -n 's|^cgroup: /||p')"
	wait_for 10 spares_ready "$DPID"
done
kill "$SP"
wait "$SP" 2>/dev/null
moves=$(grep -cE 'cgroup\.procs", O_WRONLY' "$T/d.st")
mk=$(grep -cE '^[0-9]+ +(mkdir|mkdirat|rmdir)\(.*/sys/fs/cgroup' "$T/d.st")
grep -E 'cgroup\.procs", O_WRONLY|^[0-9]+ +(mkdir|mkdirat|rmdir)\(.*/sys/fs/cgroup' "$T/d.st" | head -20 | sed 's/^/# /'
is "$moves" 0 "no process was moved into a cgroup during 4 runs"
is "$mk" 0 "no cgroup was made or removed during 4 runs"
like "$(grep -cE 'clone\(.*CLONE_PARENT' "$T/d.st")" "^[4-9]" "each run's executor started its successor (CLONE_PARENT)"
for c in $cgs; do
	case " $before " in *"/$c "*) ;; *) fail_cg="$fail_cg $c" ;; esac
done
is "$fail_cg" "" "every run ran in one of the two spare cgroups ($cgs)"
is "$(spare_cgroups "$DPID" | sort | tr '\n' ' ')" "$before" "and the same two are there after"
spares_in_own() {	# each spare and its child alone in a spare cgroup
	local s c d n=0
	for s in $(pgrep -P "$DPID" -x sbxd-spare); do
		c=$(pgrep -P "$s" -x sbxd-spare-cmd | head -1)
		[ -n "$c" ] || return 1
		d=$(pids_dir "$s")
		[ "$d" = "$(pids_dir "$c")" ] || return 1
		[ "$(sort -n "$d/cgroup.procs" | tr '\n' ' ')" = "$(printf '%s\n' "$s" "$c" | sort -n | tr '\n' ' ')" ] || return 1
		n=$((n + 1))
	done
	[ "$n" -eq 2 ]
}
pids_dir() { echo "/sys/fs/cgroup/pids$(sed -n 's/^[0-9]*:pids://p' "/proc/$1/cgroup")"; }
wait_for 10 spares_in_own
ok $? "each spare (a successor) is in its cgroup with its child, nothing else"

# A process left behind by a command is killed before the successor.
r=$(run "./task.sh linger")
like "$r" "lingerer [0-9]+ in /sbx-spare-$DPID-" "a command leaves a process behind, out of its group"
l=$(cat "$FOLDER/lingerer")
wait_for 10 sh -c "! kill -0 $l 2>/dev/null"
ok $? "it is killed after the run ($l)"
wait_for 10 spares_in_own
ok $? "the successor in that cgroup is alone with its child"
is "$(spare_cgroups "$DPID" | sort | tr '\n' ' ')" "$before" "the same two cgroups still"

# A command that kills its own executor: killed with the cgroup, which
# goes. (Its output goes with the executor: the cgroup is the one of the
# spare that takes the run, the oldest.)
wait_for 10 spares_ready "$DPID"
gone=$(pids_dir "$(spare_of "$DPID")")
like "$gone" "/sbx-spare-$DPID-" "the next run goes to the spare in $gone"
r=$(run "./task.sh kill-executor")
is "$(runs_of kill-executor)" 1 "a command kills the spare executor running it"
wait_for 10 sh -c "! ls -d $gone >/dev/null 2>&1"
ok $? "its cgroup is removed"
r=$(run "./task.sh show after-kill-executor")
like "$r" "out: after-kill-executor" "the next command runs"
is "$(runs_of "show after-kill-executor")" 1 "exactly once"
like "$r" "cgroup: /sbx-spare-$DPID-" "in a spare's cgroup"
like_limit "$r" 40 "with the run's process limit"
wait_for 10 sh -c "[ \$(ls -d /sys/fs/cgroup/pids/sbx-spare-$DPID-* 2>/dev/null | wc -l) -le 2 ]"
ok $? "no more than two spare cgroups ($(spare_cgroups "$DPID" | tr '\n' ' '))"

# A fork bomb up to the limit: all of it killed, the cgroup serves on.
wait_for 10 spares_ready "$DPID"
now=$(spare_cgroups "$DPID" | sort | tr '\n' ' ')
r=$(run "./task.sh bomb")
like "$r" "fork refused after [0-9]+" "a fork bomb is refused"
r=$(run "./task.sh show after-bomb")
like "$r" "out: after-bomb" "the next command runs after the bomb"
wait_for 10 spares_in_own
ok $? "each spare alone with its child again (the bomb's processes are gone)"
is "$(spare_cgroups "$DPID" | sort | tr '\n' ' ')" "$now" "in the same two cgroups"
done_testing
