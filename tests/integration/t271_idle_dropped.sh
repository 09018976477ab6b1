#!/usr/bin/env bash
# Hostile timing: what is dropped into an idle folder while no sbxd
# reads it (sbxd stopped, then killed: its inotify events are lost) is
# handled at the next start, though the folder's idle record (daemon/idle.h)
# was written when it had nothing to do: the drop boxes are part of what
# the record describes (each box's inode and times), so a request, an
# event or a decision that came in since makes the start open the folder
# in full and rescan it. Checked from outside: the request is claimed,
# approved, run once and delivered; the event is in the audit log.
. "$(dirname "$0")/lib.sh"

IDLE="$SBX_CONFIG_DIR/idle"
db_open() { ls -l "/proc/$DPID/fd" 2>/dev/null | grep -q " $FOLDER/.sandbox/state.db\$"; }
post_event() {
	jq -cn --arg cwd "$FOLDER" '{session_id: "sess-d", cwd: $cwd, hook_event_name: "PostToolUse",
		tool_name: "Bash", tool_input: {command: "echo dropped-while-down"},
		tool_response: {interrupted: false}, tool_use_id: "toolu_d"}' | "$HOOK" post >/dev/null
}
# down: sbxd stops reading (SIGSTOP; it still holds the folder's lock, so
# the hook drops its files as for a busy sbxd), then is killed.
freeze() { kill -STOP "$DPID"; }
kill_frozen() { kill -9 "$DPID"; kill -CONT "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null; DPID=""; }

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1}'
start_daemon && stop_daemon
start_daemon
ok $? "sbxd serves the idle folder"
! db_open
ok $? "lazily (its record matched: database not opened)"

# 1. An event (PostToolUse) dropped while sbxd reads nothing.
freeze
post_event
kill_frozen
[ -n "$(ls "$IDLE")" ]
ok $? "the record of the idle folder is still there (sbxd was killed)"
start_daemon
like "$(cat "$T/sbxd.log")" "opened in full: a drop box or pending/ changed" \
	"the record no longer matches: the folder is opened in full"
wait_for 10 grep -q dropped-while-down "$FOLDER/.sandbox/audit.jsonl"
ok $? "the event dropped while sbxd was down is in the audit log after the start"
stop_daemon
start_daemon
! db_open
ok $? "idle again after a clean stop"
# 2. A request dropped while sbxd reads nothing.
freeze
hook_bash "./task.sh dropped" >"$T/out1"
is "$(ls "$FOLDER/.sandbox/queue/new" | wc -l)" "1" "the request waits in queue/new"
kill_frozen
start_daemon
ok $? "sbxd starts again"
like "$(cat "$T/sbxd.log")" "opened in full: a drop box or pending/ changed" \
	"the record no longer matches: the folder is opened in full"
wait_for 10 has_pending
ok $? "the request dropped while sbxd was down is claimed at start"
"$SBX" -C "$FOLDER" approve "$(pending_ids)" >/dev/null
wait_for 30 sh -c "[ \$(ls '$FOLDER/.sandbox/results' | wc -l) -ge 1 ]"
is "$(runs)" "1" "approved and run once"
stop_daemon

"$SBX" -C "$FOLDER" audit verify >/dev/null 2>&1
ok $? "the audit log verifies"

done_testing
