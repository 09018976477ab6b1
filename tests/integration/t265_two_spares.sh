#!/usr/bin/env bash
# sbxd keeps two spare executors (daemon/exec.c): with one, a spare
# still getting ready (its cgroup, its child, its files) when a busy
# agent's next request came made that request wait. A run takes the
# oldest spare, so the one it finds had a whole run more to get ready;
# after its run, the spare's successor takes its cgroup over. Checked
# from outside: two spares idle, each child in a cgroup of its own; each
# run by the oldest spare (the one started first: never the newer of
# the two), in that spare's cgroup; two spares again after, in the same
# two cgroups (no cgroup made or removed for a run).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sparelib.sh"

init_folder
spare_task
set_limits '{"hook_wait_seconds": 30, "exec_max_processes": 40}'
start_daemon
need_spare_cgroup

two() { [ "$(pgrep -P "$DPID" -x sbxd-spare | wc -l)" -eq 2 ]; }
cmds_in_cgroups() {	# the spares' children, each in a sbx-spare cgroup
	local s c n=0
	for s in $(pgrep -P "$DPID" -x sbxd-spare); do
		c=$(pgrep -P "$s" -x sbxd-spare-cmd) || return 1
		grep -q ":pids:/sbx-spare-$DPID-" "/proc/$c/cgroup" || return 1
		n=$((n + 1))
	done
	[ "$n" -eq 2 ]
}
wait_for 10 two
ok $? "sbxd keeps two spare executors"
wait_for 10 cmds_in_cgroups
ok $? "each with its child waiting in a pids cgroup of its own"
oldest() {	# "SERIAL PID" of the spare started first, SERIAL its child's cgroup's
	local s c n
	for s in $(pgrep -P "$DPID" -x sbxd-spare); do
		c=$(pgrep -P "$s" -x sbxd-spare-cmd) || continue
		n=$(sed -n "s|^[0-9]*:pids:/sbx-spare-$DPID-\([0-9]*\)\$|\1|p" "/proc/$c/cgroup")
		[ -n "$n" ] && echo "$(cut -d' ' -f22 "/proc/$s/stat") $s $n"
	done | sort -k1,1n -k2,2n | head -1 | cut -d' ' -f2-
}
before=$(spare_cgroups "$DPID" | sort | tr '\n' ' ')
took=""
for i in 1 2 3 4; do
	o=$(oldest)
	want=${o%% *} serial=${o#* }
	r=$(run "./task.sh show run$i")
	is "$(runs_of "show run$i")" 1 "run $i ran once"
	id=$(sed -n "s/.* request \([0-9a-f]*\) pending: Bash \`.\/task.sh show run$i\`.*/\1/p" \
		"$T/sbxd.log" | head -1)
	got=$(sed -n "s/.* request $id: running .*, executor pid \([0-9]*\)\$/\1/p" "$T/sbxd.log" |
		head -1)
	[ -n "$want" ] && [ "$got" = "$want" ] && took="$took y" || took="$took n($want/$got)"
	echo "$r" | grep -q "^cgroup: /sbx-spare-$DPID-$serial\$" || took="$took c"
	# both spares ready before naming the oldest (t232's race)
	wait_for 10 spares_ready "$DPID"
done
is "$took" " y y y y" "each run took the oldest spare, in its cgroup"
wait_for 10 cmds_in_cgroups
ok $? "two spares again after the runs, ready"
# Each run's executor left a successor in its cgroup: the runs made no
# cgroup and removed none (a move into one, a mkdir or an rmdir holds up
# the machine for milliseconds).
is "$(spare_cgroups "$DPID" | sort | tr '\n' ' ')" "$before" \
	"the same two cgroups serve all four runs ($before)"

done_testing
