#!/usr/bin/env bash
# Wake FIFOs are reused (docs/QUEUE.md, Wake): a hook takes one from the
# pool (queue/wake/.free.NN) by renaming it to its request's id, and
# gives it back when it has answered; sbxd wakes it and leaves the name.
# Checked from outside: the same inode serves round trip after round trip
# (held open by the test meanwhile, so a FIFO removed and made again
# could not get its number back), the hook makes no FIFO (strace), the
# pooled FIFO is the hook's, mode 0600, one link; a FIFO a hook left when
# it answered "pending" (or was killed) is pooled by sbxd's sweep, or by
# the wake of its result, which finds nobody waiting.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 30}'
start_daemon
W="$FOLDER/.sandbox/queue/wake"
req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }
ino() { stat -c %i "$1" 2>/dev/null; }

# A remembered approval: round trips without a human.
(hook_bash "./task.sh loop" >"$T/first.out") &
hp=$!
wait_for 10 has_pending
id=$(pending_ids)
"$SBX" -C "$FOLDER" approve "$id" --remember >/dev/null
wait $hp
like "$(reason <"$T/first.out")" "out: loop" "a first round trip (approved and remembered)"
[ ! -e "$W/$id" ] && [ -p "$W/.free.00" ]
ok $? "its FIFO went back to the pool (.free.00), not removed"
is "$(stat -c '%F %h %a %U' "$W/.free.00")" "fifo 1 600 $(id -un)" \
	"the pooled FIFO is the hook's, one link, mode 0600"
pool=$(ino "$W/.free.00")
exec 7<>"$W/.free.00"

same=0 answered=0
for i in 1 2 3 4 5; do
	r=$(hook_bash "./task.sh loop" | reason)
	case "$r" in *"remembered approval) and ALREADY EXECUTED"*"out: loop"*) answered=$((answered + 1)) ;; esac
	[ "$(ino "$W/.free.00")" = "$pool" ] && same=$((same + 1))
done
is "$answered" 5 "five more round trips are answered"
is "$same" 5 "after each, the same FIFO inode is back in the pool"
is "$(ls -A "$W" | tr '\n' ' ')" ".free.00 " "queue/wake holds only the pooled FIFO"
exec 7<&-

if command -v strace >/dev/null; then
	bash_payload "./task.sh loop" >"$T/p.json"
	(cd "$FOLDER" && strace -qq -f -o "$T/h.st" -e trace=mknodat,renameat2,unlinkat \
		"$HOOK" pre <"$T/p.json" >"$T/out.json")
	like "$(reason <"$T/out.json")" "ALREADY EXECUTED" "a traced round trip"
	id=$(reason <"$T/out.json" | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
	! grep -q '^[0-9]* *mknodat' "$T/h.st"
	ok $? "the hook made no FIFO"
	grep -qE "renameat2\\([0-9]+, \"\\.free\\.00\", [0-9]+, \"$id\", RENAME_NOREPLACE\\) = 0" "$T/h.st"
	ok $? "it took the pooled one by an exclusive rename to its id"
	grep -qE "renameat2\\([0-9]+, \"$id\", [0-9]+, \"\\.free\\.00\", RENAME_NOREPLACE\\) = 0" "$T/h.st"
	ok $? "and gave it back"
	! grep -qE 'unlinkat\(.*= 0' "$T/h.st"
	ok $? "and removed nothing"
	# sbxd (and its executors) during one more round trip: no name removed in queue/wake
	pids=$(for p in $DPID $(pgrep -P "$DPID"); do printf -- '-p %s ' "$p"; done)
	strace -qq -f $pids -o "$T/d.st" -e trace=unlinkat,mknodat &
	sp=$!
	sleep 0.5
	hook_bash "./task.sh loop" >/dev/null
	sleep 0.5
	kill $sp 2>/dev/null
	wait $sp 2>/dev/null
	! grep -qE 'unlinkat\([0-9]+, "[0-9a-f]{16}", 0\) = 0' "$T/d.st"
	ok $? "sbxd removed no wake FIFO"
else
	for _ in 1 2 3 4 5 6; do ok 0 "# SKIP strace is not installed"; done
fi

# A hook that answers "pending" leaves its FIFO at its id (for the next
# identical call); a killed one too: sbxd's sweep (a second after a
# delivery) pools them.
set_limits '{"hook_wait_seconds": 1}'
pid_=$(hook_bash "./task.sh later" | req_id)
[ -p "$W/$pid_" ] && [ ! -e "$W/.free.00" ]
ok $? "a hook that answered pending left its FIFO (the pooled one) at its id"
mkfifo -m 0600 "$W/00000000000000aa"
hook_bash "./task.sh loop" >/dev/null
pooled() { [ ! -e "$W/$pid_" ] && [ ! -e "$W/00000000000000aa" ] &&
	[ "$(ls -A "$W" | grep -c '^\.free\.')" -eq 3 ]; }
wait_for 10 pooled
ok $? "sbxd's sweep put the pending hook's and a killed hook's FIFO in the pool"
is "$(ls -A "$W" | grep -vc '^\.free\.[0-9][0-9]$')" 0 "nothing else is left in queue/wake"

# A result for a request whose hook answered "pending" (nobody holds its
# FIFO): sbxd's wake pools the FIFO at once (no delivery, no sweep: the
# last retention pass is long done).
lid=$(hook_bash "./task.sh late" | req_id)
[ -p "$W/$lid" ]
ok $? "another pending hook left its FIFO at its id"
sleep 3
"$SBX" -C "$FOLDER" approve "$lid" >/dev/null
wait_for 20 test -f "$FOLDER/.sandbox/results/$lid.json"
back() { [ ! -e "$W/$lid" ] && [ "$(ls -A "$W" | grep -c '^\.free\.')" -eq 3 ]; }
wait_for 10 back
ok $? "its result's wake found no reader and put the FIFO back in the pool"
done_testing
