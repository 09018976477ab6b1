#!/usr/bin/env bash
# sbxd is event-driven (issue 16): no periodic wake, no periodic rescan.
# Seen from outside: idle, it sleeps in poll(2) with no timeout and its
# timer is disarmed; sbx-proxy's drop box (proxy/events) and delivery
# receipts are taken in through inotify; a pending request arms the timer
# for its expiry, and the timer (not a pass) expires it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/evlib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1, "request_ttl_seconds": 10}'
start_daemon
ok $? "sbxd starts"
req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }
status_of() { "$SBX" -C "$FOLDER" show "$1" --json | jq -r .status; }

if can_see_sleep; then
	wait_for 20 sleeping "$DPID"
	ok $? "idle, sbxd sleeps in poll(2) with no timeout"
	wait_for 20 disarmed "$DPID"
	ok $? "... and its timer is disarmed: nothing is due"
else
	ok 0 "# SKIP this machine does not show the syscall a process sleeps in"
	ok 0 "# SKIP (same)"
fi

# A connection record dropped the way sbx-proxy does (tmp, then rename).
# Nothing else wakes sbxd: only its inotify watch on proxy/events can.
cat >"$FOLDER/.sandbox/proxy/tmp/x" <<'J'
{"v":1,"kind":"network_connection","agent":"sbx-proxy","session_id":"s191","time":1,
 "method":"CONNECT","host":"t191.example","port":443,"verdict":"allowed","rule":"test",
 "reason":"","bytes_up":1,"bytes_down":2,"duration_ms":3,"error":""}
J
mv "$FOLDER/.sandbox/proxy/tmp/x" "$FOLDER/.sandbox/proxy/events/00000000000191aa.json"
wait_for 20 sh -c "[ ! -e '$FOLDER/.sandbox/proxy/events/00000000000191aa.json' ]"
ok $? "a connection record in proxy/events is taken in through its watch"
"$SBX" -C "$FOLDER" audit show --json | jq -r '.[] | select(.event == "network_connection")
	| .data.host' | grep -qx t191.example
ok $? "... and is in the audit log"

# A request nobody decides: the timer is armed for its expiry (10 s).
a=$(hook_bash "./task.sh never" | req_id)
[ -n "$a" ]
ok $? "a request is pending"
if can_see_sleep; then
	wait_for 20 sh -c ". '$(dirname "$0")/evlib.sh'; v=\$(timer_value $DPID);
		[ \"\$v\" != '0 0' ] && [ \"\${v% *}\" -le 11 ]"
	ok $? "the timer is armed for the request's expiry, not for a periodic pass"
	wait_for 20 sleeping "$DPID"
	ok $? "... and sbxd still sleeps with no poll timeout"
else
	ok 0 "# SKIP this machine does not show the syscall a process sleeps in"
	ok 0 "# SKIP (same)"
fi
wait_for 40 sh -c "[ \"\$('$SBX' -C '$FOLDER' show $a --json | jq -r .status)\" = expired ]"
ok $? "the timer expires it"
is "$(jq -r .status "$FOLDER/.sandbox/results/$a.json" 2>/dev/null)" "expired" \
	"... with a result the agent can read"
if can_see_sleep; then
	wait_for 30 disarmed "$DPID"
	ok $? "nothing left due: the timer is disarmed again"
else
	ok 0 "# SKIP this machine does not show the syscall a process sleeps in"
fi

# A delivery receipt: the request moves to done/ at once, through the
# watch on queue/delivered (no sweep pass comes).
set_limits '{"hook_wait_seconds": 30, "request_ttl_seconds": 600}'
(hook_bash "./task.sh delivered" >"$T/hook.out") &
hp=$!
wait_for 20 has_pending
id=$(pending_ids | head -1)
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait "$hp"
like "$(reason <"$T/hook.out")" "out: delivered" "the hook delivered the command's output"
wait_for 20 test -f "$FOLDER/.sandbox/done/$id.json"
ok $? "its receipt moved the request to done/"
[ -e "$FOLDER/.sandbox/queue/delivered/$id" ]
ok $? "... and the receipt stays (no second claim of that result)"
is "$(runs)" "1" "the command ran once"
unlike "$(cat "$T/sbxd.log")" "rescan|overflow" "no rescan happened"

stop_daemon
done_testing
