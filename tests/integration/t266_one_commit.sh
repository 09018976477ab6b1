#!/usr/bin/env bash
# A request a remembered rule runs at once is marked started in the
# transaction that records it (daemon/run.h, run_start_marked): between
# the claim and the hand-over to the executor sbxd makes two syncs, that
# commit and the audit log's (three before: the started commit was one
# more). Counted from outside with strace. And the mark is undone when
# the command cannot start: with its audit log full, the request is not
# run, waits (started 0) and runs once the log can be written, once.
. "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || skip_all "strace is not installed"
records() { cat "$FOLDER"/.sandbox/audit*.jsonl | jq -r --arg id "$1" 'select(.request == $id) | .event' | tr '\n' ' '; }
req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }
started() { sqlite3 "$FOLDER/.sandbox/state.db" "SELECT status || ' ' || started FROM requests WHERE id = '$1'"; }

init_folder
setup_task
set_limits '{"hook_wait_seconds": 30}'
start_daemon
# A remembered approval for `./task.sh again`.
(hook_bash "./task.sh again" >/dev/null) &
HP=$!
wait_for 10 has_pending
"$SBX" -C "$FOLDER" approve "$(pending_ids | head -1)" --remember >/dev/null
wait $HP
is "$(runs)" "1" "the first call ran once, approved by a human (remembered)"
sleep 1

# 1. The syncs of sbxd itself from the claim (rename out of queue/new)
# to the hand-over (the run sent to the spare, or the direct fork).
strace -qq -o "$T/d.st" -e trace=renameat2,fsync,fdatasync,sendmsg,clone,fork,vfork -p "$DPID" &
SP=$!
wait_traced "$SP" "$DPID" || skip_all "strace cannot attach to sbxd here"
like "$(hook_bash "./task.sh again" | reason)" "remembered approval" "the second call runs through the rule"
sleep 1
kill "$SP"
wait "$SP" 2>/dev/null
n=$(awk '/renameat2\(/ && /RENAME_NOREPLACE/ && !s {s = 1; next}
	s && /(sendmsg|clone|fork)\(/ {exit} s && /(fsync|fdatasync)\(/ {n++} END {print n + 0}' "$T/d.st")
is "$n" "2" "two syncs between the claim and the hand-over: the one commit and the audit log's"
is "$(runs)" "2" "it ran once"

# 2. The audit log full: the rule approves, the command does not start,
# the mark is undone (it waits), and it runs when the log has room.
if [ "$(id -u)" != 0 ]; then
	echo "# SKIP the full-disk part needs root (mount -t tmpfs)"
	done_testing
fi
stop_daemon
mkdir -p "$T/afs"
mount -t tmpfs -o size=256k tmpfs "$T/afs" || { echo "# SKIP cannot mount a tmpfs"; done_testing; }
umount_all() { stop_daemon; umount "$FOLDER/.sandbox/audit.jsonl" 2>/dev/null; umount "$T/afs" 2>/dev/null; cleanup; }
trap umount_all EXIT
cp "$FOLDER/.sandbox/audit.jsonl" "$T/afs/audit.jsonl"
mount --bind "$T/afs/audit.jsonl" "$FOLDER/.sandbox/audit.jsonl"
start_daemon
dd if=/dev/zero of="$T/afs/fill" bs=4k 2>/dev/null
for i in $(seq 1 40); do
	grep -q "could not be written" "$T/sbxd.log" && break
	echo junk >"$FOLDER/.sandbox/queue/new/junk$i.json"
	sleep 0.2
done
wait_for 10 grep -q "could not be written" "$T/sbxd.log"
ok $? "the audit log is full"
set_limits '{"hook_wait_seconds": 1}'
b=$(hook_bash "./task.sh again" | req_id)
wait_for 10 grep -q "request $b: approved, NOT started" "$T/sbxd.log"
ok $? "the rule approves it, sbxd does not start it and says why"
is "$(started "$b")" "running 0" "its mark is undone: it waits to run (started 0)"
sleep 1
is "$(runs)" "2" "the command did not run while its approval could not be logged"
rm -f "$T/afs/fill"
wait_for 15 test -f "$FOLDER/.sandbox/results/$b.json"
ok $? "with space again, it starts"
is "$(jq -r .status "$FOLDER/.sandbox/results/$b.json")" "done" "and finishes"
is "$(runs)" "3" "once"
is "$(records "$b" | sed 's/exec_started.*/exec_started/')" "request_received decision exec_started" \
	"its request and decision reached the log before it started"

done_testing
