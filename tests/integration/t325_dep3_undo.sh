#!/usr/bin/env bash
# The way back from deployment 3: `sbx handover --undo` (as root) gives the
# folder to its owner A alone again. It refuses while B's sbxd serves the
# folder, follows nothing A planted, and loses nothing: B's .sandbox, with
# its state.db, audit log and results, is kept unchanged and still B's, and
# moved back as root it serves B again with its history. A's own sbxd then
# serves the folder and the loop works as A. `sbx remove --purge` refuses a
# handed-over folder.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dep3lib.sh"

S="$FOLDER/.sandbox"
dep3_setup || { sed 's/^/#   /' "$T/init.out" "$T/handover.out"; exit 1; }
dep3_task
start_daemon_b
ok $? "(B's sbxd serves the handed-over folder)"
hook_a "./task.sh before" >"$T/hook.out" &
HPID=$!
wait_for 20 has_pending_b
id=$(pending_b | head -1)
as_b "$SBX" -C "$FOLDER" approve "$id" >/dev/null 2>&1
wait "$HPID"
like "$(reason <"$T/hook.out")" "ran-as $UB" "(one request approved and run as B: history to keep)"
ino=$(stat -c %i "$S")

out=$(as_a "$SBX" handover --undo "$FOLDER" 2>&1)
ok $(( ! $? )) "--undo as the agent's user fails"
like "$out" "as root" "and says it needs root"
out=$("$SBX" handover --undo "$FOLDER" 2>&1)
ok $(( ! $? )) "--undo while B's sbxd serves the folder fails"
like "$out" "sbxd \(pid $DPID\) serves" "and says which sbxd serves it"
is "$(stat -c '%i %U' "$S")" "$ino $UB" "and leaves .sandbox as it was"
# B's sbxd --all, restarted after a clean stop: the folder it left idle
# is served from its idle record (lazily), and its lock is still held.
stop_daemon
: >"$T/sbxd.log"
as_exec "$UB" "$SBXD" --all 2>>"$T/sbxd.log" &
DPID=$!
wait_for 10 grep -q "\[$FOLDER\] serving" "$T/sbxd.log"
out=$("$SBX" handover --undo "$FOLDER" 2>&1)
ok $(( ! $? )) "--undo while B's sbxd --all serves the idle folder fails"
like "$out" "sbxd \(pid $DPID\) serves" "and says so"
out=$("$SBX" remove --purge --yes "$FOLDER" 2>&1)
ok $(( ! $? )) "sbx remove --purge (as root) refuses a handed-over folder"
like "$out" "handover --undo" "and points to the way back"
test -f "$S/audit.jsonl" && test -f "$S/state.db"
ok $? "the log and state.db are still there"
out=$("$SBX" handover --undo --daemon-user "$UB" "$FOLDER" 2>&1)
is "$?" 2 "--undo with --daemon-user is a usage error"
stop_daemon
sum() { (cd "$1" && sha256sum state.db audit.jsonl "results/$id.json" | cut -c1-64 | tr '\n' ' '); }
before=$(sum "$S")

# A holds a shared lock on sbxd.lock (its hooks may read that file): the
# undo cannot tell that from an sbxd starting, waits a moment, then says so.
as_exec "$UA" flock -s -o "$S/sbxd.lock" sleep 60 &
LPID=$!
wait_for 10 grep -q ":$(stat -c %i "$S/sbxd.lock") " /proc/locks
ok $? "(A holds a shared lock on sbxd.lock)"
out=$("$SBX" handover --undo "$FOLDER" 2>&1)
ok $(( ! $? )) "--undo while a process holds sbxd.lock fails"
like "$out" "is held" "and says so"
kill "$LPID" 2>/dev/null
wait "$LPID" 2>/dev/null
# A replaces .sandbox with a symlink to B's tree: never followed.
as_a sh -c "mv '$S' '$FOLDER/.sb-of-b' && ln -s .sb-of-b '$S'"
out=$("$SBX" handover --undo "$FOLDER" 2>&1)
ok $(( ! $? )) "--undo refuses a .sandbox the agent's user made a symlink"
test -L "$S" && test -d "$FOLDER/.sb-of-b/results"
ok $? "and moves nothing"
as_a sh -c "rm '$S' && mv '$FOLDER/.sb-of-b' '$S'"
# A plants .sandbox.handed-over as a symlink to a directory of its own:
# the undo never moves B's tree through it.
as_a mkdir "$T/home-a/catch"
as_a ln -s "$T/home-a/catch" "$FOLDER/.sandbox.handed-over"

