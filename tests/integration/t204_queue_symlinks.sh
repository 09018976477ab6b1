#!/usr/bin/env bash
# results/ and pending/ swapped for symlinks to a directory outside the
# folder while sbxd runs: sbxd and its executor open every queue
# directory with O_NOFOLLOW | O_DIRECTORY relative to the folder, so
# nothing is written through them (checked from outside), the refusal is
# logged at once, and sbxd stops serving the folder.
. "$(dirname "$0")/lib.sh"

SB="$FOLDER/.sandbox"
OUT="$T/outside"
mkdir -m 700 "$OUT"
req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }
no_children() { [ -z "$(pgrep -P "$DPID")" ]; }

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1}'
start_daemon

# 1. A command runs; while it runs, results/ becomes a symlink. The
# executor writes the output when the command ends: not through it.
a=$(hook_bash "./task.sh sleep 4" | req_id)
[ -n "$a" ]
ok $? "a request is queued"
wait_for 10 known "$a"
"$SBX" -C "$FOLDER" approve "$a" >/dev/null
wait_for 30 grep -q "run sleep 4" "$FOLDER/runs.log"
ok $? "the command runs"
mv "$SB/results" "$T/results.real"
ln -s "$OUT" "$SB/results"
wait_for 30 grep -q "STOPPED SERVING" "$T/sbxd.log"
ok $? "sbxd stops serving the folder at once (inotify), and says so"
like "$(grep "STOPPED SERVING" "$T/sbxd.log")" "results was removed, replaced or is a symlink" \
	"naming results/"
wait_for 60 no_children
ok $? "the executor finishes"
is "$(ls -A "$OUT")" "" "nothing was written through the results/ symlink"
[ ! -e "$T/results.real/$a.json" ] || [ "$(jq -r .id "$T/results.real/$a.json")" = "$a" ]
ok $? "(whatever was written went to the real results/)"
stop_daemon

# 2. Restored, then pending/ swapped while sbxd is stopped: sbxd refuses
# to start serving the folder, and writes nothing through it.
rm "$SB/results"
mv "$T/results.real" "$SB/results"
mv "$SB/pending" "$T/pending.real"
ln -s "$OUT" "$SB/pending"
bash_payload "./task.sh two" | CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre >/dev/null 2>&1
: >"$T/sbxd.log"
"$SBXD" "$FOLDER" 2>>"$T/sbxd.log" &
DPID=$!
wait_for 30 sh -c "! kill -0 $DPID 2>/dev/null || grep -q 'pending' '$T/sbxd.log'"
like "$(cat "$T/sbxd.log")" "pending|changed while sbxd opened it" "sbxd will not serve the folder, and says so"
stop_daemon
is "$(ls -A "$OUT")" "" "nothing was claimed into the pending/ symlink"
rm "$SB/pending"
mv "$T/pending.real" "$SB/pending"

# 3. Swapped between two events (sbxd stopped, then both queued): the
# claim of a new request into pending/ is refused, and logged.
start_daemon
ok $? "sbxd serves the restored folder"
kill -STOP "$DPID"
bash_payload "./task.sh three" >"$T/p3.json"
CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre <"$T/p3.json" >/dev/null 2>&1 &
hp=$!
wait_for 30 sh -c "ls '$SB/queue/new' | grep -q json"
mv "$SB/pending" "$T/pending.real"
ln -s "$OUT" "$SB/pending"
kill -CONT "$DPID"
wait_for 30 grep -q "STOPPED SERVING" "$T/sbxd.log"
ok $? "sbxd stops serving the folder"
# Which wall speaks first depends on event order: sbxd watches .sandbox
# (the swap) and queue/new (the request). Either the claim's open refused
# the symlink, or the swap was seen first; both say so, neither follows it.
like "$(cat "$T/sbxd.log")" "TAMPERING: pending .*refused to follow it|pending was removed, replaced or is a symlink" \
	"the claim was refused (by the open, or by the swap seen first), and said so"
wait "$hp" 2>/dev/null
is "$(ls -A "$OUT")" "" "nothing was claimed into the pending/ symlink"
stop_daemon
rm "$SB/pending"
mv "$T/pending.real" "$SB/pending"
done_testing
