#!/usr/bin/env bash
# A folder sbxd stops serving (its tree tampered with: a queue directory
# swapped for a symlink, or removed) while it serves others: the hooks
# of that folder answer at once, "sbxd is not serving this folder", with
# sbxd's reason (a deny), instead of waiting out hook_wait_seconds for an
# sbxd that holds the folder's lock but no longer reads its queue. The
# other folders go on being served. No second sbxd takes the folder over
# while the first one lives (its commands may still run there), and it
# says why; once that sbxd stops, a new one serves the restored folder.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 120}'
B="$T/other"
mkdir -p "$B"
"$SBX" init "$B" >/dev/null 2>&1
SB="$FOLDER/.sandbox"
: >"$T/sbxd.log"
"$SBXD" "$FOLDER" "$B" 2>>"$T/sbxd.log" &
DPID=$!
wait_for 10 grep -q "\\[$B\\] serving" "$T/sbxd.log"
ok $? "sbxd serves two folders"
# hook_in DIR CMD: the hook for a Bash call in DIR, at most 60 s (prints its stdout)
hook_in() {
	jq -cn --arg c "$2" --arg cwd "$1" '{session_id: "s", transcript_path: "/dev/null",
		cwd: $cwd, hook_event_name: "PreToolUse", tool_name: "Bash",
		tool_input: {command: $c}, tool_use_id: "t"}' |
		CLAUDE_PROJECT_DIR="$1" timeout 60 "$HOOK" pre
}
stopped_said() { grep -q "STOPPED SERVING THIS FOLDER" "$T/sbxd.log"; }

# 1. A hook waits (up to 120 s) for a request; the agent swaps results/
# for a symlink. sbxd refuses to follow it and drops the folder; the
# waiting hook is answered at once.
hook_in "$FOLDER" "./task.sh one" >"$T/w.out" &
hp=$!
wait_for 10 has_pending
ok $? "a request is pending, its hook waits"
mv "$SB/results" "$SB/results.real" && ln -s "$SB/results.real" "$SB/results"
wait_for 10 stopped_said
ok $? "sbxd stops serving the tampered folder"
wait "$hp"
rc=$?
[ "$rc" -ne 124 ]
ok $? "the waiting hook answers instead of waiting out its deadline (exit $rc)"
r=$(reason <"$T/w.out")
is "$(decision <"$T/w.out")" "deny" "its answer is a deny"
like "$r" "sbxd is not serving $FOLDER" "it says sbxd is not serving the folder"
like "$r" "stopped serving this folder because .sandbox/results was removed, replaced or is a symlink" \
	"with sbxd's reason"
like "$r" "sbx -C $FOLDER doctor" "and what the user should do"

# 2. A new call in that folder: answered at once, with the reason.
out=$(hook_in "$FOLDER" "./task.sh two")
rc=$?
[ "$rc" -ne 124 ]
ok $? "a new call answers at once (exit $rc)"
like "$(echo "$out" | reason)" "sbxd is not serving $FOLDER.*results was removed" \
	"saying sbxd is not serving the folder, and why"
like "$("$SBX" -C "$FOLDER" doctor 2>&1)" "sbxd \\(pid $DPID\\) stopped serving this folder: .sandbox/results" \
	"sbx doctor says so too"

# 3. The other folder is still served.
hook_in "$B" "sudo true" >"$T/b.out" &
bp=$!
wait_for 10 bash -c "'$SBX' -C '$B' pending --json | jq -e 'length == 1'"
ok $? "the other folder's request is taken in"
kill "$bp" 2>/dev/null
wait "$bp" 2>/dev/null

# 4. No second sbxd takes the dropped folder over while the first lives.
out=$("$SBXD" "$FOLDER" 2>&1)
rc=$?
is "$rc" "2" "a second sbxd for the dropped folder refuses to start"
like "$out" "held by sbxd pid $DPID, which stopped serving it \\(.sandbox/results" \
	"and says which sbxd holds it, and why"
kill -0 "$DPID"
ok $? "the first sbxd still runs (it serves the other folder)"

# 5. Restored, and that sbxd stopped: a new one serves the folder.
stop_daemon
rm "$SB/results" && mv "$SB/results.real" "$SB/results"
start_daemon
ok $? "a new sbxd serves the restored folder"
wait_for 10 bash -c "'$SBX' -C '$FOLDER' pending --json | jq -e 'length == 2'"
ok $? "and takes in the requests queued meanwhile"
out=$(bash_payload './task.sh one' | CLAUDE_PROJECT_DIR="$FOLDER" timeout 5 "$HOOK" pre)
unlike "$(echo "$out" | reason)" "not serving" "hooks no longer say it is not served"

# 6. A missing queue directory drops the folder the same way.
rmdir "$SB/queue/events"
wait_for 10 bash -c "grep -c 'STOPPED SERVING' '$T/sbxd.log' | grep -q 1 && grep -q 'queue/events' '$T/sbxd.log'"
ok $? "a removed queue/events drops the folder"
out=$(hook_in "$FOLDER" "./task.sh three")
rc=$?
[ "$rc" -ne 124 ]
ok $? "its hooks answer at once (exit $rc)"
like "$(echo "$out" | reason)" "not serving $FOLDER.*queue/events was removed" "with the reason"
is "$(runs)" 0 "nothing ran"

done_testing
