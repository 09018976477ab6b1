#!/usr/bin/env bash
# No silent waits: with no sbxd serving the folder, the hook answers at
# once (even with the default 300 s wait) with a deny that names the
# queued request and the command that starts sbxd; SessionStart says the
# same. Once sbxd runs, the queued request is served and the repeated
# call gets its result. An sbxd that dies mid-wait ends the wait too.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
session() {
	jq -cn --arg cwd "$FOLDER" '{session_id: "s", cwd: $cwd, hook_event_name: "SessionStart"}' |
		"$HOOK" session-start | jq -r '.hookSpecificOutput.additionalContext'
}

# Never started: the hook does not wait out hook_wait_seconds (300).
out=$(bash_payload './task.sh nd' | CLAUDE_PROJECT_DIR="$FOLDER" timeout 20 "$HOOK" pre)
rc=$?
[ "$rc" -ne 124 ]
ok $? "with no sbxd the hook answers instead of waiting (exit $rc)"
is "$(echo "$out" | decision)" "deny" "the answer is a deny"
r=$(echo "$out" | reason)
like "$r" "No sbxd is running for $FOLDER" "it says no sbxd runs for the folder"
like "$r" "queued as request [0-9a-f]{16} and will run only after a human approves it" \
	"it says the request is queued, with its id, and runs only after approval"
like "$r" "start it: \`sbxd $FOLDER\`" "it gives the exact command to start sbxd"
id=$(echo "$r" | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
test -f "$FOLDER/.sandbox/queue/new/$id.json"
ok $? "the request is in the queue"
is "$(runs)" 0 "nothing ran"

out=$(bash_payload './task.sh nd' | CLAUDE_PROJECT_DIR="$FOLDER" timeout 20 "$HOOK" pre)
like "$(echo "$out" | reason)" "queued as request $id " "a repeated call attaches to the same request, still without waiting"
is "$(ls "$FOLDER/.sandbox/queue/new" | grep -c json)" 1 "and queues no duplicate"

like "$(session)" "no sbxd is running for $FOLDER.*\`sbxd $FOLDER\`" \
	"SessionStart tells the model that sbxd is down and how to start it"

# A stale lock file from an sbxd that is gone changes nothing.
echo 99999 >"$FOLDER/.sandbox/sbxd.lock"
like "$(hook_bash './task.sh nd' | reason)" "No sbxd is running" "a stale sbxd.lock is not taken for a running sbxd"

# Start sbxd: the queued request is served; the repeated call gets the result.
start_daemon
wait_for 10 has_pending
is "$(pending_ids)" "$id" "sbxd picks up the request queued while it was down"
unlike "$(session)" "no sbxd is running" "SessionStart no longer warns once sbxd runs"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait_for 10 test -f "$FOLDER/.sandbox/results/$id.json"
ok $? "approved, it runs"
out=$(hook_bash './task.sh nd')
like "$(echo "$out" | reason | head -1)" "ALREADY EXECUTED outside the agent as request $id" \
	"the repeated call receives the result"
like "$(echo "$out" | reason)" "out: nd" "with its output"
is "$(runs)" 1 "it ran once"

# sbxd dies while the hook waits: the hook stops waiting.
hook_bash './task.sh wait' >"$T/w.out" &
hp=$!
wait_for 10 has_pending
stop_daemon
timeout 20 tail --pid="$hp" -f /dev/null
ok $? "when sbxd stops during the wait, the hook answers"
wait "$hp"
like "$(reason <"$T/w.out")" "No sbxd is running.*queued as request [0-9a-f]{16}" \
	"and says the request stays queued until sbxd runs"

done_testing
