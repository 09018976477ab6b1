#!/usr/bin/env bash
# The wake FIFO when sbxd runs as another user than the agent (deployment
# 3 in the README): the FIFO is the hook's, owned by the agent's user,
# who owns queue/wake. sbxd pokes a FIFO of one link owned by its own user
# or by the owner of queue/wake, and nothing else: not a FIFO of a third
# user, not a hard link to a FIFO elsewhere. Here sbxd runs as root and
# the agent's user is `nobody` (a second uid: the test needs root); the
# FIFO is held open as a waiting hook holds it, and what arrives in it is
# read from outside.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to own files as another user (chown)"
NOBODY=$(id -u nobody 2>/dev/null) || skip_all "no user nobody"
THIRD=4242
[ "$NOBODY" != "$THIRD" ] || THIRD=4243

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1}'
start_daemon
W="$FOLDER/.sandbox/queue/wake"
req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }
# got_wake: what arrived in fd 7 (the FIFO held open), without blocking
got_wake() { python3 -c 'import os
os.set_blocking(7, False)
try:
    print(len(os.read(7, 100)))
except BlockingIOError:
    print(0)'; }
# case NAME DIR-OWNER FIFO-OWNER [link]: a pending request whose wake FIFO
# is owned as given (held open on fd 7, as by a waiting hook); approved
# and run; prints how many bytes sbxd wrote into it.
case_run() {
	local id
	id=$(hook_bash "./task.sh $1" | req_id)
	chown "$2" "$W"
	rm -f "$W/$id"
	mkfifo -m 0600 "$W/$id"
	chown "$3" "$W/$id"
	[ "${4:-}" = link ] && ln "$W/$id" "$T/fifo-link-$1"
	exec 7<>"$W/$id"
	wait_for 10 known "$id"
	"$SBX" -C "$FOLDER" approve "$id" >/dev/null
	wait_for 20 grep -q "request $id: done" "$T/sbxd.log"
	got_wake
	exec 7<&-
	# sbxd leaves the name (the hook gives the FIFO back to the pool)
	[ -p "$W/$id" ] || echo "name-gone"
}

is "$(case_run mine root root)" 1 "sbxd's own FIFO in its own queue/wake is poked"
is "$(case_run agent nobody nobody)" 1 \
	"the agent user's FIFO in the agent user's queue/wake is poked (sbxd runs as another user)"
is "$(case_run third root nobody)" 0 "a FIFO of another user in sbxd's queue/wake is not"
is "$(case_run stranger nobody "$THIRD")" 0 \
	"a FIFO of a third user in the agent's queue/wake is not"
is "$(case_run linked nobody nobody link)" 0 "a FIFO with a second link elsewhere is not"
chown root "$W"
is "$(runs)" 5 "each request ran once"
done_testing
