#!/usr/bin/env bash
# No execution without an audit record: the decision and approval_consumed
# are committed with the state change (intents) and written to the log
# before anything runs; a crash between the commit and the append loses
# nothing; an audit log that cannot be written (full disk) stops commands
# from starting, and `sbx audit verify` reports records sbxd lost.
. "$(dirname "$0")/lib.sh"

FAULTY="$TOOLS/sbxd-faults"
records() {	# records ID: the events of request ID in the log, in order
	cat "$FOLDER"/.sandbox/audit*.jsonl | jq -r --arg id "$1" 'select(.request == $id) | .event' |
		tr '\n' ' '
}
req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }
start_faulty() {	# start_faulty STEP: an sbxd that kills itself at STEP
	: >"$T/sbxd.log"
	SBX_FAULT=$1 "$FAULTY" "$FOLDER" 2>>"$T/sbxd.log" &
	DPID=$!
	wait_for 10 grep -q serving "$T/sbxd.log"
}
died() { ! kill -0 "$DPID" 2>/dev/null; }

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1}'

# 1. Killed right after the request's row is committed.
start_faulty request-committed
ok $? "the fault build of sbxd starts"
a=$(hook_bash "./task.sh crash-a" | req_id)
wait_for 10 died
ok $? "sbxd is killed between the request's commit and its audit record"
wait "$DPID" 2>/dev/null; DPID=""
unlike "$(records "$a")" "request_received" "the log does not have the request yet"
is "$(sqlite3 -cmd '.timeout 5000' "$FOLDER/.sandbox/state.db" "SELECT count(*) FROM audit_intents")" "1" \
	"state.db holds its record as an intent"
start_daemon
like "$(records "$a")" "^request_received $" "after a restart the record is in the log"
is "$(cat "$FOLDER"/.sandbox/audit.jsonl | jq -r --arg id "$a" 'select(.request == $id) | .data.replayed')" \
	"true" "marked as replayed"
stop_daemon

# 2. Killed right after the decision is committed: the approval is
# consumed, nothing ran, the log has no decision yet.
start_faulty decision-committed
"$SBX" -C "$FOLDER" approve "$a" >/dev/null
wait_for 10 died
ok $? "sbxd is killed between the decision's commit and its audit records"
wait "$DPID" 2>/dev/null; DPID=""
is "$(records "$a")" "request_received " "the log has no decision yet"
is "$(runs)" "0" "nothing ran"
start_daemon
wait_for 10 test -f "$FOLDER/.sandbox/results/$a.json"
ok $? "after a restart the approved request runs"
is "$(records "$a" | sed 's/exec_started.*/exec_started/')" "request_received decision approval_consumed exec_started" \
	"decision and approval_consumed are in the log, before exec_started"
is "$(jq -r .status "$FOLDER/.sandbox/results/$a.json")" "done" "it ran to the end"
is "$(runs)" "1" "once"
"$SBX" -C "$FOLDER" audit verify >"$T/verify.out" 2>&1
ok $? "sbx audit verify: OK"
stop_daemon

# 3. The audit log on a full disk, the database writable.
if [ "$(id -u)" != 0 ]; then
	echo "# SKIP the full-disk part needs root (mount -t tmpfs)"
	done_testing
fi
mkdir -p "$T/afs"
mount -t tmpfs -o size=256k tmpfs "$T/afs" || { echo "# SKIP cannot mount a tmpfs"; done_testing; }
umount_all() { stop_daemon; umount "$FOLDER/.sandbox/audit.jsonl" 2>/dev/null; umount "$T/afs" 2>/dev/null; cleanup; }
trap umount_all EXIT
cp "$FOLDER/.sandbox/audit.jsonl" "$T/afs/audit.jsonl"
mount --bind "$T/afs/audit.jsonl" "$FOLDER/.sandbox/audit.jsonl"
start_daemon
ok $? "sbxd starts with its audit log on a small tmpfs"
dd if=/dev/zero of="$T/afs/fill" bs=4k 2>/dev/null
# The log's last page may still take a few records: bad files in the
# queue (each one a file_rejected record) until one cannot be written.
for i in $(seq 1 40); do
	grep -q "could not be written" "$T/sbxd.log" && break
	echo junk >"$FOLDER/.sandbox/queue/new/junk$i.json"
	sleep 0.2
done
wait_for 10 grep -q "could not be written" "$T/sbxd.log"
ok $? "the audit log is full: sbxd says records could not be written"
b=$(hook_bash "./task.sh disk-full" | req_id)
wait_for 10 has_pending
ok $? "a request is pending while the log is full"
"$SBX" -C "$FOLDER" approve "$b" >/dev/null
wait_for 10 grep -q "request $b: approved, NOT started" "$T/sbxd.log"
ok $? "sbxd refuses to start it and says why"
# An agent event (PostToolUse) whose record cannot be written: its file
# stays in queue/events, to be recorded later, never dropped.
jq -cn --arg cwd "$FOLDER" '{session_id: "s-full", cwd: $cwd, hook_event_name: "PostToolUse",
	tool_name: "Bash", tool_input: {command: "true"}, tool_response: {}, tool_use_id: "t-full"}' |
	CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" post >/dev/null
wait_for 10 grep -q "cannot write an audit record for event" "$T/sbxd.log"
ok $? "an agent event that cannot be logged: sbxd says so"
ls "$FOLDER/.sandbox/queue/events/" | grep -q '\.json$'
ok $? "and keeps its file"
sleep 2
is "$(runs)" "1" "the command did not run while its approval could not be logged"
[ ! -e "$FOLDER/.sandbox/results/$b.json" ]
ok $? "and no result claims it did"
wait_for 10 bash -c "[ \"\$(sqlite3 -cmd '.timeout 5000' $FOLDER/.sandbox/state.db 'SELECT count FROM audit_failures')\" -ge 1 ]"
ok $? "state.db counts the record sbxd could not write"
"$SBX" -C "$FOLDER" audit verify >"$T/verify.out" 2>&1
[ $? -ne 0 ]
ok $? "sbx audit verify fails"
like "$(cat "$T/verify.out")" "could not write [0-9]+ record" "and says records are missing"
"$SBX" -C "$FOLDER" audit verify --json >"$T/verify.json" 2>/dev/null
like "$(jq -r .waiting_intents "$T/verify.json")" "^[1-9]" "verify --json counts the records still waiting as intents"
rm -f "$T/afs/fill"
wait_for 15 test -f "$FOLDER/.sandbox/results/$b.json"
ok $? "with space again, the approved command starts"
is "$(jq -r .status "$FOLDER/.sandbox/results/$b.json")" "done" "and finishes"
is "$(runs)" "2" "it ran once"
is "$(records "$b" | sed 's/exec_started.*/exec_started/')" "request_received decision approval_consumed exec_started" \
	"its request, decision and approval_consumed reached the log before it started"
# Intents go from state.db once the log is synced (within a second).
wait_for 5 bash -c "[ \"\$($SBX -C $FOLDER audit verify --json 2>/dev/null | jq -r .waiting_intents)\" = 0 ]"
ok $? "no intent is left waiting"
stop_daemon
start_daemon
wait_for 10 grep -q '"s-full"' "$FOLDER/.sandbox/audit.jsonl"
ok $? "the kept event is recorded on the next start"

done_testing
