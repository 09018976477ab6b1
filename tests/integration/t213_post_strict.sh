#!/usr/bin/env bash
# sbx-hook post reads the client's PostToolUse report as strictly as every
# other input: a report that is JSON but not strict (a duplicate key, a raw
# control byte) is still recorded, because the tool already ran, and the
# record says why it is suspect; a report that is not JSON is not recorded.
# The hook always answers {} and exit 0 (it cannot stop a tool that ran).
. "$(dirname "$0")/lib.sh"

LOG="$FOLDER/.sandbox/audit.jsonl"
post() {
	local o
	o=$(printf '%s' "$1" | CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" post)
	echo "$o rc=$?"
}
rec() { jq -c 'select(.event == "post_tool_use" and .session == "'"$1"'") | .data' "$LOG"; }

init_folder
start_daemon

# Two tool_name keys: cJSON reads the first (Bash), a client may have run
# the second. Recorded, and marked.
dup='{"session_id":"s-dup","cwd":"'"$FOLDER"'","hook_event_name":"PostToolUse","tool_name":"Bash","tool_name":"Write","tool_input":{"command":"true"},"tool_response":{},"tool_use_id":"t1"}'
is "$(post "$dup")" "{} rc=0" "a duplicate key: the hook answers {} and exit 0"
# A raw control byte inside a string.
ctl=$(printf '{"session_id":"s-ctl","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"a\001b"},"tool_response":{},"tool_use_id":"t2"}' "$FOLDER")
is "$(post "$ctl")" "{} rc=0" "a raw control byte: the same"
# Plain, strict: recorded without the mark.
ok_json='{"session_id":"s-ok","cwd":"'"$FOLDER"'","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"true"},"tool_response":{},"tool_use_id":"t3"}'
is "$(post "$ok_json")" "{} rc=0" "a strict report: {}"
# Not JSON, and a NUL: nothing to record.
is "$(post '{"session_id":"s-bad",')" "{} rc=0" "not JSON: {} and exit 0"
o=$(printf '{"session_id":"s-nul","x":"a\0b"}' | CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" post)
is "$o rc=$?" "{} rc=0" "a NUL byte: {} and exit 0"

wait_for 20 sh -c "grep -q '\"s-dup\"' '$LOG' && grep -q '\"s-ctl\"' '$LOG' && grep -q '\"s-ok\"' '$LOG'"
ok $? "sbxd recorded the three reports it was given"
like "$(rec s-dup | jq -r .input_error)" "duplicate" "the duplicate-key report is marked input_error, naming why"
is "$(rec s-dup | jq -r .tool)" "Bash" "and recorded as the first value reads"
like "$(rec s-ctl | jq -r .input_error)" "control" "the control-byte report is marked"
is "$(rec s-ok | jq -r '.input_error // "none"')" "none" "a strict report carries no mark"
is "$(grep -c '"s-bad"\|"s-nul"' "$LOG")" "0" "reports that are not JSON are not recorded"
is "$(grep -c '"file_rejected"' "$LOG")" "0" "sbxd accepted every event the hook wrote (no file_rejected)"
"$SBX" -C "$FOLDER" audit verify >/dev/null 2>&1
ok $? "the audit log verifies"

done_testing
