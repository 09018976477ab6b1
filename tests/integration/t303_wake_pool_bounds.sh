#!/usr/bin/env bash
# The pool of free wake FIFOs is bounded and caps no work: more hooks
# waiting at once than the pool holds (16) each get a FIFO (made when the
# pool is empty) and their result; when they are done the pool keeps 16
# and the other names go. A flood the agent plants (FIFOs at slot-like
# names beyond the 16, at request ids, files, in every slot) is swept by
# sbxd's retention pass a second after a delivery: what is left is the
# 16 slots (pooled FIFOs) and the FIFO of a hook that still waits.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 60}'
start_daemon
W="$FOLDER/.sandbox/queue/wake"
slots() { ls -A "$W" | grep -c '^\.free\.[0-9][0-9]$'; }
others() { ls -A "$W" | grep -vc '^\.free\.[0-9][0-9]$'; }

# 1. 20 hooks wait at once (distinct commands: 20 requests).
hps=""
for i in $(seq 1 20); do
	(hook_bash "./task.sh c$i" >"$T/c$i.out") &
	hps="$hps $!"
done
n_pending() { [ "$("$SBX" -C "$FOLDER" pending --json | jq length)" -ge "$1" ]; }
wait_for 60 n_pending 20
ok $? "20 requests pending"
n_fifos() { [ "$(find "$W" -maxdepth 1 -type p -name '[0-9a-f]*' | wc -l)" -ge "$1" ]; }
wait_for 20 n_fifos 20
ok $? "20 waiting hooks, a FIFO each"
for id in $(pending_ids); do "$SBX" -C "$FOLDER" approve "$id" >/dev/null; done
wait $hps
got=0
for i in $(seq 1 20); do grep -q "out: c$i\\b" "$T/c$i.out" && got=$((got + 1)); done
is "$got" 20 "every hook got its own result (no cap dropped one)"
is "$(slots)" 16 "the pool holds 16 FIFOs"
is "$(others)" 0 "the other names went"

# 2. The flood, with one hook waiting.
hook_bash "./task.sh waits" >"$T/w.out" &
hp=$!
wait_for 10 n_pending 1
wid=$(pending_ids)
wait_for 10 test -p "$W/$wid"
rm -f "$W"/.free.*
for i in $(seq 0 15); do printf 'x' >"$W/.free.$(printf %02d "$i")"; done
for i in $(seq 16 99); do mkfifo -m 0600 "$W/.free.$i"; done
for i in $(seq 1 300); do mkfifo -m 0600 "$W/$(printf 'f%015x' "$i")"; done
for i in $(seq 1 100); do : >"$W/junk$i"; done
mkfifo -m 0600 "$W/.free.1x" "$W/.free.000"
# (not counted here: a retention pass of part 1's deliveries may sweep
# some at once)
set_limits '{"hook_wait_seconds": 1}'
id=$(hook_bash "./task.sh other" | reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait_for 20 test -f "$FOLDER/.sandbox/results/$id.json"
like "$(hook_bash "./task.sh other" | reason)" "ALREADY EXECUTED" "a delivery (a retention pass a second later)"
swept() { [ "$(others)" -eq 1 ] && [ "$(slots)" -eq 16 ]; }
wait_for 20 swept
ok $? "swept: 16 slots and the waiting hook's FIFO are left"
is "$(find "$W" -maxdepth 1 -name '.free.??' -type p | wc -l | tr -d ' ')" 16 "every slot holds a FIFO (the planted files went)"
[ -p "$W/$wid" ]
ok $? "the waiting hook's FIFO stayed"
"$SBX" -C "$FOLDER" approve "$wid" >/dev/null
wait $hp
like "$(reason <"$T/w.out")" "out: waits" "the waiting hook gets its result"
is "$(runs)" 22 "each command ran once"
done_testing
