#!/usr/bin/env bash
# Deployment 3 (real users): queue/wake is sbxd's user B's, sticky
# (1770), and the agent's user A may create in it, so A may plant
# directories (empty or not, which B cannot empty) at the pool's slots
# .free.NN. They must not cost A's hooks their wake channel: a hook that
# takes such a slot moves the entry out of its request's name (removed,
# or moved aside to .moved.INO) and makes its FIFO there; B's sbxd
# (queue/wake's owner) empties the slots in its sweep the same way, and
# leaves what is inside A's directories alone. Checked from outside.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dep3lib.sh"

dep3_setup || { sed 's/^/#   /' "$T/init.out" "$T/handover.out"; exit 1; }
dep3_task
start_daemon_b
W="$FOLDER/.sandbox/queue/wake"
slots() { seq 0 15 | while read -r k; do printf '%s/.free.%02d\n' "$W" "$k"; done; }
# plant: A puts a directory at every slot, with a file in the odd ones.
plant() {
	as_a sh -c 'for s; do rm -f "$s"; mkdir "$s" || exit 1
		case "$s" in *[13579]) echo a >"$s/keep" ;; esac; done' sh $(slots)
}
dirs_in_slots() { for s in $(slots); do [ -d "$s" ] && echo "$s"; done | wc -l | tr -d ' '; }

# Planted before any delivery (so before any sweep of B's sbxd).
plant
is "$(dirs_in_slots)" 16 "A planted a directory at each of the 16 slots"
# A hook that waits (a new request): it has its FIFO at its request's name.
hook_a "./task.sh waits" >"$T/w.out" &
hw=$!
wait_for 20 has_pending_b
wid=$(pending_b | head -1)
fifo_held() { [ -p "$W/$wid" ]; }
wait_for 10 fifo_held
ok $? "a hook that took the planted slots has its FIFO at its request's name"
[ -d "$W/$wid" ] && ls -la "$W" | sed 's/^/#   /'
is "$(stat -c '%U' "$W/$wid" 2>/dev/null)" "$UA" "... A's own"
is "$(dirs_in_slots)" 0 "... and no slot holds a directory any more"
is "$(find "$W" -maxdepth 1 -name '.moved.*' -type d | wc -l | tr -d ' ')" 8 \
	"the 8 directories with something in them were moved aside, the 8 empty ones removed"
is "$(find "$W" -maxdepth 2 -path '*/.moved.*/keep' -user "$UA" | wc -l | tr -d ' ')" 8 \
	"... with what A put in them"
as_b "$SBX" -C "$FOLDER" approve "$wid" --remember >/dev/null 2>&1
wait $hw
like "$(reason <"$T/w.out")" "ran-as $UB" "the waiting hook is answered"

# B's sweep (at its start, with finished output kept: no hook takes a
# slot before it) empties the slots A planted while it was down.
stop_daemon
plant
is "$(dirs_in_slots)" 16 "A planted directories at the slots again, sbxd down"
start_daemon_b
swept() { [ "$(dirs_in_slots)" -eq 0 ]; }
wait_for 20 swept
ok $? "B's sbxd emptied every slot when it started"
swept || ls -la "$W" | sed 's/^/#   /'
is "$(find "$W" -maxdepth 2 -path '*/.moved.*/keep' -user "$UA" | wc -l | tr -d ' ')" 16 \
	"what A put in its directories is untouched (moved aside, not emptied)"
is "$(find "$W" -maxdepth 1 -name '.free.*' ! -type p | wc -l | tr -d ' ')" 0 \
	"the pool holds only FIFOs"
like "$(hook_a "./task.sh waits" | reason)" "ran-as $UB" "the next round trip (remembered) is answered"
is "$(find "$W" -maxdepth 1 -name '.free.*' -type p ! -user "$UA" | wc -l | tr -d ' ')" 0 \
	"... A's"
is "$(runs_b)" 2 "each approved command ran once"
done_testing
