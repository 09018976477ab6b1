#!/usr/bin/env bash
# Deployment 3 set-up and its checks, failing closed: sbx handover refuses
# what it cannot hand over safely, and a .sandbox/users file (or a
# .sandbox) that is not exactly what handover made stops both the agent's
# hook (a deny that says why) and B's sbxd (it does not start).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dep3lib.sh"

S="$FOLDER/.sandbox"
as_a "$SBX" init "$FOLDER" >"$T/init.out" 2>&1
out=$(as_a "$SBX" handover --daemon-user "$UB" "$FOLDER" 2>&1)
ok $(( ! $? )) "handover as the agent's user fails"
like "$out" "as root" "it says it needs root"
out=$("$SBX" handover --daemon-user root "$FOLDER" 2>&1)
ok $(( ! $? )) "handover to root fails"
like "$out" "two users other than root" "it says why"
out=$("$SBX" handover --daemon-user "$UA" "$FOLDER" 2>&1)
ok $(( ! $? )) "handover to the agent's own user fails"
out=$("$SBX" handover --daemon-user "nosuchuser$$" "$FOLDER" 2>&1)
like "$out" "no such user" "handover to an unknown user says so"
# A group the agent shares with a third user: its drop boxes would be
# that user's too.
UC="sbx3c$$"
if useradd -M -N -g "$UA" -d /nonexistent -s /bin/sh "$UC" 2>/dev/null; then
	_users="$_users $UC"
	out=$("$SBX" handover --daemon-user "$UB" "$FOLDER" 2>&1)
	ok $(( ! $? )) "handover fails when the agent's group is shared"
	like "$out" "shared with $UC" "it names who shares it"
	userdel "$UC"
else
	ok 1 "useradd $UC (a third user in A's group) failed"
fi
# A .sandbox that an sbxd of A's served (its state is A's to have changed).
as_a touch "$S/state.db"
out=$("$SBX" handover --daemon-user "$UB" "$FOLDER" 2>&1)
ok $(( ! $? )) "handover refuses a .sandbox with state"
is "$(stat -c %U "$S")" "$UA" "and leaves it as it was"
rm -f "$S/state.db"
"$SBX" handover --daemon-user "$UB" "$FOLDER" >"$T/handover.out" 2>&1
ok $? "handover of a fresh .sandbox succeeds"
out=$("$SBX" handover --daemon-user "$UB" "$FOLDER" 2>&1)
ok $? "run again, it succeeds"
like "$out" "already" "and says the folder is handed over already"
dep3_task
start_daemon_b
ok $? "B's sbxd serves it"
stop_daemon
cp -p "$S/users" "$T/users.good"
# hook_says: the agent's hook's answer to an escalated call.
hook_says() { hook_a "./task.sh check" | reason; }
# sbxd_refuses REGEX DESC: B's sbxd does not start, and says REGEX.
sbxd_refuses() {
	as_exec "$UB" "$SBXD" "$FOLDER" >/dev/null 2>"$T/start.err" &
	local p=$!
	wait_for 10 sh -c "! kill -0 $p 2>/dev/null" || kill "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	like "$(cat "$T/start.err")" "$1" "$2"
}
restore() { cat "$T/users.good" >"$S/users"; chown root:root "$S/users"; chmod 0644 "$S/users"; chmod 0750 "$S"; }

chown "$UB" "$S/users"
like "$(hook_says)" "users must be a regular file of root's" \
	"a users file not root's: the hook denies and says why"
sbxd_refuses "users must be a regular file of root's" "and B's sbxd does not start"
restore
printf 'agent 4242\ndaemon %s\ngroup %s\n' "$(id -u "$UB")" "$(id -g "$UA")" >"$S/users"
like "$(hook_says)" "not handed over to us" "a users file naming another agent: the hook denies"
restore
printf 'agent %s\ndaemon 4243\ngroup %s\n' "$(id -u "$UA")" "$(id -g "$UA")" >"$S/users"
sbxd_refuses "handed over to uid 4243" "a users file naming another daemon: B's sbxd does not start"
restore
printf 'agent %s\ndaemon %s\ngroup %s\nextra 1\n' "$(id -u "$UA")" "$(id -u "$UB")" "$(id -g "$UA")" >"$S/users"
like "$(hook_says)" "malformed" "a users file with more in it: the hook denies"
restore
ln "$S/users" "$T/users.link"
like "$(hook_says)" "one link" "a users file with a second link: the hook denies"
rm -f "$T/users.link"
rm -f "$S/users"
like "$(hook_says)" "not handed over to us" "no users file: the hook denies"
sbxd_refuses "accessible by others" "and B's sbxd refuses a .sandbox its agent's group may enter"
restore
chmod 0755 "$S"
like "$(hook_says)" "mode 0750" "a .sandbox others may enter: the hook denies"
sbxd_refuses "handed over to uid" "and B's sbxd does not start"
restore
start_daemon_b
ok $? "restored, B's sbxd serves it again"
hook_a "./task.sh again" >"$T/hook.out" &
HPID=$!
wait_for 20 has_pending_b
as_b "$SBX" -C "$FOLDER" approve "$(pending_b | head -1)" >/dev/null 2>&1
wait "$HPID"
like "$(reason <"$T/hook.out")" "ran-as $UB" "and the loop works"
done_testing
