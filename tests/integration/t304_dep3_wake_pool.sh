#!/usr/bin/env bash
# The pool of free wake FIFOs in deployment 3 (real users): queue/wake is
# sbxd's user B's, sticky (1770), the agent's group may create in it.
# A's hook gives its FIFO back to the pool and takes it again (renames of
# its own files); a FIFO of a third user C (a member of A's group could
# plant one) in a slot cannot be renamed by A (sticky): the hook takes the
# next slot or makes one, and is answered; B's sbxd (the directory's
# owner) removes C's FIFO and pools A's FIFO left by a killed hook.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dep3lib.sh"

dep3_setup || { sed 's/^/#   /' "$T/init.out" "$T/handover.out"; exit 1; }
dep3_task
start_daemon_b
W="$FOLDER/.sandbox/queue/wake"
C=4242
while getent passwd "$C" >/dev/null; do C=$((C + 1)); done

# A first round trip, approved by B: A's FIFO goes to the pool.
hook_a "./task.sh one" >"$T/one.out" &
hp=$!
wait_for 20 has_pending_b
id=$(pending_b | head -1)
as_b "$SBX" -C "$FOLDER" approve "$id" --remember >/dev/null 2>&1
wait $hp
like "$(reason <"$T/one.out")" "ran-as $UB" "A's round trip is answered by B's sbxd"
is "$(stat -c '%F %U %a %h' "$W/.free.00" 2>/dev/null)" "fifo $UA 602 1" \
	"A's FIFO is back in the pool of B's sticky queue/wake"
i=$(stat -c %i "$W/.free.00")
like "$(hook_a "./task.sh one" | reason)" "ran-as $UB" "the next round trip (remembered)"
is "$(stat -c %i "$W/.free.00")" "$i" "... took and gave back the same FIFO"

# A third user's FIFO in the first slot, A's own in the second (after
# the sweep of the last delivery, a second later, has run).
sleep 2
mv "$W/.free.00" "$W/.free.01"
mkfifo -m 0602 "$W/.free.00"
chown "$C" "$W/.free.00"
c=$(stat -c %i "$W/.free.00")
like "$(hook_a "./task.sh one" | reason)" "ran-as $UB" "a third user's FIFO in a slot: A's round trip is answered"
[ "$(stat -c %i "$W/.free.01" 2>/dev/null)" = "$i" ] || [ "$(stat -c %i "$W/.free.00" 2>/dev/null)" = "$i" ]
ok $? "... A's hook used its own pooled FIFO (the next slot) and gave it back"
# A hook killed while it waits leaves A's FIFO at its id.
hook_a "./task.sh killed" >/dev/null &
wait_for 20 bash -c "ls '$W' | grep -qE '^[0-9a-f]{16}\$'"
kid=$(ls "$W" | grep -E '^[0-9a-f]{16}$' | head -1)
pkill_owned "$UA"
sleep 0.3
# A delivery: B's sweep a second later.
like "$(hook_a "./task.sh one" | reason)" "ran-as $UB" "another round trip (a delivery)"
swept() { [ "$(stat -c %i "$W/.free.00" 2>/dev/null)" != "$c" ] && [ ! -e "$W/$kid" ]; }
wait_for 20 swept
ok $? "B's sbxd removed the third user's FIFO and pooled the killed hook's"
is "$(find "$W" -name '.free.*' ! -user "$UA" | wc -l | tr -d ' ')" 0 "every pooled FIFO is A's"
is "$(runs_b)" 4 "each approved command ran once"
done_testing
