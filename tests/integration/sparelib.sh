# sparelib.sh - helpers for the spare executor's tests t230-t234 (sourced
# after lib.sh).
#
# sbxd keeps a spare executor ("sbxd-spare", a child of sbxd) whose child
# ("sbxd-spare-cmd") waits in a fresh pids cgroup for the next approved
# command (daemon/exec.c). $FOLDER/task.sh is an escalated script whose
# actions attack that spare from inside an approved command, the way a
# hostile command of the same user could: it finds sbxd as its
# executor's parent. Every run is counted in $FOLDER/runs.log.

# spare_task: writes task.sh and escalates it.
spare_task() {
	cat >"$FOLDER/task.sh" <<'SH'
#!/bin/sh
echo "run $*" >>"$(dirname "$0")/runs.log"
# our executor: the first ancestor named sbxd; sbxd is its parent
ex=$$
while [ "$(ps -o comm= -p "$ex")" != sbxd ]; do
	ex=$(ps -o ppid= -p "$ex" | tr -d ' ')
	[ "${ex:-0}" -gt 1 ] || { echo "no executor above us" >&2; exit 1; }
done
d=$(ps -o ppid= -p "$ex" | tr -d ' ')
# the spare that runs the next command: sbxd takes the oldest, the one
# started first (a successor keeps its cgroup's name, not its age)
spare() {
	for s in $(pgrep -P "$d" -x sbxd-spare); do
		echo "$(cut -d' ' -f22 "/proc/$s/stat" 2>/dev/null || echo 999999999) $s"
	done | sort -k1,1n -k2,2n | head -1 | cut -d' ' -f2
}
spare_cmd() { s=$(spare) && [ -n "$s" ] && pgrep -P "$s" -x sbxd-spare-cmd | head -1; }
# sbxd keeps both its spares, each with its child, each child in its
# spare cgroup where there are cgroups: only then is the one spare()
# names ready for the next run
ready() {
	n=0
	for s in $(pgrep -P "$d" -x sbxd-spare); do
		c=$(pgrep -P "$s" -x sbxd-spare-cmd | head -1)
		[ -n "$c" ] || return 1
		[ -z "$cg" ] || grep -q ':/sbx-spare-' "/proc/$c/cgroup" 2>/dev/null || return 1
		n=$((n + 1))
	done
	[ "$n" -ge 2 ]
}
# the spare that runs the next command, its child ready (sbxd forks the
# one that replaces ours after handing us over)
wait_spare() {
	i=0
	while [ $i -lt 600 ]; do
		c=
		ready && c=$(spare_cmd)
		if [ -n "$c" ] && { [ "$1" != cgroup ] || grep -q ':/sbx-spare-' "/proc/$c/cgroup"; }; then
			echo "$(spare) $c"
			return 0
		fi
		sleep 0.05
		i=$((i + 1))
	done
	echo "no spare" >&2
	return 1
}
# where sbxd may make cgroups, the spare's child is ready once in its own
cg=
if [ -w /sys/fs/cgroup/pids/cgroup.procs ] || [ -w /sys/fs/cgroup/cgroup.procs ]; then cg=cgroup; fi
pids_dir() { echo "/sys/fs/cgroup/pids$(sed -n 's/^[0-9]*:pids://p' "/proc/$1/cgroup")"; }
case "$1" in
kill-spare)
	set -- $(wait_spare) && kill -KILL "$1" && echo "killed spare $1" ;;
kill-cmd)
	set -- $(wait_spare $cg) && kill -KILL "$2" && echo "killed spare child $2 of $1" ;;
stop-spare)
	set -- $(wait_spare) && kill -STOP "$1" && echo "stopped spare $1 $2" ;;
stop-cmd)
	set -- $(wait_spare $cg) && kill -STOP "$2" && echo "stopped spare child $1 $2" ;;
intrude)
	# a process of ours in the spare's cgroup, waiting to be counted
	set -- $(wait_spare cgroup) || exit 1
	setsid sleep 300 </dev/null >/dev/null 2>&1 &
	echo $! >"$(dirname "$0")/intruder"
	echo $! >"$(pids_dir "$2")/cgroup.procs" && echo "intruder $! in $(pids_dir "$2")" ;;
move-out)
	# the spare's child moved back to the root cgroup
	set -- $(wait_spare cgroup) || exit 1
	echo "$2" >/sys/fs/cgroup/pids/cgroup.procs && echo "moved $2 out" ;;
spare-pids)
	wait_spare "$2" ;;
kill-executor)
	# the spare executor that supervises this very run (t340)
	echo "cgroup: $(sed -n 's/^[0-9]*:pids://p' /proc/self/cgroup)"
	kill -KILL "$ex" && echo "killed executor $ex" && sleep 30 ;;
