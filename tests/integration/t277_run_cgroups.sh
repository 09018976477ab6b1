#!/usr/bin/env bash
# The pids cgroups of runs, fail closed and never leaked, on a machine
# other sbxds share: a run with a process limit whose cgroup cannot be
# made is not started (RLIMIT_NPROC, the fallback, does not bind root),
# said in its result and sbxd's log; a directory planted at the run's
# cgroup name is never taken over; an executor killed by SIGKILL has its
# run's cgroup (and what is left in it) removed by sbxd; at start, sbxd
# removes the stale sbx-* cgroups of sbxds that are gone, and never one
# of a live process, a young one or one with a process in it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sparelib.sh"

if [ -w /sys/fs/cgroup/pids/cgroup.procs ]; then B=/sys/fs/cgroup/pids
elif [ -w /sys/fs/cgroup/cgroup.procs ]; then B=/sys/fs/cgroup
else echo "1..0 # SKIP no pids cgroup sbxd may write here"; exit 0; fi

init_folder
spare_task
set_limits '{"hook_wait_seconds": 30, "exec_max_processes": 40}'
MINE=()
trap 'for d in "${MINE[@]}"; do rmdir "$d" 2>/dev/null; done; [ -n "${BPID:-}" ] && kill "$BPID" 2>/dev/null; kill "${WATCH:-}" 2>/dev/null; cleanup' EXIT
# aged NAME: an sbx-* cgroup made two hours ago
aged() { mkdir "$B/$1" && touch -d '2 hours ago' "$B/$1" && MINE+=("$B/$1"); }

# 1. Stale cgroups at start.
# Every sbxd that starts on this machine sweeps them, even one that then
# exits at once (another test's, refused its folder): the sbxds seen
# while they wait for ours, sampled every 20 ms.
(while :; do pgrep -x sbxd; sleep 0.02; done >"$T/sbxds") &
WATCH=$!
sh -c 'exit 0' &
dead=$!
wait "$dead"
aged "sbx-spare-$dead-t277$$"
aged "sbx-spare-$$-t277"                # its owner (this shell) is alive
mkdir "$B/sbx-run-$dead-young$$" && MINE+=("$B/sbx-run-$dead-young$$")
aged "sbx-run-$dead-busy$$"
sleep 300 &
BPID=$!
echo "$BPID" >"$B/sbx-run-$dead-busy$$/cgroup.procs"
start_daemon
kill "$WATCH"
wait "$WATCH" 2>/dev/null
WATCH=
[ ! -d "$B/sbx-spare-$dead-t277$$" ]
ok $? "sbxd's start removes an old, empty cgroup of an sbxd that is gone"
# (Another sbxd starting on this machine meanwhile, another test's, may
# have swept it first: then only the removal is ours to check.)
if grep -Eq "removed [0-9]+ stale sbx-\\* pids cgroup" "$T/sbxd.log" ||
	[ -z "$({ cat "$T/sbxds"; pgrep -x sbxd; } | grep -vx "$DPID")" ]; then
	like "$(cat "$T/sbxd.log")" "removed [0-9]+ stale sbx-\\* pids cgroup" "... and says so"
else
	_n=$((_n + 1))
	echo "ok $_n # SKIP another sbxd runs here and may have swept it first"
fi
[ -d "$B/sbx-spare-$$-t277" ]
ok $? "... never one whose owner is alive"
[ -d "$B/sbx-run-$dead-young$$" ]
ok $? "... nor a young one (it may be being set up)"
[ -d "$B/sbx-run-$dead-busy$$" ] && kill -0 "$BPID"
ok $? "... nor one with a process in it (which runs on)"
kill "$BPID"
wait "$BPID" 2>/dev/null
BPID=

# 2. A directory planted at the name of the next run's cgroup: the run
# is not started, and says why (the spare is stopped, so the run takes
# the direct way, whose cgroup is sbx-run-SBXD-ID).
hook_bash "./task.sh show planted" >"$T/a.out" &
hp=$!
wait_for 20 has_pending
id=$(pending_ids)
wait_for 10 spares_ready "$DPID"
s=$(spare_of "$DPID")
kill -STOP "$s"
mkdir "$B/sbx-run-$DPID-$id" && MINE+=("$B/sbx-run-$DPID-$id")
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait "$hp"
like "$(reason <"$T/a.out")" "request $id was approved but interrupted .*could not make the pids cgroup" \
	"a run whose cgroup cannot be made is not started, and its result says why"
n=$(runs_of "show planted")
is "${n:-0}" 0 "nothing ran"
like "$(cat "$T/sbxd.log")" "request $id: sbxd could not make the pids cgroup" "sbxd's log says so"
[ -d "$B/sbx-run-$DPID-$id" ]
ok $? "the planted directory is left as it was"

# 3. An executor killed by SIGKILL while its command runs (a spare that
# took the run; its cgroup keeps the spare's name, which sbxd remembers):
# sbxd removes the run's cgroup and kills what was left in it.
# cgroup_of PID: the pids cgroup directory PID is in
cgroup_of() {
	if [ "$B" = /sys/fs/cgroup/pids ]; then
		echo "$B$(sed -n 's/^[0-9]*:pids://p' "/proc/$1/cgroup")"
	else
		echo "$B$(sed -n 's/^0:://p' "/proc/$1/cgroup")"
	fi
}
# shell_of WORD: the oldest process running this test's "./task.sh
# sleep 30WORD" (in its folder: another run of this test may run the same)
shell_of() {
	local p l=""
	for p in $(pgrep -f "sh -c ./task.sh sleep 30$1\$"); do
		[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$FOLDER" ] && l="$l,$p"
	done
	[ -n "$l" ] && ps -o pid= --sort=start_time -p "${l#,}" | head -1 | tr -d ' ' | grep .
}
# killed_run WORD [direct]
killed_run() {
	local hp id p cg ex left gone
	wait_for 20 sh -c "pgrep -P $DPID -x sbxd-spare >/dev/null"
	hook_bash "./task.sh sleep 30$1" >"$T/b.out" &
	hp=$!
	wait_for 20 has_pending
	id=$(pending_ids)
	if [ "${2:-}" = direct ]; then
		wait_for 10 spares_ready "$DPID"
		s=$(spare_of "$DPID")
		kill -STOP "$s"
	fi
	"$SBX" -C "$FOLDER" approve "$id" >/dev/null
	# the command's shell (the oldest process running it): its parent
	# is the executor
	wait_for 20 shell_of "$1"
	p=$(shell_of "$1")
	cg=$(cgroup_of "$p")
	like "$cg" "/sbx-" "$1: the run is in a pids cgroup of sbxd's ($cg)"
	left=$(cat "$cg/cgroup.procs")
	ex=$(ps -o ppid= -p "$p" | tr -d ' ')
	is "$(ps -o comm= -p "$ex")" sbxd "$1: (its executor, $ex)"
	kill -KILL "$ex"
	wait "$hp"
	wait_for 10 sh -c "[ ! -d '$cg' ]"
	ok $? "$1: the killed executor's cgroup is removed"
	gone=1
	for p in $left; do
		kill -0 "$p" 2>/dev/null && [ "$(ps -o stat= -p "$p" | cut -c1)" != Z ] && gone=0
	done
	is "$gone" 1 "$1: ... and nothing of its command is left running"
}
killed_run 0

done_testing
