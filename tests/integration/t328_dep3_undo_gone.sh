#!/usr/bin/env bash
# The way back when sbxd's user B has been deleted (userdel) before the
# folder was given back: `sbx handover --undo` does not need B's account.
# B's tree is kept as it was (owned by B's old uid), the folder is A's
# alone again, and A's own sbxd serves it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dep3lib.sh"

S="$FOLDER/.sandbox"
dep3_setup || { sed 's/^/#   /' "$T/init.out" "$T/handover.out"; exit 1; }
dep3_task
start_daemon_b
ok $? "(B's sbxd serves the handed-over folder)"
stop_daemon
ub=$(id -u "$UB")
sum=$(cd "$S" && sha256sum state.db audit.jsonl | cut -c1-64 | tr '\n' ' ')
pkill_owned "$UB"
userdel "$UB" 2>/dev/null
getent group "$UB" >/dev/null && groupdel "$UB" 2>/dev/null
! getent passwd "$UB" >/dev/null
ok $? "(B's account is deleted)"

"$SBX" handover --undo "$FOLDER" >"$T/undo.out" 2>&1
ok $? "--undo succeeds without B's account"
[ $? -eq 0 ] || sed 's/^/#   /' "$T/undo.out"
like "$(cat "$T/undo.out")" "uid $ub has no account" "and says B is named by its uid"
K="$FOLDER/.sandbox.handed-over"
is "$(stat -c %u "$K")" "$ub" "B's tree is kept, owned by B's old uid"
is "$(cd "$K" && sha256sum state.db audit.jsonl | cut -c1-64 | tr '\n' ' ')" "$sum" \
	"with its state.db and audit log unchanged"
is "$(stat -c '%U %a' "$S")" "$UA 700" "the folder's .sandbox is A's own again"
: >"$T/sbxd.log"
chmod 0666 "$T/sbxd.log"
as_exec "$UA" "$SBXD" "$FOLDER" 2>>"$T/sbxd.log" &
DPID=$!
wait_for 10 grep -q serving "$T/sbxd.log"
ok $? "A's own sbxd serves the folder"
done_testing
