#!/usr/bin/env bash
# The chain continues across daemon restarts (clean and killed) and
# rotations into segments; verification spans them all.
. "$(dirname "$0")/lib.sh"

SB="$FOLDER/.sandbox"
LOG="$SB/audit.jsonl"

# post N: N PostToolUse events through the real hook.
post() {
	local i
	for i in $(seq "$1"); do
		jq -cn --arg cwd "$FOLDER" --arg c "echo event $i $RANDOM" \
			'{session_id: "sess-r", cwd: $cwd, hook_event_name: "PostToolUse",
			  tool_name: "Bash", tool_input: {command: $c},
			  tool_response: {interrupted: false}, tool_use_id: "toolu_r"}' |
			"$HOOK" post >/dev/null
	done
}
start() {
	: >"$T/sbxd.log"
	"$SBXD" --audit-segment-bytes 8192 "$FOLDER" 2>>"$T/sbxd.log" &
	DPID=$!
	wait_for 30 grep -q serving "$T/sbxd.log"
}
# all_records: every segment in order, then the active one.
all_records() { cat $(ls "$SB"/audit.[0-9]*.jsonl 2>/dev/null | sort) "$LOG"; }
events_seen() { [ "$(all_records | grep -c '"event":"post_tool_use"')" -ge "$1" ]; }

init_folder
setup_task
set_limits '{"hook_wait_seconds": 20}'
start
ok $? "sbxd starts with a small segment size"
post 10
wait_for 30 events_seen 10
ok $? "events arrive"
stop_daemon
start
post 10
wait_for 30 events_seen 20
# A request in between, approved.
hook_bash "./task.sh between" >"$T/out" &
hp=$!
wait_for 10 has_pending
"$SBX" -C "$FOLDER" approve "$(pending_ids)" >/dev/null
wait "$hp"
# The hook has the result once the executor wrote it; sbxd records the
# run when it reaps the executor, a moment later (longer under load).
wait_for 60 sh -c "cat '$SB'/audit*.jsonl | grep -q '\"event\":\"exec_finished\"'"
# Killed: no stop record, no final checkpoint.
kill -9 "$DPID"
wait "$DPID" 2>/dev/null
DPID=""
start
ok $? "sbxd restarts after being killed"
post 15
wait_for 30 events_seen 35
stop_daemon
start
stop_daemon

segs=$(ls "$SB"/audit.[0-9]*.jsonl 2>/dev/null | wc -l)
[ "$segs" -ge 2 ]
ok $? "the log rotated into numbered segments ($segs)"
is "$(all_records | jq -s '[.[].seq] == [range(1; length + 1)]')" "true" \
	"sequence numbers run on across restarts and segments"
is "$(all_records | jq -s '[range(1; length) as $i | .[$i].prev == .[$i - 1].hash] | all')" "true" \
	"every record links to the one before, across segments"
# The last start had nothing to do (its idle record matched, daemon/idle.h):
# it wrote nothing, neither at start nor at stop.
is "$(all_records | grep -c '"event":"daemon_start"')" "3" "three daemon starts are on record"
is "$(all_records | grep -c '"event":"daemon_stop"')" "2" "two clean stops (one was killed, one had nothing to do)"
first=$(ls "$SB"/audit.[0-9]*.jsonl | sort | sed -n 2p)
prevseg=$(ls "$SB"/audit.[0-9]*.jsonl | sort | sed -n 1p)
head1=$(head -1 "$first")
is "$(echo "$head1" | jq -r .event)" "segment" "a new segment starts with a segment record"
is "$(echo "$head1" | jq -r .data.previous)" "$(basename "$prevseg")" "naming the previous segment"
is "$(echo "$head1" | jq -r .data.previous_last_hash)" "$(tail -1 "$prevseg" | jq -r .hash)" \
	"and carrying its head"
is "$(tail -1 "$prevseg" | jq -r .event)" "checkpoint" "a closed segment ends with a signed checkpoint"
out=$("$SBX" -C "$FOLDER" audit verify 2>&1)
is "$?" 0 "sbx audit verify passes over all segments"
like "$out" "in $((segs + 1)) segments" "and counts them"
is "$(all_records | jq -r 'select(.request != null and .event == "exec_finished") | .data.status')" "done" \
	"the request approved in between is on record"

# Verification spans segments: damage in a closed one is found.
cp "$prevseg" "$T/seg.bak"
sed -i '2s/"actor":"/"actor":"Y/' "$prevseg"
out=$("$SBX" -C "$FOLDER" audit verify 2>&1)
[ $? -ne 0 ]
ok $? "a record altered in a closed segment fails verification"
like "$out" "BROKEN \\(altered\\) at $(basename "$prevseg") line 2" "and names the segment and line"
cp "$T/seg.bak" "$prevseg"
mv "$first" "$T/seg2.bak"
out=$("$SBX" -C "$FOLDER" audit verify 2>&1)
[ $? -ne 0 ]
ok $? "a removed middle segment fails verification"
like "$out" "BROKEN \\(deleted\\)" "as deleted records"
mv "$T/seg2.bak" "$first"

# The evidence bundle carries every segment.
"$SBX" -C "$FOLDER" audit export --evidence "$T/ev" >/dev/null
is "$(grep -ac '^segment ' "$T/ev")" "$((segs + 1))" "the evidence bundle holds every segment"
SBX_CONFIG_DIR="$T/other" "$SBX" audit verify --evidence "$T/ev" >/dev/null 2>&1
ok $? "and verifies elsewhere"

# A torn last line (a crash mid-write) is cut and recorded on restart.
printf '{"seq":999,"time":1,"prev":"00' >>"$LOG"
start
ok $? "sbxd starts over a torn last line"
stop_daemon
is "$(all_records | grep -c '"event":"audit_recovered"')" "1" "and records that it cut it"
"$SBX" -C "$FOLDER" audit verify >/dev/null 2>&1
ok $? "the log verifies after the recovery"

done_testing
