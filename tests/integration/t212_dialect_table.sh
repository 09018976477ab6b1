#!/usr/bin/env bash
# The hook's dialect table: every entry (pre, codex, cursor, gemini) goes
# through the one hook_run() and keeps its own answers. Checked from
# outside: the deadline's answer (SIGALRM while the hook waits for a
# human) is a deny in the dialect's own shape with exit 0; the same bad
# input gets the same reason in each dialect's shape; a mode that is not
# in the table is a usage error (exit 2, which blocks in Claude Code).
. "$(dirname "$0")/lib.sh"

init_folder
cd "$FOLDER" || exit 1
set_limits '{"hook_wait_seconds": 30}'
start_daemon

in_pre() { bash_payload "$1"; }
in_codex() {
	jq -cn --arg c "$1" --arg cwd "$FOLDER" '{session_id: "s", hook_event_name:
	    "PreToolUse", tool_name: "Bash", tool_input: {command: $c}, cwd: $cwd,
	    tool_use_id: "c"}'
}
in_cursor() {
	jq -cn --arg c "$1" --arg cwd "$FOLDER" '{hook_event_name: "beforeShellExecution",
	    conversation_id: "c", generation_id: "g", command: $c, cwd: $cwd,
	    workspace_roots: [$cwd]}'
}
in_gemini() {
	jq -cn --arg c "$1" --arg cwd "$FOLDER" '{hook_event_name: "BeforeTool",
	    tool_name: "run_shell_command", tool_input: {command: $c}, cwd: $cwd,
	    session_id: "s"}'
}
# the deny reason in each dialect's answer, "" when it is not a deny
deny_of() {
	case $1 in
	pre|codex) jq -r 'select(.hookSpecificOutput.permissionDecision == "deny")
	    | .hookSpecificOutput.permissionDecisionReason' ;;
	cursor) jq -r 'select(.permission == "deny") | .agent_message' ;;
	gemini) jq -r 'select(.decision == "deny") | .reason' ;;
	esac
}

# 1. The deadline: the hook waits for a human; its alarm answers for it.
for d in pre codex cursor gemini; do
	before=$("$SBX" -C "$FOLDER" pending --json | jq length)
	"in_$d" "git push origin $d" >"$T/in.$d"
	CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" "$d" <"$T/in.$d" >"$T/out.$d" &
	hp=$!
	wait_for 10 bash -c "[ \$($SBX -C $FOLDER pending --json | jq length) -gt $before ]"
	ok $? "$d: the call is pending, the hook waits"
	sleep 0.2
	kill -ALRM $hp
	wait $hp
	is "$?" "0" "$d: the alarm's answer exits 0"
	is "$(wc -l <"$T/out.$d" | tr -d ' ')" "1" "$d: exactly one answer line"
	like "$(deny_of $d <"$T/out.$d")" "ran out of time; the call was not run" \
		"$d: the alarm's answer is a deny in the $d dialect"
done
jq -e '.hookSpecificOutput.hookEventName == "PreToolUse"' "$T/out.codex" >/dev/null
ok $? "codex: the overrun answer has Claude Code's layout"
jq -e '.user_message == "sbx: the hook ran out of time"' "$T/out.cursor" >/dev/null
ok $? "cursor: the overrun answer has a short user_message"

# 2. One preamble: the same bad input, the same reason, each its own shape.
printf '{"hook_event_name":"x","a":1,"a":2}' >"$T/dup"
for d in pre codex cursor gemini; do
	out=$("$HOOK" "$d" <"$T/dup")
	is "$?" "0" "$d: a duplicate key: exit 0"
	is "$(deny_of $d <<<"$out")" "sbx: the hook input is not strict JSON (a duplicate key \"a\"), which sbx cannot judge safely; the call was not run." \
		"$d: the one strict-parse reason"
done
printf '[1]' >"$T/arr"
for d in pre codex cursor gemini; do
	is "$("$HOOK" "$d" <"$T/arr" | deny_of $d)" \
		"sbx: the hook input is not a JSON object; the call was not run." \
		"$d: not an object: the one reason"
done
: >"$T/empty"
for d in pre codex cursor gemini; do
	like "$("$HOOK" "$d" <"$T/empty" | deny_of $d)" "not a JSON object" "$d: empty input: denied"
done

# 3. Each dialect still refuses the others' events, with its own reason.
like "$(in_gemini ls | "$HOOK" pre | deny_of pre)" 'sbx-hook pre got event "BeforeTool"' \
	"pre: a Gemini payload is refused"
like "$(in_pre ls | "$HOOK" gemini | deny_of gemini)" "handles BeforeTool only" \
	"gemini: a Claude Code payload is refused"
like "$(in_codex ls | "$HOOK" cursor | deny_of cursor)" 'got event "PreToolUse"' \
	"cursor: a Codex payload is refused"
like "$(in_cursor ls | "$HOOK" codex | deny_of codex)" 'got event "beforeShellExecution"' \
	"codex: a Cursor payload is refused"

# 4. A mode outside the table.
in_pre ls | "$HOOK" claude >/dev/null 2>"$T/err"
is "$?" "2" "an unknown mode: exit 2"
like "$(cat "$T/err")" "usage: sbx-hook" "and the usage"

done_testing
