#!/usr/bin/env bash
# Names in queue/wake never pile up: a FIFO whose hook was killed before
# it removed it (no process holds it open), one left by a hook that
# answered "pending" (pooled while the pool has room: .free.NN), and junk
# put there (a file, a symlink, an empty directory) are removed (a
# directory with something in it stays: the agent's, not sbxd's to empty)
# by sbxd's retention pass (a second after a delivery, and at start when finished output is kept);
# the FIFO of a hook that still waits (held open) is never removed, and
# that hook is still woken and answered. Nothing is followed: a
# symlink's target is left alone.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 60}'
W="$FOLDER/.sandbox/queue/wake"
req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }
start_daemon

# Leftovers: 200 FIFOs of killed hooks, a file, a symlink to a file
# outside, an empty directory, one that is not.
for i in $(seq 1 200); do mkfifo -m 0600 "$W/$(printf '%016x' "$i")"; done
echo junk >"$W/junk"
echo "outside" >"$T/target"
ln -s "$T/target" "$W/0000000000000fff"
mkdir "$W/adir" "$W/edir"
touch "$W/adir/x"
is "$(ls "$W" | wc -l | tr -d ' ')" 204 "204 names are left in queue/wake"

# A hook that waits on its request (its FIFO held open).
hook_bash "./task.sh waits" >"$T/w.out" &
hp=$!
wait_for 10 has_pending
wid=$(pending_ids)
wait_for 10 test -p "$W/$wid"
ok $? "the waiting hook has its FIFO"

# A delivery: retention runs a second later, and sweeps queue/wake.
set_limits '{"hook_wait_seconds": 1}'
id=$(hook_bash "./task.sh other" | req_id)
[ -p "$W/$id" ]
ok $? "a hook that answered \"pending\" leaves its FIFO for the next identical call"
wait_for 10 known "$id"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait_for 10 test -f "$FOLDER/.sandbox/results/$id.json"
like "$(hook_bash "./task.sh other" | reason)" "ALREADY EXECUTED" "the next identical call gets the result"
only_live() { [ "$(ls "$W" | sort | tr '\n' ' ')" = "$(printf '%s\n' "$wid" adir | sort | tr '\n' ' ')" ]; }
wait_for 15 only_live
ok $? "retention removed every name but the waiting hook's FIFO (and the directory not empty)"
is "$(find "$W" -maxdepth 1 -name '.free.??' -type p | wc -l | tr -d ' ')" 16 \
	"... 16 of the leftover FIFOs went to the pool of free ones (.free.NN), the rest went"
is "$(cat "$T/target")" "outside" "the symlink's target is untouched"

# The waiting hook is still woken and answered.
"$SBX" -C "$FOLDER" approve "$wid" >/dev/null
wait "$hp"
like "$(reason <"$T/w.out")" "ALREADY EXECUTED" "the waiting hook gets its result"
like "$(reason <"$T/w.out")" "out: waits" "with its output"
[ ! -e "$W/$wid" ]
ok $? "and its FIFO is gone"

# Left while sbxd is down: removed at its start.
stop_daemon
for i in $(seq 300 310); do mkfifo -m 0600 "$W/$(printf '%016x' "$i")"; done
start_daemon
wait_for 10 bash -c "[ \"\$(ls '$W')\" = adir ]"
ok $? "names left while sbxd was down are removed when it starts"
is "$(runs)" 2 "each command ran once"
done_testing
