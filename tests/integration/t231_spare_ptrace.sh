#!/usr/bin/env bash
# An approved command of the same (unprivileged) user tries to take over
# the spare executor to change the NEXT approved command: ptrace it
# (strace -p), open its memory (/proc/PID/mem) for writing, read its
# descriptors and environment. The spare and its child are not dumpable:
# each attempt fails, checked from outside, and the next command runs
# once with its own output. As root, this test runs itself again as an
# unprivileged user it creates (root may trace anything).
set -u
: "${SBX_BIN:?}"
here=$(cd "$(dirname "$0")" && pwd)

if [ "$(id -u)" -eq 0 ]; then
	command -v useradd >/dev/null && command -v runuser >/dev/null ||
		{ echo "1..0 # SKIP useradd and runuser are needed to test as a user"; exit 0; }
	U="sbxs$$"
	useradd -m -d "/tmp/$U.home" -s /bin/bash "$U" >/dev/null 2>&1 ||
		{ echo "1..0 # SKIP useradd failed"; exit 0; }
	trap 'pkill -KILL -u "$U" 2>/dev/null; userdel -r "$U" >/dev/null 2>&1; rm -rf "/tmp/$U.home"' EXIT
	runuser -u "$U" -- test -r "$SBX_BIN/sbx" && runuser -u "$U" -- test -r "$here/lib.sh" ||
		{ echo "1..0 # SKIP $U cannot read the build (a private checkout?)"; exit 0; }
	cd "/tmp/$U.home" && runuser -u "$U" -- env -i PATH=/usr/local/bin:/usr/bin:/bin \
		HOME="/tmp/$U.home" TMPDIR=/tmp LANG=C.UTF-8 SBX_BIN="$SBX_BIN" \
		SBX_TESTS_BIN="${SBX_TESTS_BIN:-}" bash "$here/t231_spare_ptrace.sh"
	exit $?
fi

. "$here/lib.sh"
. "$here/sparelib.sh"
command -v python3 >/dev/null || skip_all "python3 is not installed"
command -v strace >/dev/null || skip_all "strace is not installed"

# The attacks, as an approved command: each line says what it got.
cat >"$FOLDER/attack.sh" <<'SH'
#!/bin/sh
set -- $("$(dirname "$0")/task.sh" spare-pids) || { echo "no spare"; exit 0; }
d=$(ps -o ppid= -p "$1" | tr -d ' ')   # sbxd, who holds the keys
for p in "$1" "$2" "$d"; do
	# refused, strace ends at once (1); attached, it traces until the
	# timeout ends it (124). (It ran in the background for 0.5 s, and a
	# strace slower than that to be refused, on a loaded machine, was
	# taken for one that had attached.)
	timeout 5 strace -qq -o /dev/null -p "$p" -e trace=none 2>/dev/null
	if [ $? -ne 1 ]; then
		echo "ATTACHED to $p"
	else
		echo "no ptrace of $p"
	fi
	python3 - "$p" <<'PY'
import sys
p = sys.argv[1]
for what, how in (("mem", "r+b"), ("mem", "rb"), ("environ", "rb")):
    try:
        open("/proc/%s/%s" % (p, what), how).read(1)
        print("OPENED /proc/%s/%s %s" % (p, what, how))
    except OSError as e:
        print("no %s %s of %s (%s)" % (what, how, p, e.strerror))
import os
try:
    os.listdir("/proc/%s/fd" % p)
    print("LISTED /proc/%s/fd" % p)
except OSError as e:
    print("no fd of %s (%s)" % (p, e.strerror))
PY
done
SH
chmod +x "$FOLDER/attack.sh"
init_folder
spare_task
add_rule escalate 'Bash(./attack.sh)'
set_limits '{"hook_wait_seconds": 30}'
start_daemon
wait_for 10 sh -c "pgrep -P $DPID -x sbxd-spare >/dev/null"
ok $? "sbxd keeps a spare executor"

r=$(run "./attack.sh")
like "$r" "no ptrace of [0-9]+" "the attack ran"
unlike "$r" "ATTACHED" "neither sbxd, the spare nor its child can be traced"
unlike "$r" "OPENED" "nor their memory or environment opened"
unlike "$r" "LISTED" "nor their descriptors listed"
is "$(echo "$r" | grep -c '^no ')" 15 "fifteen attempts, fifteen refusals"
like "$r" "no ptrace of $DPID" "sbxd was one of them"
# Without the protection the same attack succeeds: a process of ours,
# dumpable, is traced and its memory opened by the same command.
sleep 300 &
mine=$!
python3 -c 'import sys; open("/proc/%s/mem" % sys.argv[1], "r+b")' "$mine"
ok $? "(the same user may open a dumpable process's memory here: the check above can fail)"
kill "$mine"
r=$(run "./task.sh show next")
like "$r" "out: next" "the next approved command runs, with its output"
is "$(runs_of "show next")" 1 "exactly once"
done_testing
