#!/usr/bin/env bash
# An inotify queue overflow (an agent flooding one folder's queue) makes
# sbxd rescan every folder it serves; a folder whose database is closed
# (left idle at the last stop, served lazily: daemon/idle.h) is opened for
# that only when something waits in its drop boxes or pending/ - nothing
# runs or waits to start in a closed folder, so there is nothing else to
# do. Checked from outside: after the overflow the request dropped in one
# idle folder (its event dropped) is claimed, while the untouched ones
# keep their databases closed (/proc/PID/fd; the flooded one may have
# been opened by the events of its own that sbxd read), and an untouched
# one is still served at its next event.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip_all "python3 is needed to flood the queue"
max=$(cat /proc/sys/fs/inotify/max_queued_events 2>/dev/null)
[ -n "$max" ] || skip_all "no /proc/sys/fs/inotify/max_queued_events"
[ "$max" -le 200000 ] || skip_all "max_queued_events is $max: too many files to flood"

N=4
folder() { echo "$T/f$1"; }
db_open() { ls -l "/proc/$DPID/fd" 2>/dev/null | grep -q " $(folder "$1")/.sandbox/state.db\$"; }
start_all() {
	: >"$T/sbxd.log"
	"$SBXD" --all 2>>"$T/sbxd.log" &
	DPID=$!
	wait_for 60 sh -c "[ \$(grep -c '] serving' '$T/sbxd.log') -ge $N ]"
}
flood() {
	python3 - "$1" "$((max + 100))" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    p = os.path.join(d, "junk-%d" % i)
    os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o600))
    os.unlink(p)
PY
}

for k in $(seq "$N"); do
	mkdir -p "$(folder "$k")" && "$SBX" init "$(folder "$k")" >/dev/null 2>&1 || break
	FOLDER=$(folder "$k") setup_task
	FOLDER=$(folder "$k") set_limits '{"hook_wait_seconds": 1}'
done
start_all && stop_daemon
start_all
ok $? "sbxd --all serves the $N folders"
open=0
for k in $(seq "$N"); do db_open "$k" && open=$((open + 1)); done
is "$open" "0" "each was left idle: no database open"

kill -STOP "$DPID"
flood "$(folder 1)/.sandbox/queue/delivered"
f=$(folder 2)
(cd "$f" && bash_payload "./task.sh after-overflow" "$f" | CLAUDE_PROJECT_DIR="$f" "$HOOK" pre \
	>/dev/null)
[ -n "$(ls "$f/.sandbox/queue/new/")" ]
ok $? "a request waits in folder 2's queue/new, its event dropped"
kill -CONT "$DPID"
wait_for 60 grep -q "inotify queue overflow: rescanning every folder" "$T/sbxd.log"
ok $? "sbxd saw the overflow"
wait_for 60 sh -c "'$SBX' -C '$f' pending --json | jq -e 'length > 0' >/dev/null"
ok $? "the rescan claimed folder 2's request"
db_open 2
ok $? "... opening folder 2's database"
! db_open 3 && ! db_open 4
ok $? "the untouched folders stay closed"

# Folder 3 is still served: its next event opens it.
f=$(folder 3)
(cd "$f" && bash_payload "./task.sh later" "$f" | CLAUDE_PROJECT_DIR="$f" "$HOOK" pre >/dev/null)
wait_for 30 sh -c "'$SBX' -C '$f' pending --json | jq -e 'length > 0' >/dev/null"
ok $? "an untouched folder is served at its next event"
unlike "$(cat "$T/sbxd.log")" "TAMPERING|STOPPED" "nothing was refused"
kill -0 "$DPID"
ok $? "sbxd is still running"
done_testing
