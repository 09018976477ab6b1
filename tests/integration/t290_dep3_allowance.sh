#!/usr/bin/env bash
# Deployment 3: a one-time allowance (an approved Write) is handed to the
# agent's hook once sbxd, as the daemon's user B, confirms the receipt
# the agent's user A made in queue/delivered (a sticky drop box of B's:
# the receipt is A's file). Once, never twice: a second identical call
# after the receipt is deleted gets no allowance. And a receipt made by
# a user who is neither (the overflow or a third user cannot enter
# .sandbox, so only A or B) is not the nonce sbxd signs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dep3lib.sh"

S="$FOLDER/.sandbox"
dep3_setup
ok $? "A inits the folder and root hands it over to B"
chmod 0711 "$T"
mkdir -p "$T/outside"
chown "$UA:" "$T/outside"
OUT="$T/outside/notes.txt"
start_daemon_b
ok $? "B's sbxd serves the folder"
write_a() {
	payload Write "$(jq -cn --arg p "$OUT" --arg c "$1" '{file_path: $p, content: $c}')" |
		as_a env CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre
}
write_a "v1" >"$T/w1.out" &
HPID=$!
wait_for 20 has_pending_b
ok $? "A's Write outside the project is asked"
id=$(pending_b | head -1)
as_b "$SBX" -C "$FOLDER" approve "$id" >"$T/approve.out" 2>&1
ok $? "B approves it"
wait "$HPID"
is "$(decision <"$T/w1.out")" "allow" "A's hook gets the one-time allowance B approved"
[ "$(decision <"$T/w1.out")" = allow ] || sed 's/^/#   /' "$T/w1.out"
is "$(stat -c %U "$S/queue/delivered/$id" 2>/dev/null)" "$UA" "its receipt is A's file"
is "$(jq -r '.receipt | length' "$S/results/$id.json")" 32 "sbxd confirmed A's receipt (its nonce)"
# With umask 027 (others may not read what A makes) the receipt is still
# made readable by B: sbxd confirms it, and the allowance is handed over.
(umask 027; write_a "v3") >"$T/w3.out" &
HPID=$!
wait_for 20 has_pending_b
id3=$(pending_b | head -1)
as_b "$SBX" -C "$FOLDER" approve "$id3" >/dev/null 2>&1
wait "$HPID"
is "$(decision <"$T/w3.out")" "allow" "with A's umask 027, B's approval still reaches A"
is "$(jq -r '.receipt | length' "$S/results/$id3.json")" 32 "(its receipt confirmed)"
# A deletes its receipt and asks again: the allowance is not used twice.
as_a rm -f "$S/queue/delivered/$id"
ok $? "A can delete its own receipt (its sticky drop box)"
write_a "v1" >"$T/w2.out" &
HPID=$!
wait_for 20 has_pending_b
wait_for 20 sh -c "[ -s '$T/w2.out' ] || [ -n \"\$(ps -o pid= --ppid $HPID)\" ]"
sleep 1
kill "$HPID" 2>/dev/null
wait "$HPID" 2>/dev/null
[ "$(decision <"$T/w2.out" 2>/dev/null)" != "allow" ]
ok $? "the same Write again gets no second allowance"
done_testing
