#!/usr/bin/env bash
# A runaway agent: pending cap, rate cap, expiry of undecided requests.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1, "max_pending": 3, "max_per_minute": 5, "request_ttl_seconds": 10}'
start_daemon

for i in 1 2 3; do hook_bash "./task.sh p$i" >/dev/null; done
wait_for 10 bash -c "[ \$($SBX -C $FOLDER pending --json | jq length) = 3 ]"
ok $? "three requests are pending"
out=$(hook_bash "./task.sh p4")
is "$(echo "$out" | decision)" "deny" "the fourth is denied by the hook"
like "$(echo "$out" | reason)" "already waiting for a human.*limit 3" "with the pending cap as the reason"

# Expiry: nobody decides, the request expires and is never run.
wait_for 25 bash -c "[ \$($SBX -C $FOLDER pending --json | jq length) = 0 ]"
ok $? "undecided requests expire"
out=$(hook_bash "./task.sh p1")
like "$(echo "$out" | reason | head -1)" "expired without a decision" "the model learns it expired"
id=$(echo "$out" | reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
is "$("$SBX" -C "$FOLDER" show "$id" --json | jq -r .status)" "expired" "sbx show says expired"
# An approval after expiry is refused.
"$SBX" -C "$FOLDER" approve "$id" 2>"$T/late.err"
[ $? -ne 0 ]
ok $? "approving an expired request fails"
like "$(cat "$T/late.err")" "expired, not pending" "and says it expired"
is "$(runs)" "0" "nothing ran"

# Rate: more than 5 new requests a minute are rejected by the daemon.
for i in 5 6 7 8; do hook_bash "./task.sh r$i" >/dev/null; done
out=$(hook_bash "./task.sh r9")
out=$(hook_bash "./task.sh r9")
like "$(echo "$out" | reason)" "rate limit" "past max_per_minute the request is refused with the rate limit"

done_testing