"$SBX" handover --undo "$FOLDER" >"$T/undo.out" 2>&1
ok $? "--undo as root, B's sbxd stopped, succeeds"
[ $? -eq 0 ] || sed 's/^/#   /' "$T/undo.out"
A="$FOLDER/.sandbox.handed-over.2"
is "$(stat -c '%i %U' "$A")" "$ino $UB" "B's .sandbox is kept, B's, as .sandbox.handed-over.2 (the planted name taken)"
is "$(ls -A "$T/home-a/catch")" "" "nothing went through A's symlink"
is "$(sum "$A")" "$before" "its state.db, audit log and result are unchanged"
is "$(stat -c '%U %a' "$A/state.db" "$A/audit.jsonl" | tr '\n' ' ')" "$UB 600 $UB 600 " \
	"and still B's only"
as_a sh -c "cat '$A/audit.jsonl' || rm -rf '$A'" >/dev/null 2>&1
test -f "$A/audit.jsonl"
ok $? "A can neither read nor remove B's log"
is "$(stat -c '%U %a' "$S")" "$UA 700" "the folder's .sandbox is A's own again (from before the handover)"
test ! -e "$S/users"
ok $? "with no users file"
grep -qxF "$FOLDER" "$CONF_B/folders" 2>/dev/null
ok $(( ! $? )) "the folder is out of B's registry (sbxd --all)"
like "$(cat "$T/undo.out")" "next, as $UA" "the undo says what A does next"
out=$("$SBX" handover --undo "$FOLDER" 2>&1)
ok $(( ! $? )) "a second --undo fails"
like "$out" "not handed over" "and says there is nothing to undo"

# A alone: its own sbxd, its own approval, the command runs as A.
as_a sh -c 'p="$1/.sandbox/policy.json"
	jq ".escalate = ((.escalate // []) + [\"Bash(./task.sh:*)\"])" "$p" >"$HOME/p.new" &&
	cat "$HOME/p.new" >"$p" && "$2" -C "$1" policy accept' sh "$FOLDER" "$SBX" >/dev/null 2>&1
: >"$T/sbxd.log"
chmod 0666 "$T/sbxd.log"
as_exec "$UA" "$SBXD" "$FOLDER" 2>>"$T/sbxd.log" &
DPID=$!
wait_for 10 grep -q serving "$T/sbxd.log"
ok $? "A's own sbxd serves the folder"
hook_a "./task.sh after" >"$T/hook2.out" &
HPID=$!
pending_a() { as_a "$SBX" -C "$FOLDER" pending --json 2>/dev/null | jq -r '.[].id'; }
has_pending_a() { [ -n "$(pending_a)" ]; }
wait_for 20 has_pending_a
id2=$(pending_a | head -1)
as_a "$SBX" -C "$FOLDER" approve "$id2" >/dev/null 2>&1
wait "$HPID"
like "$(reason <"$T/hook2.out")" "ran-as $UA" "A approves, and the command runs as A"
stop_daemon

# Nothing was lost: moved back as root, B's tree serves B with its history.
mv "$S" "$FOLDER/.sandbox.of-a"
mv "$A" "$S"
"$SBX" handover --daemon-user "$UB" "$FOLDER" >"$T/again.out" 2>&1
like "$(cat "$T/again.out")" "already" "moved back, it is handed over to B (handover says: already)"
as_b "$SBX" -C "$FOLDER" audit verify >"$T/verify.out" 2>&1
ok $? "B's audit log verifies"
like "$(as_b "$SBX" -C "$FOLDER" show "$id" 2>&1)" "before" "and B's history shows the request approved before the undo"
start_daemon_b
ok $? "B's sbxd serves it again"
done_testing