linger)
	# a process of ours left behind, out of the run's process group (t340)
	setsid sleep 300 </dev/null >/dev/null 2>&1 &
	echo $! >"$(dirname "$0")/lingerer"
	echo "lingerer $! in $(sed -n 's/^[0-9]*:pids://p' /proc/self/cgroup)" ;;
sleep)
	# a run that lasts (t277 kills its executor while it runs)
	sleep "$2" ;;
show)
	cg=$(sed -n 's/^[0-9]*:pids://p' /proc/self/cgroup)
	echo "out: $2"
	echo "cgroup: $cg"
	[ "$cg" != / ] && echo "max: $(cat "/sys/fs/cgroup/pids$cg/pids.max")" &&
		echo "procs: $(tr '\n' ' ' <"/sys/fs/cgroup/pids$cg/cgroup.procs")"
	echo "err: $2" >&2 ;;
bomb)
	exec python3 -c '
import os, time
n = 0
try:
    for i in range(2000):
        pid = os.fork()
        if pid == 0:
            time.sleep(29); os._exit(0)
        n += 1
except OSError as e:
    print("fork refused after", n, e.strerror)
else:
    print("forked all", n)
' ;;
esac
exit 0
SH
	chmod +x "$FOLDER/task.sh"
	add_rule escalate 'Bash(./task.sh:*)'
}

# run CMD: the hook's answer for an escalated CMD, approved at once; the
# reason text (with the command's output).
run() {
	hook_bash "$1" >"$T/ans" &
	local hp=$!
	wait_for 20 has_pending
	"$SBX" -C "$FOLDER" approve "$(pending_ids | head -1)" >/dev/null 2>&1
	wait "$hp"
	reason <"$T/ans"
}

# runs_of ACTION: how many times task.sh ACTION ran.
runs_of() { grep -c "^run $1\$" "$FOLDER/runs.log" 2>/dev/null || true; }

# spare_of PID: the idle spare executor of sbxd PID that runs the next
# command (the oldest: the one started first, its start time in
# /proc/PID/stat, then the lower pid; a successor keeps its cgroup's
# name, not its age: daemon/exec.c), and its child ("" when none).
spare_of() {
	local s
	for s in $(pgrep -P "$1" -x sbxd-spare); do
		echo "$(cut -d' ' -f22 "/proc/$s/stat" 2>/dev/null || echo 999999999) $s"
	done | sort -k1,1n -k2,2n | head -1 | cut -d' ' -f2
}
spare_cmd_of() { local s; s=$(spare_of "$1"); [ -n "$s" ] && pgrep -P "$s" -x sbxd-spare-cmd | head -1; }

# spares_ready PID: sbxd PID keeps both its spares, each child in its
# spare cgroup (born there), so that the next run takes the one spare_of
# names, ready.
spares_ready() {
	local s c n=0
	for s in $(pgrep -P "$1" -x sbxd-spare); do
		c=$(pgrep -P "$s" -x sbxd-spare-cmd | head -1)
		[ -n "$c" ] && grep -q ':/sbx-spare-' "/proc/$c/cgroup" 2>/dev/null || return 1
		n=$((n + 1))
	done
	[ "$n" -ge 2 ]
}

# need_spare_cgroup: skips the test unless sbxd's spare waits in a pids
# cgroup here (root with cgroup v1's pids, or a delegated cgroup v2).
need_spare_cgroup() {
	local c
	wait_for 10 spare_cmd_of "$DPID" ||
		{ echo "not ok 1 - sbxd keeps no spare executor"; echo "1..1"; exit 1; }
	c=$(spare_cmd_of "$DPID")
	wait_for 5 grep -q ':/sbx-spare-' "/proc/$c/cgroup" ||
		skip_all "no writable pids cgroup here (sbxd runs commands without one)"
}

# spare_cgroups: the spare cgroups this test's sbxd made.
spare_cgroups() { ls -d /sys/fs/cgroup/pids/sbx-spare-"$1"-* /sys/fs/cgroup/sbx-spare-"$1"-* \
	/sys/fs/cgroup/unified/sbx-spare-"$1"-* 2>/dev/null; }

# like_limit OUTPUT N LABEL: task.sh show's OUTPUT says the run's
# pids.max is N; one more in a spare's cgroup, where the spare executor
# that supervises the run is too (daemon/exec.c): the command still
# gets N processes.
like_limit() {
	case "$1" in
	*"cgroup: /sbx-spare-"*)
		like "$1" "max: $(($2 + 1))" "$3 ($2 and its executor)" ;;
	*)
		like "$1" "max: $2" "$3" ;;
	esac
}
