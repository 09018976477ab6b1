#!/usr/bin/env bash
# Deployment 3 end to end with real users: the agent's user A owns the
# project and runs the real hook; root hands .sandbox/ over to user B
# (sbx handover); B's sbxd runs the approved command with B's rights (it
# reads B's secret, which A cannot), B approves, and the result reaches
# A's hook. Ownership and modes are checked from outside.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dep3lib.sh"

dep3_setup
ok $? "A's sbx init, then root's sbx handover --daemon-user B"
[ $? -eq 0 ] || sed 's/^/#   /' "$T/init.out" "$T/handover.out"
S="$FOLDER/.sandbox"
own() { stat -c '%U:%G %a' "$1"; }
is "$(own "$S")" "$UB:$UA 750" ".sandbox/ is B's, the agent's group may enter"
is "$(stat -c '%U %a' "$S/users")" "root 644" "the users file is root's"
is "$(cat "$S/users")" "$(printf 'agent %s\ndaemon %s\ngroup %s' "$(id -u "$UA")" \
	"$(id -u "$UB")" "$(id -g "$UA")")" "it names A as the agent, B as the daemon, A's group"
is "$(own "$S/queue/new")" "$UB:$UA 1770" "queue/new: a drop box A may write, sticky"
is "$(own "$S/results")" "$UB:$UA 750" "results/: A reads, only B writes"
is "$(own "$S/decisions/new")" "$UB:$UB 700" "decisions/: B's only"
is "$(stat -c '%U %a' "$S/state.db")" "$UB 600" "state.db: B's only"
test -f "$FOLDER/.sandbox.before-handover/policy.json"
ok $? "A's own .sandbox from sbx init was moved aside"
test -f "$CONF_A/daemon.$(id -u "$UB").pub" && cmp -s "$CONF_A/daemon.$(id -u "$UB").pub" "$CONF_B/daemon.pub"
ok $? "A's config holds B's sbxd public key as daemon.UID.pub (A's hooks verify results with it)"
test -f "$CONF_A/approvers/$UB.pub" && [ "$(stat -c %U "$CONF_A/approvers/$UB.pub")" = "$UA" ]
ok $? "and B's approver public key, as A's own file"
is "$(stat -c '%U %a' "$CONF_B/approver.key")" "$UB 600" "B's approver key is B's, 0600"
as_a cat "$CONF_B/approver.key" >/dev/null 2>&1
ok $(( ! $? )) "A cannot read B's approver key"
as_a cat "$CONF_B/daemon.key" >/dev/null 2>&1
ok $(( ! $? )) "A cannot read B's sbxd key"
as_a cat "$T/home-b/secret" >/dev/null 2>&1
ok $(( ! $? )) "A cannot read B's secret"

dep3_task
start_daemon_b
ok $? "B's sbxd serves the folder"
# A's hook escalates and waits; B approves; the result comes back to A.
hook_a "./task.sh one" >"$T/hook.out" &
HPID=$!
wait_for 20 has_pending_b
ok $? "A's request reaches B's queue"
id=$(pending_b | head -1)
is "$(stat -c %U "$S/pending/$id.json")" "$UA" "the claimed request is A's file"
as_b "$SBX" -C "$FOLDER" approve "$id" >"$T/approve.out" 2>&1
ok $? "B approves it"
wait "$HPID"
r=$(reason <"$T/hook.out")
is "$(decision <"$T/hook.out")" "deny" "A's hook answers (the tool never runs in the agent)"
like "$r" "ran-as $UB" "the command ran as B"
like "$r" "treasure-of-b-$$" "with B's rights: it read B's secret, and its output reached A"
is "$(runs_b)" 1 "it ran once"
is "$(stat -c '%U %a' "$S/results/$id.json")" "$UB 644" "the result is B's, readable by A"
as_a "$SBX" -C "$FOLDER" audit verify >/dev/null 2>&1
ok $(( ! $? )) "A cannot even read the audit log to verify it"
as_b "$SBX" -C "$FOLDER" audit verify >"$T/verify.out" 2>&1
ok $? "B's audit log verifies"
is "$(stat -c '%U %a' "$S/audit.jsonl")" "$UB 600" "the audit log is B's only"
# A repeats the call: the stored result is not delivered twice, and a
# second approval runs it again (still as B).
hook_a "./task.sh two" >"$T/hook2.out" &
HPID=$!
wait_for 20 has_pending_b
id2=$(pending_b | head -1)
as_b "$SBX" -C "$FOLDER" deny "$id2" --reason "not now" >/dev/null 2>&1
wait "$HPID"
like "$(reason <"$T/hook2.out")" "not now" "B's denial and its reason reach A"
is "$(runs_b)" 1 "a denied request does not run"
# handover recorded the folder for B's sbxd --all.
stop_daemon
: >"$T/sbxd.log"
as_exec "$UB" "$SBXD" --all 2>>"$T/sbxd.log" &
DPID=$!
wait_for 10 grep -q "\[$FOLDER\] serving" "$T/sbxd.log"
ok $? "B's sbxd --all serves the handed-over folder"
done_testing
