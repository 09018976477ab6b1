#!/usr/bin/env bash
# An agent that fills sbxd's inotify queue cannot make it miss a request or
# a decision, nor run one twice: when the kernel drops events
# (IN_Q_OVERFLOW) sbxd rescans every folder, and a request is claimed by
# rename, once. sbxd is frozen (SIGSTOP) while the queue is filled past
# fs.inotify.max_queued_events, so the events of what comes after are
# dropped for sure: only the rescan can find it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/evlib.sh"

command -v python3 >/dev/null || skip_all "python3 is needed to flood the queue"
max=$(cat /proc/sys/fs/inotify/max_queued_events 2>/dev/null)
[ -n "$max" ] || skip_all "no /proc/sys/fs/inotify/max_queued_events"
[ "$max" -le 200000 ] || skip_all "max_queued_events is $max: too many files to flood"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1}'
start_daemon
ok $? "sbxd starts"

# flood DIR: max + 100 files created (and removed): one event each, more
# than the kernel queues. Junk names, as a hostile agent would choose.
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
req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }

kill -STOP "$DPID"
flood "$FOLDER/.sandbox/queue/delivered"
# The hook queues while sbxd is frozen (it holds the folder's lock).
a=$(hook_bash "./task.sh after-overflow" | req_id)
[ -n "$a" ] && [ -e "$FOLDER/.sandbox/queue/new/$a.json" ]
ok $? "a request waits in queue/new, its event dropped"
kill -CONT "$DPID"
wait_for 60 grep -q "inotify queue overflow: rescanning every folder" "$T/sbxd.log"
ok $? "sbxd saw the overflow and says it rescans"
wait_for 60 sh -c "'$SBX' -C '$FOLDER' pending --json | jq -r '.[].id' | grep -qx $a"
ok $? "the rescan claimed the request"

# Again, with a decision whose event is dropped.
kill -STOP "$DPID"
flood "$FOLDER/.sandbox/queue/delivered"
"$SBX" -C "$FOLDER" approve "$a" >/dev/null
ok $? "approved while sbxd is frozen and its queue full"
kill -CONT "$DPID"
wait_for 60 test -f "$FOLDER/.sandbox/results/$a.json"
ok $? "the rescan found the decision and the command ran"
is "$(jq -r .status "$FOLDER/.sandbox/results/$a.json")" "done" "its result says done"
# Flood once more and let sbxd rescan everything again: nothing runs twice.
kill -STOP "$DPID"
flood "$FOLDER/.sandbox/decisions/new"
kill -CONT "$DPID"
wait_for 60 sh -c "[ \$(grep -c 'inotify queue overflow' '$T/sbxd.log') -ge 3 ]"
ok $? "a third overflow, a third rescan"
if can_see_sleep; then
	wait_for 60 sleeping "$DPID"
	ok $? "then sbxd sleeps again (no spinning on what the flood left)"
else
	ok 0 "# SKIP this machine does not show the syscall a process sleeps in"
fi
is "$(runs)" "1" "the approved command ran exactly once"
is "$(grep -c "^run after-overflow" "$FOLDER/runs.log")" "1" "... and it was this one"
kill -0 "$DPID"
ok $? "sbxd is still serving"

stop_daemon
done_testing
