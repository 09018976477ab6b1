#!/usr/bin/env bash
# The agent attacks the pool of free wake FIFOs (queue/wake/.free.NN):
# it is the same user as the hook here and may plant, hold open, write
# into, lock, hard-link or swap anything there. A pooled entry the hook
# takes is used only when the opened fd is a FIFO of its own, of one
# link, mode 0600, not locked by another; anything else loses the name
# and a FIFO is made. A wake only makes the hook look again: bytes forged
# into a held FIFO, or a wake read away by the agent, never change the
# answer, and nothing is written into what the agent linked or pointed
# at. Checked from outside on each round trip (a remembered approval).
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 30}'
start_daemon
W="$FOLDER/.sandbox/queue/wake"
S="$W/.free.00"
(hook_bash "./task.sh h" >"$T/first.out") &
hp=$!
wait_for 10 has_pending
"$SBX" -C "$FOLDER" approve "$(pending_ids)" --remember >/dev/null
wait $hp
# trip: one round trip; prints its answer's reason
TRIPS=1 # the first round trip; good counts the others
trip() { hook_bash "./task.sh h" | reason | tr '\n' ' '; }
good() { TRIPS=$((TRIPS + 1)); like "$1" "remembered approval\\) and ALREADY EXECUTED.*out: h " "$2"; }
# clear: empty the pool (what the last round trip gave back)
clear() { rm -f "$W"/.free.*; }
# nread FD: bytes waiting in fd FD, without blocking
nread() { python3 -c 'import os, sys
fd = int(sys.argv[1]); os.set_blocking(fd, False)
try:
    print(len(os.read(fd, 65536)))
except BlockingIOError:
    print(0)' "$1"; }
clear

# 1. A hard link: the pooled FIFO has a second name outside the folder.
mkfifo -m 0600 "$T/linked"
ln "$T/linked" "$S"
exec 7<>"$T/linked"
good "$(trip)" "a pooled FIFO with a second link: the round trip is answered"
is "$(stat -c %h "$T/linked")" 1 "... it was not taken (its name in the pool dropped)"
is "$(nread 7)" 0 "... and nothing was written into it"
exec 7<&-
[ "$(stat -c %i "$S")" != "$(stat -c %i "$T/linked")" ]
ok $? "... the FIFO back in the pool is another one"
clear

# 2. A symlink to the agent's FIFO outside: not followed.
mkfifo -m 0600 "$T/target"
exec 7<>"$T/target"
ln -s "$T/target" "$S"
good "$(trip)" "a symlink in the pool: the round trip is answered"
is "$(nread 7)" 0 "... nothing arrived in the FIFO it points to"
[ -p "$S" ] && [ ! -L "$S" ]
ok $? "... and the pool holds a real FIFO again"
exec 7<&-
clear

# 3. A regular file (a hard link to a file outside): never written.
echo victim >"$T/victim"
ln "$T/victim" "$S"
good "$(trip)" "a regular file in the pool: the round trip is answered"
is "$(cat "$T/victim") $(stat -c %h "$T/victim")" "victim 1" "... the file is untouched, its pool name gone"
clear

# 4. Another mode (0666: others could have opened it).
mkfifo -m 0666 "$S"
chmod 0666 "$S"
i=$(stat -c %i "$S")
good "$(trip)" "a FIFO of mode 0666 in the pool: the round trip is answered"
[ "$(stat -c '%i %a' "$S")" != "$i 666" ]
ok $? "... it was not taken"
clear

# 5. A FIFO of another user (root only: chown).
if [ "$(id -u)" -eq 0 ] && NB=$(id -u nobody 2>/dev/null); then
	mkfifo -m 0600 "$S"
	chown "$NB" "$S"
	good "$(trip)" "a FIFO of another user in the pool: the round trip is answered"
	[ "$(stat -c %u "$S")" = "$(id -u)" ]
	ok $? "... it was not taken (the pool holds the hook's own)"
else
	ok 0 "# SKIP needs root and user nobody"
	ok 0 "# SKIP needs root and user nobody"
fi
clear

# 6. Held locked by the agent (flock, as a waiting hook holds it): not
# taken, and never given back from under it.
mkfifo -m 0600 "$S"
python3 -c 'import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NONBLOCK); fcntl.flock(fd, fcntl.LOCK_EX)
open(sys.argv[2], "w").close(); time.sleep(30)' "$S" "$T/locked" &
lp=$!
wait_for 10 test -e "$T/locked"
i=$(stat -c %i "$S")
good "$(trip)" "a FIFO the agent holds locked: the round trip is answered"
[ "$(stat -c %i "$S" 2>/dev/null)" != "$i" ]
ok $? "... it was not taken"
kill $lp
wait $lp 2>/dev/null
clear

# 7. Held open, with bytes in it before the take and forged while the
# hook waits, and read by the agent (a wake stolen): the hook drains the
# stale bytes, looks again on each byte and answers only with sbxd's
# signed result; a stolen wake costs the re-check, not the answer.
mkfifo -m 0600 "$S"
held=$(stat -c %i "$S")
exec 7<>"$S"
printf 'stale' >&7
add_rule escalate 'Bash(./task.sh:*)'
(hook_bash "./task.sh held" >"$T/held.out") &
hp=$!
wait_for 10 has_pending
id=$(pending_ids)
wait_for 10 test -p "$W/$id"
is "$(stat -c %i "$W/$id")" "$held" "the hook took the held FIFO"
is "$(nread 7)" 0 "... and drained the stale bytes"
for _ in 1 2 3 4 5; do printf 'forged' >&7; sleep 0.1; done
kill -0 $hp 2>/dev/null
ok $? "forged wakes do not end the wait"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
# the agent reads the FIFO as fast as it can: sbxd's wake is stolen
python3 -c 'import os, time
os.set_blocking(7, False); end = time.time() + 3
while time.time() < end:
    try: os.read(7, 100)
    except BlockingIOError: time.sleep(0.001)' &
rp=$!
wait $hp
like "$(reason <"$T/held.out" | tr '\n' ' ')" "ALREADY EXECUTED.*out: held " "the hook answers with the real result"
kill $rp 2>/dev/null
wait $rp 2>/dev/null
exec 7<&-
is "$(runs)" $((TRIPS + 1)) "each command ran once"
done_testing
