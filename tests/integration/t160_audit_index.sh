#!/usr/bin/env bash
# `sbx audit show --request ID` through the index sbxd keeps in state.db:
# the same records as a full scan, across segments; a damaged, stale or
# missing index never changes the answer; sbxd rebuilds a missing index.
. "$(dirname "$0")/lib.sh"

SB="$FOLDER/.sandbox"
start() {
	: >"$T/sbxd.log"
	"$SBXD" --audit-segment-bytes 8192 "$FOLDER" 2>>"$T/sbxd.log" &
	DPID=$!
	wait_for 10 grep -q serving "$T/sbxd.log"
}
post() {
	local i
	for i in $(seq "$1"); do
		jq -cn --arg cwd "$FOLDER" --arg c "echo event $i $RANDOM" \
			'{session_id: "sess-i", cwd: $cwd, hook_event_name: "PostToolUse",
			  tool_name: "Bash", tool_input: {command: $c},
			  tool_response: {interrupted: false}, tool_use_id: "toolu_i"}' |
			"$HOOK" post >/dev/null
	done
}
run_req() {	# run_req ARG: one approved request; prints its id
	local hp id
	hook_bash "./task.sh $1" >"$T/out" &
	hp=$!
	wait_for 10 has_pending
	id=$(pending_ids)
	"$SBX" -C "$FOLDER" approve "$id" >/dev/null
	wait "$hp"
	echo "$id"
}
# full ID: the records of ID by a scan of the whole log (no --request)
full() { "$SBX" -C "$FOLDER" audit show | awk -v id="$1" '$5 == id'; }
shown() { "$SBX" -C "$FOLDER" audit show --request "$1"; }
rows() { sqlite3 -cmd '.timeout 5000' "$SB/state.db" "select count(*) from audit_index where request = '$1'"; }
delivered() { [ -f "$SB/done/$1.json" ]; }

init_folder
setup_task
set_limits '{"hook_wait_seconds": 20}'
start
A=$(run_req one)
post 8
B=$(run_req two)
post 8
C=$(run_req three)
wait_for 15 delivered "$A"
wait_for 15 delivered "$C"
stop_daemon
start
stop_daemon

nseg=$(ls "$SB"/audit.[0-9]*.jsonl 2>/dev/null | wc -l)
[ "$nseg" -ge 2 ]
ok $? "the log spans several segments ($nseg rotated)"
for id in "$A" "$B" "$C"; do
	want=$(full "$id")
	[ "$(printf '%s\n' "$want" | wc -l)" -ge 4 ]
	ok $? "request $id has its records in the log"
	[ "$(rows "$id")" -ge 4 ]
	ok $? "sbxd indexed them in state.db"
	is "$(shown "$id")" "$want" "audit show --request $id answers from the index, same as a full scan"
done
is "$(shown "${A:0:12}")" "$(full "$A")" "a prefix of the id finds the same records"
n=$("$SBX" -C "$FOLDER" audit show --request "$B" --json | jq length)
is "$n" "$(full "$B" | wc -l)" "--json gives the same records"
like "$(shown ffffffffffffffff)" "no records match" "an id with no records: none"

# Hostile or damaged index: the answer stays the log's.
sqlite3 -cmd '.timeout 5000' "$SB/state.db" "update audit_index set off = off + 7 where request = '$A'"
is "$(shown "$A")" "$(full "$A")" "an index pointing into the middle of lines is not trusted"
sqlite3 -cmd '.timeout 5000' "$SB/state.db" "update audit_index set (seg, off, len) = (select seg, off, len from
	audit_index where request = '$B' limit 1) where request = '$C'"
is "$(shown "$C")" "$(full "$C")" "an index pointing at another request's records is not trusted"
sqlite3 -cmd '.timeout 5000' "$SB/state.db" "delete from audit_index where request = '$B';
	update audit_index_state set seq = 1, seg = 1, off = 0"
is "$(shown "$B")" "$(full "$B")" "a lagging index: the unindexed tail is scanned"
sqlite3 -cmd '.timeout 5000' "$SB/state.db" "drop table audit_index; drop table audit_index_state"
is "$(shown "$A")" "$(full "$A")" "no index at all: a full scan"

start
ok $? "sbxd starts without an index"
stop_daemon
[ "$(rows "$A")" -ge 4 ] && [ "$(rows "$C")" -ge 4 ]
ok $? "and rebuilds it from the log"
is "$(shown "$C")" "$(full "$C")" "the rebuilt index answers the same"
"$SBX" -C "$FOLDER" audit verify >/dev/null
ok $? "the log still verifies"

# The streaming reader in pieces (segments above 64 MiB; forced here by
# the test-only knob, with 100-byte pieces: every record crosses pieces)
# gives the same answers as the mapped one.
is "$(SBX_TEST_AUDIT_READ=100 "$SBX" -C "$FOLDER" audit verify --json | jq -c '{ok, records}')" \
	"$("$SBX" -C "$FOLDER" audit verify --json | jq -c '{ok, records}')" \
	"verify in pieces agrees with verify mapped"
is "$(SBX_TEST_AUDIT_READ=100 "$SBX" -C "$FOLDER" audit show | md5sum)" \
	"$("$SBX" -C "$FOLDER" audit show | md5sum)" "so does show"
# A record altered in the middle of a segment: the same place reported.
seg=$(ls "$SB"/audit.[0-9]*.jsonl | sort | tail -1)
sed -i '3s/"actor":"daemon"/"actor":"d4emon"/' "$seg"
a=$(SBX_TEST_AUDIT_READ=100 "$SBX" -C "$FOLDER" audit verify --json | jq -c '{ok, kind, segment, line}')
b=$("$SBX" -C "$FOLDER" audit verify --json | jq -c '{ok, kind, segment, line}')
like "$a" '"ok":false' "an altered record is found reading in pieces"
is "$a" "$b" "at the same segment and line as mapped"
done_testing
