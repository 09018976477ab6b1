#!/usr/bin/env bash
# sbxd pools only the inode it checked. Its sweep (here: at its start)
# puts a wake FIFO nobody holds into a free slot by rename; the name is
# the agent's, who may swap something else in between sbxd's check and
# its rename (here a FIFO with a second link outside the folder, which
# sbxd never pokes and no hook may take). Whatever the rename moved into
# the slot is checked against the inode sbxd verified, and taken out of
# the slot again when it is not that one: the pool never holds what was
# not checked. Made deterministic from outside: strace holds sbxd's
# rename in queue/wake (delayed) while the agent swaps the name.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip_all "strace is not installed"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 30}'
W="$FOLDER/.sandbox/queue/wake"
start_daemon
# A first round trip: a result is kept, so sbxd's start sweeps.
hook_bash "./task.sh one" >"$T/one.out" &
hp=$!
wait_for 10 has_pending
"$SBX" -C "$FOLDER" approve "$(pending_ids)" >/dev/null
wait $hp
like "$(reason <"$T/one.out")" "out: one" "(a first round trip)"
stop_daemon
# With no sbxd, a hook leaves its FIFO at its request's name, unheld.
hook_bash "./task.sh left" >/dev/null
id=$(ls "$W" | grep -E '^[0-9a-f]{16}$' | head -1)
[ -n "$id" ] && [ -p "$W/$id" ]
ok $? "(a FIFO nobody holds is left at a request's name)"
rm -f "$W"/.free.*

# sbxd starts under strace: its renames in queue/wake are held a while.
delay=$((4000000 * SBX_TEST_SLOW))
: >"$T/sbxd.log"
strace -f -qq -e signal=none -o "$T/st" -P "$W" -e trace=renameat2 \
	-e inject=renameat2:delay_enter=$delay "$SBXD" "$FOLDER" 2>>"$T/sbxd.log" &
sp=$!
wait_for 10 pgrep -P "$sp"
DPID=$(pgrep -P "$sp" | head -1)
wait_for 30 grep -q "renameat2(.*\"$id\"" "$T/st"
ok $? "(sbxd's sweep is about to pool the FIFO)" || skip_all "strace cannot trace sbxd here"
ino=$(stat -c %i "$W/$id")
# The agent swaps the name for a FIFO of its own with a second link.
mkfifo -m 0600 "$T/other"
ln "$T/other" "$W/swap.tmp"
mv -f "$W/swap.tmp" "$W/$id"
other=$(stat -c %i "$T/other")
grep -q "\"$id\".*= " "$T/st"
ok $(( ! $? )) "(swapped while sbxd's rename waited)"
swept() { [ ! -e "$W/$id" ] && grep -q "\"$id\".*= " "$T/st"; }
wait_for 30 swept
ok $? "sbxd's rename went through"
wait_for 30 grep -q serving "$T/sbxd.log"
is "$(find "$W" -maxdepth 1 -name '.free.*' -inum "$other" | wc -l | tr -d ' ')" 0 \
	"no slot holds the FIFO swapped in (it was not the one checked)"
is "$(stat -c %h "$T/other")" 1 "... its name in the pool was taken away again"
[ "$ino" != "$other" ]
ok $? "(the swapped-in FIFO is another inode)"
stop_daemon
wait "$sp" 2>/dev/null

# Served normally again: approved, the request left is answered.
start_daemon
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
like "$(hook_bash "./task.sh left" | reason)" "out: left" "(sbxd serves the folder again)"
is "$(find "$W" -maxdepth 1 -name '.free.*' ! -type p | wc -l | tr -d ' ')" 0 "the pool holds only FIFOs"
done_testing
