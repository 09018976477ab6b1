#!/usr/bin/env bash
# Deployment 3: the agent's user A attacks what B (sbxd's user) holds.
# Each attempt runs as A, with A's real uid; what happened is checked from
# outside (as root): B's keys, state.db and audit log unchanged and
# unread, no approval A could make counts, sbxd still serving, nothing ran.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dep3lib.sh"

dep3_setup || { sed 's/^/#   /' "$T/init.out" "$T/handover.out"; exit 1; }
dep3_task
start_daemon_b
S="$FOLDER/.sandbox"
hook_a "./task.sh hostile" >"$T/hook.out" &
HPID=$!
wait_for 20 has_pending_b
id=$(pending_b | head -1)
like "$id" '^[0-9a-f]{16}$' "A's request is pending with B"
sum() { sha256sum "$CONF_B/approver.key" "$CONF_B/daemon.key" 2>/dev/null | cut -c1-64 |
	tr '\n' ' '; }
before=$(sum)
# fails NAME CMD: CMD run as A must fail.
fails() {
	local d=$1
	shift
	as_a sh -c "$*" >"$T/attempt.out" 2>&1
	ok $(( ! $? )) "A cannot $d"
}
as_a sh -c "echo x >'$S/queue/tmp/ctl' && cat '$S/policy.json' >/dev/null && rm '$S/queue/tmp/ctl'"
ok $? "(control) A writes its drop box and reads the policy, so each refusal below is a refusal"
fails "read B's approver key" "cat '$CONF_B/approver.key'"
fails "list B's config dir" "ls '$CONF_B'"
fails "read state.db" "cat '$S/state.db'"
fails "write state.db" "echo x >>'$S/state.db'"
fails "replace state.db" "mv '$S/state.db' '$S/state.old'"
fails "read the audit log" "cat '$S/audit.jsonl'"
fails "append to the audit log" "echo '{}' >>'$S/audit.jsonl'"
fails "remove the audit log" "rm -f '$S/audit.jsonl' && test ! -e '$S/audit.jsonl'"
fails "drop a decision" "echo '{}' >'$S/decisions/new/$id.00000000000000000000000000000000.json'"
fails "write a result" "echo '{}' >'$S/results/$id.json'"
fails "forge a result over the real name" "echo '{}' >'$S/results/0123456789abcdef.json'"
fails "write policy.json" "echo '{}' >'$S/policy.json'"
fails "replace the users file" "mv '$S/users' '$S/users.old'"
fails "swap a drop box" "mv '$S/queue/new' '$S/queue/new.old'"
fails "chmod a drop box" "chmod 0777 '$S/queue/new'"
fails "remove sbxd's lock" "rm -f '$S/sbxd.lock' && test ! -e '$S/sbxd.lock'"
fails "hard-link B's key into the queue" "ln '$CONF_B/daemon.key' '$S/queue/new/0000000000000001.json'"
fails "hard-link B's state.db into the queue" "ln '$S/state.db' '$S/queue/new/0000000000000002.json'"
# A's own approver key (from its sbx init) signs nothing sbxd trusts, and
# A cannot even put a decision where sbxd looks.
fails "approve its own request with sbx" "'$SBX' -C '$FOLDER' approve '$id'"
is "$(stat -c %U /proc/$DPID)" "$UB" "(sbxd, pid $DPID, runs as B)"
fails "signal sbxd" "kill -0 $DPID"
fails "kill sbxd" "kill -9 $DPID"
fails "read sbxd's environment" "cat /proc/$DPID/environ"
fails "ptrace sbxd" "python3 -c 'import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
sys.exit(0 if libc.ptrace(16, $DPID, None, None) == 0 else 1)'"
# A symlink to B's key planted in the drop box: refused without reading.
as_a ln -s "$CONF_B/daemon.key" "$S/queue/new/00000000000000aa.json"
wait_for 10 grep -q "00000000000000aa" "$T/sbxd.log"
like "$(grep 00000000000000aa "$T/sbxd.log")" "symlink" "sbxd refuses a symlink A planted in queue/new"
key_hex=$(sed -n 's/^secret //p' "$CONF_B/daemon.key")
! grep -rqs "${key_hex:-none}" "$S/rejected" "$S/results" "$S/pending"
ok $? "B's key was copied nowhere"
# A floods the drop box with junk: sbxd moves it aside and keeps serving.
as_a sh -c 'i=0; while [ $i -lt 50 ]; do printf junk >"$1/queue/new/$(printf %016x $((4096 + i))).json"; i=$((i + 1)); done' sh "$S"
wait_for 20 sh -c "[ \$(ls '$S/queue/new' | wc -l) -eq 0 ]"
ok $? "50 junk requests are taken out of the drop box"
is "$(sum)" "$before" "B's keys are unchanged"
as_b "$SBX" -C "$FOLDER" audit verify >"$T/verify.out" 2>&1
ok $? "B's audit log verifies"
[ "$(grep -c '"file_rejected"' "$S/audit.jsonl")" -ge 50 ]
ok $? "and records each file A's junk and links were refused for"
kill -0 "$DPID" 2>/dev/null
ok $? "sbxd still runs"
is "$(runs_b)" 0 "nothing ran"
# A directory of A's in a drop box: sbxd cannot move it (moving a
# directory needs write access to it), says so, and goes on.
as_a mkdir "$S/queue/new/00000000000000bb.json"
wait_for 10 grep -q "cannot claim queue/new/00000000000000bb.json" "$T/sbxd.log"
ok $? "a directory A put in queue/new is left there, and said"
# A's own sbxd on the folder: refused (it was handed over to B).
out=$(as_a "$SBXD" "$FOLDER" 2>&1)
like "$out" "handed over to uid $(id -u "$UB")" "A cannot serve the folder with an sbxd of its own"
# The real approval still works after all that.
as_b "$SBX" -C "$FOLDER" approve "$id" >/dev/null 2>&1
wait "$HPID"
like "$(reason <"$T/hook.out")" "ran-as $UB" "B's approval runs A's request, as B"
is "$(runs_b)" 1 "once"
# A moves B's .sandbox away and puts its own in place: sbxd stops serving
# the folder, and B's sbxd started again refuses A's .sandbox.
as_a sh -c "mv '$S' '$FOLDER/.stolen' && mkdir -m 700 '$S'"
ok $? "A can replace .sandbox/ in its own folder"
wait_for 10 grep -qiE "replaced|removed|changed|moved" "$T/sbxd.log"
ok $? "sbxd notices and stops serving it"
stop_daemon
as_exec "$UB" "$SBXD" "$FOLDER" 2>"$T/sbxd2.log" &
P2=$!
wait_for 10 grep -q "usable" "$T/sbxd2.log"
like "$(cat "$T/sbxd2.log")" "no usable .sandbox" "B's sbxd refuses a .sandbox of A's"
kill "$P2" 2>/dev/null
wait "$P2" 2>/dev/null
done_testing
