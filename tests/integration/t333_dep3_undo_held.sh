#!/usr/bin/env bash
# `sbx handover --undo` never runs while any process holds the folder's
# sbxd.lock: it cannot tell a lock of the agent's user from an sbxd
# starting or stopping (fail closed). The agent's user A may read that
# file and hold a shared flock on it for as long as it likes; the undo
# then names the holder (pid, user, command, from /proc/locks) and says
# how to go on: root stops that process and runs the undo again, which
# then works. B's sbxd, which cannot start then either, names the holder
# too. Real users (deployment 3).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dep3lib.sh"

S="$FOLDER/.sandbox"
dep3_setup || { sed 's/^/#   /' "$T/init.out" "$T/handover.out"; exit 1; }
ino=$(stat -c %i "$S")

as_exec "$UA" flock -s -o "$S/sbxd.lock" sleep 600 &
LPID=$!
wait_for 10 grep -q " $LPID [0-9a-f:]*:$(stat -c %i "$S/sbxd.lock") " /proc/locks
ok $? "(A holds a shared lock on sbxd.lock)"
out=$("$SBX" handover --undo "$FOLDER" 2>&1)
ok $(( ! $? )) "--undo while A holds sbxd.lock fails"
like "$out" "is held by pid $LPID \\(user $UA, flock, shared\\)" "and names the holder: pid, user, command"
like "$out" "kill $LPID" "and says how to go on"
is "$(stat -c '%i %U' "$S")" "$ino $UB" "and leaves .sandbox as it was"
test ! -e "$FOLDER/.sandbox.handed-over"
ok $? "and moves nothing aside"

# B's sbxd cannot start on the folder either (fail closed): it names the
# holder, not the pid an earlier sbxd left in the file.
out=$(as_b "$SBXD" "$FOLDER" 2>&1)
ok $(( ! $? )) "B's sbxd does not start while A holds sbxd.lock"
like "$out" "sbxd.lock is held by pid $LPID \\(user $UA, flock, shared\\)" "and names the holder"
unlike "$out" "already served by another sbxd" "not another sbxd"

# Two holders: both named.
as_exec "$UA" flock -s -o "$S/sbxd.lock" sleep 600 &
L2=$!
wait_for 10 grep -q " $L2 [0-9a-f:]*:$(stat -c %i "$S/sbxd.lock") " /proc/locks
out=$("$SBX" handover --undo "$FOLDER" 2>&1)
ok $(( ! $? )) "--undo while two processes hold sbxd.lock fails"
like "$out" "pid $LPID " "and names the first"
like "$out" "pid $L2 " "and the second"

# As the message says: stop them, run the undo again.
kill "$LPID" "$L2" 2>/dev/null
wait "$LPID" "$L2" 2>/dev/null
"$SBX" handover --undo "$FOLDER" >"$T/undo.out" 2>&1
ok $? "once they are stopped, --undo succeeds"
[ $? -eq 0 ] || sed 's/^/#   /' "$T/undo.out"
is "$(stat -c '%i %U' "$FOLDER/.sandbox.handed-over")" "$ino $UB" "B's .sandbox is kept, B's"
done_testing
