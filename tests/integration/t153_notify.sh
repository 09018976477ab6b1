#!/usr/bin/env bash
# Notifications (CONFIG/notify.json): a webhook on a local HTTP server
# (python3) and a command receive a new request, a denial, a rate-limit
# hit and a request about to expire; generic, Slack and ntfy bodies;
# secrets scrubbed and agent text escaped; a webhook that never answers
# does not hold up sbxd; bad settings stop sbxd at start.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP python3 is not installed (needed for the local HTTP server)"
	exit 0
fi
SINK="$(cd "$(dirname "$0")/../tools" && pwd)/webhook_sink.py"
SPIDS=""
trap 'for p in $SPIDS; do kill "$p" 2>/dev/null; done; cleanup' EXIT

sink() {	# sink NAME [--hang]: starts a server; its port in $PORT
	python3 "$SINK" "$T/$1.port" "$T/$1.log" ${2:-} >/dev/null 2>&1 &
	SPIDS="$SPIDS $!"
	wait_for 10 test -s "$T/$1.port"
	PORT=$(cat "$T/$1.port")
}
bodies() { jq -r '.body' "$T/$1.log" 2>/dev/null; }
has_event() { bodies "$1" | jq -e --arg e "$2" 'select(.event == $e)' >/dev/null 2>&1; }
conf() { printf '%s\n' "$1" >"$SBX_CONFIG_DIR/notify.json"; }

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1, "request_ttl_seconds": 12, "max_per_minute": 6}'
sink hooks
port=$PORT
conf "{\"webhook\": \"http://127.0.0.1:$port/sbx\", \"command\": \"cat >>$T/cmd.log; echo >>$T/cmd.log\",
  \"expire_warn_seconds\": 10, \"timeout_seconds\": 5}"
start_daemon
ok $? "sbxd starts with notify.json"

# A new request (with a token and an escape sequence in it).
hook_bash $'./task.sh expire ghp_abcdefghijklmnopqrstuvwxyz0123456789 \033[2J' >/dev/null
wait_for 10 has_event hooks request
ok $? "the webhook receives a new request"
b=$(bodies hooks | jq -c 'select(.event == "request")' | head -1)
id=$(pending_ids | head -1)
is "$(echo "$b" | jq -r .id)" "$id" "with the request id"
like "$(echo "$b" | jq -r .text)" "sbx: new request $id in $FOLDER: Bash \\./task\\.sh expire" \
	"and a one-line text"
unlike "$b" "ghp_abcdefghijklmnopqrstuvwxyz0123456789" "a token in the command is scrubbed"
like "$(echo "$b" | jq -r .command)" '\\e\[2J' "the escape sequence is shown, not sent"
[ "$(echo "$b" | jq -r .text | tr -d '\n' | LC_ALL=C tr -d '[:print:]' | wc -c)" = 0 ]
ok $? "the text holds no control character"
is "$(jq -r .content_type "$T/hooks.log" | head -1)" "application/json" "it is a JSON POST"
is "$(jq -r .path "$T/hooks.log" | head -1)" "/sbx" "to the webhook's path"
wait_for 10 grep -q '"event":"request"' "$T/cmd.log"
ok $? "the command receives the same JSON on stdin"

# A denial.
hook_bash "./task.sh deny-me" >/dev/null
wait_for 10 bash -c "[ \$($SBX -C $FOLDER pending --json | jq length) = 2 ]"
did=$("$SBX" -C "$FOLDER" pending --json | jq -r '.[] | select(.command == "./task.sh deny-me") | .id')
"$SBX" -C "$FOLDER" deny "$did" --reason "not on a Friday" >/dev/null
wait_for 10 has_event hooks denied
ok $? "a denial is announced"
like "$(bodies hooks | jq -r 'select(.event == "denied") | .text')" "denied $did.*not on a Friday" \
	"with the reason"

# About to expire unanswered (12 s to live; warned in the last 10 s, once
# half of it has passed).
wait_for 20 has_event hooks expiring
ok $? "a request about to expire unanswered is announced"
is "$(bodies hooks | jq -r 'select(.event == "expiring") | .id' | sort -u)" "$id" \
	"once, for the request that is about to expire"

