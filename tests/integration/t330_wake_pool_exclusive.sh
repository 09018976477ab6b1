#!/usr/bin/env bash
# A pooled wake FIFO is one hook's. sbxd pools a FIFO nobody reads (its
# hook answered "pending" or was killed); between its check and its
# rename a hook may just have opened it, and the agent may move a
# waiting hook's FIFO into a slot itself: either way a hook then holds a
# FIFO that sits in the pool. The next hook that takes that slot must not
# share it (each would read the other's wake): it takes a FIFO only when
# it can lock it exclusively, else drops it and makes its own. The hook
# whose FIFO went to the pool (stopped meanwhile) finds, at its next re-check, that its
# request's name is no longer its FIFO and gets a channel anew. Checked
# from outside: which processes hold which FIFO inode (/proc/PID/fd).
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 60}'
start_daemon
W="$FOLDER/.sandbox/queue/wake"
# holders INO: the pids that hold open the inode INO of queue/wake's
# filesystem (sorted, space separated).
holders() {
	python3 - "$1" "$(stat -c %d "$W")" <<'PY'
import os, sys
ino, dev = int(sys.argv[1]), int(sys.argv[2])
out = set()
for p in os.listdir('/proc'):
    if not p.isdigit():
        continue
    try:
        fds = os.listdir('/proc/%s/fd' % p)
    except OSError:
        continue
    for fd in fds:
        try:
            st = os.stat('/proc/%s/fd/%s' % (p, fd))
        except OSError:
            continue
        if st.st_ino == ino and st.st_dev == dev:
            out.add(int(p))
print(' '.join(str(p) for p in sorted(out)))
PY
}
ino_of() { stat -c %i "$W/$1" 2>/dev/null; }
held() { [ -p "$W/$1" ] && [ -n "$(holders "$(ino_of "$1")")" ]; }

# H1 waits on its request; its FIFO is held by its hook alone.
hook_bash "./task.sh one" >"$T/one.out" &
hp1=$!
wait_for 10 has_pending
id1=$(pending_ids)
wait_for 10 held "$id1"
ok $? "the first hook waits on its FIFO"
ino1=$(ino_of "$id1")
h1=$(holders "$ino1")
is "$(echo "$h1" | wc -w | tr -d ' ')" 1 "... held by one process (the hook)"

# Its FIFO goes to the pool while it waits (sbxd's race, or the agent).
# The hook is stopped meanwhile (a slow one), so that it does not look at
# its name before the next hook took the slot.
kill -STOP "$h1"
rm -f "$W"/.free.*
mv "$W/$id1" "$W/.free.00"

# H2 takes the first slot: the FIFO H1 holds (and has locked).
hook_bash "./task.sh two" >"$T/two.out" &
hp2=$!
two() { [ "$(pending_ids | wc -l)" -eq 2 ]; }
wait_for 10 two
id2=$(pending_ids | grep -vx "$id1")
wait_for 10 held "$id2"
ok $? "the second hook waits on a FIFO at its request's name"
ino2=$(ino_of "$id2")
[ -n "$ino2" ] && [ "$ino2" != "$ino1" ]
ok $? "... not the FIFO the first hook holds"
is "$(holders "$ino1")" "$h1" "the first hook's FIFO is held by the first hook alone"
h2=$(holders "$ino2")
[ -n "$h2" ] && [ "$h2" != "$h1" ]
ok $? "... and the second's by another process"
[ ! -e "$W/.free.00" ]
ok $? "the slot it could not have exclusively was dropped"

# H1, going on, gets a channel anew at its request's name.
kill -CONT "$h1"
renewed() { held "$id1" && [ "$(holders "$(ino_of "$id1")")" = "$h1" ]; }
wait_for 10 renewed
ok $? "the first hook has a FIFO of its own at its name again"

"$SBX" -C "$FOLDER" approve "$id1" >/dev/null
"$SBX" -C "$FOLDER" approve "$id2" >/dev/null
wait "$hp1" "$hp2"
like "$(reason <"$T/one.out")" "out: one" "the first hook is answered"
like "$(reason <"$T/two.out")" "out: two" "the second hook is answered"
is "$(runs)" 2 "each command ran once"
done_testing
