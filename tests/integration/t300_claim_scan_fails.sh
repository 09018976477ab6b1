#!/usr/bin/env bash
# A call whose result is already there (found in pending/ by the hook's
# first queue scan, and claimed: its delivery receipt made) is handed
# back even when the second scan, of queue/new, fails. Before, the hook
# answered "cannot read the queue" after it had made the receipt: the
# result was marked delivered and never handed to anyone (and a one-time
# allowance's wake FIFO was left open). queue/new is made unreadable from
# outside by swapping it for a symlink (no symlink on the way is followed),
# with sbxd stopped (it would stop serving a folder whose tree changed).
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1}'
start_daemon
Q="$FOLDER/.sandbox/queue"
req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }

id=$(hook_bash "./task.sh kept" | req_id)
[ -n "$id" ]
ok $? "a call nobody approved in time is pending"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait_for 20 test -f "$FOLDER/.sandbox/results/$id.json"
ok $? "it is approved and run; its result waits in results/"
stop_daemon

mkdir "$T/elsewhere"
mv "$Q/new" "$Q/new.real" && ln -s "$T/elsewhere" "$Q/new"
out=$(hook_bash "./task.sh kept")
r=$(echo "$out" | reason)
unlike "$r" "cannot read the queue" "the failing scan of queue/new does not drop the claimed result"
like "$r" "ALREADY EXECUTED" "the identical call gets the result"
like "$r" "out: kept" "... with its output"
test -f "$Q/delivered/$id"
ok $? "... and its receipt is made"

# Nothing claimed: the failing scan is still said, and nothing is queued.
r=$(hook_bash "./task.sh other" | reason)
like "$r" "cannot read the queue" "with nothing to hand back, the failing scan is said"
is "$(ls -A "$T/elsewhere" | wc -l | tr -d ' ')" 0 "nothing was written through the symlink"

rm "$Q/new" && mv "$Q/new.real" "$Q/new"
start_daemon
r=$(hook_bash "./task.sh kept" | reason)
like "$r" "pending as request" "the next identical call is queued anew (the result went once)"
is "$(runs)" 1 "the command ran once"
done_testing