# A rate-limit hit: six requests a minute.
for i in 1 2 3 4 5 6; do hook_bash "./task.sh rate $i" >/dev/null; done
wait_for 10 has_event hooks rate_limited
ok $? "a rate-limit hit is announced"
like "$(bodies hooks | jq -r 'select(.event == "rate_limited") | .detail' | head -1)" "rate limit" \
	"with what was hit"

# Slack and ntfy bodies.
stop_daemon
conf "{\"webhook\": \"http://127.0.0.1:$port/slack\", \"format\": \"slack\", \"events\": [\"denied\"]}"
start_daemon
sleep 1	# the rate limit counts the last minute; deny one by hand
hook_bash "./task.sh slack" >/dev/null
sid=$(pending_ids | tail -1)
"$SBX" -C "$FOLDER" deny "$sid" --reason nope >/dev/null
wait_for 10 grep -q '"/slack"' "$T/hooks.log"
s=$(jq -r 'select(.path == "/slack") | .body' "$T/hooks.log" | head -1)
is "$(echo "$s" | jq -r 'keys | join(",")')" "text" "format slack: a body with only \"text\""
like "$(echo "$s" | jq -r .text)" "denied" "saying what happened"
stop_daemon
conf "{\"webhook\": \"http://127.0.0.1:$port/\", \"format\": \"ntfy\", \"topic\": \"sbx-test\", \"events\": [\"denied\"]}"
start_daemon
hook_bash "./task.sh ntfy" >/dev/null
nid=$(pending_ids | tail -1)
"$SBX" -C "$FOLDER" deny "$nid" >/dev/null
wait_for 10 bash -c "jq -r .body $T/hooks.log | jq -e 'select(.topic)' >/dev/null 2>&1"
n=$(jq -r .body "$T/hooks.log" | jq -c 'select(.topic)' | head -1)
is "$(echo "$n" | jq -r '[.topic, .title] | join(" ")')" "sbx-test sbx: denied" \
	"format ntfy: topic and title for ntfy's JSON publishing"
like "$(echo "$n" | jq -r .message)" "denied $nid" "and the message"

# A webhook that accepts and never answers: sbxd goes on at once, and the
# delivery is given up after timeout_seconds.
stop_daemon
set_limits '{"max_per_minute": 100}'
sink hang --hang
hport=$PORT
conf "{\"webhook\": \"http://127.0.0.1:$hport/x\", \"timeout_seconds\": 2}"
start_daemon
for p in $(pending_ids); do "$SBX" -C "$FOLDER" deny "$p" >/dev/null; done
hook_bash "./task.sh hang 1" >/dev/null
hook_bash "./task.sh hang 2" >/dev/null
wait_for 10 grep -q accepted "$T/hang.log"
ok $? "the hanging webhook got a connection"
wait_for 5 bash -c "[ \$($SBX -C $FOLDER pending --json | jq '[.[] | select(.command | startswith(\"./task.sh hang\"))] | length') = 2 ]"
ok $? "sbxd records the next requests while a delivery hangs"
wait_for 10 grep -Eq "webhook http://127.0.0.1:$hport/x for request: no answer" "$T/sbxd.log"
ok $? "the hung delivery is given up after its timeout and logged"

# Bad settings stop sbxd at start, with the reason.
stop_daemon
conf '{"webhook": "https://ntfy.sh/x"}'
"$SBXD" "$FOLDER" 2>"$T/bad.err"
is "$?" 2 "an https webhook: sbxd refuses to start"
like "$(cat "$T/bad.err")" "https is not supported" "and says https is unsupported"
conf '{"webhok": "http://127.0.0.1:1/"}'
"$SBXD" "$FOLDER" 2>"$T/bad.err"
like "$(cat "$T/bad.err")" 'unknown key "webhok"' "a misspelt key is refused"
conf '{"command": "true", "events": ["sometimes"]}'
"$SBXD" "$FOLDER" 2>"$T/bad.err"
like "$(cat "$T/bad.err")" '"events": each is one of' "an unknown event is refused"

done_testing
