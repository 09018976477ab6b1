#!/usr/bin/env bash
# Secrets never reach the audit log: many kinds of secrets travel through
# the whole loop (escalated commands, approvals, denial reasons, command
# output, PostToolUse events, rejected file names) and none of them, and
# no JWT-shaped string, appears in audit.jsonl.
. "$(dirname "$0")/lib.sh"

LOG="$FOLDER/.sandbox/audit.jsonl"

# Built at run time so that this file itself holds no token-shaped text.
r() { head -c 4000 /dev/urandom | tr -dc "$1" | head -c "$2"; }
AWS="AKIA$(r 'A-Z0-9' 16)"
AWS_SECRET="$(r 'A-Za-z0-9/+' 40)"
GHP="ghp_$(r 'A-Za-z0-9' 36)"
GHPAT="github_pat_$(r 'A-Za-z0-9' 22)_$(r 'A-Za-z0-9' 59)"
GLPAT="glpat-$(r 'A-Za-z0-9_-' 20)"
SLACK="xoxb-$(r '0-9' 11)-$(r '0-9' 12)-$(r 'A-Za-z0-9' 24)"
SLACK_HOOK="T$(r 'A-Z0-9' 8)/B$(r 'A-Z0-9' 8)/$(r 'A-Za-z0-9' 24)"
BEARER="$(r 'A-Za-z0-9._-' 32)"
JWT="eyJ$(r 'A-Za-z0-9_-' 20).eyJ$(r 'A-Za-z0-9_-' 40).$(r 'A-Za-z0-9_-' 43)"
PEM_BODY="MIIEo$(r 'A-Za-z0-9+/' 60)"
PASSWORD="hunter2-$(r 'a-z0-9' 12)"
SECRET="s3cr3t-$(r 'a-z0-9' 12)"
TOKEN="tok-$(r 'a-z0-9' 16)"
URLPASS="p4ss-$(r 'a-z0-9' 12)"
STRIPE="sk_live_$(r 'A-Za-z0-9' 24)"
OPENAI="sk-$(r 'A-Za-z0-9' 48)"
ALL="$AWS $AWS_SECRET $GHP $GHPAT $GLPAT $SLACK $SLACK_HOOK $BEARER $JWT $PEM_BODY $PASSWORD $SECRET $TOKEN $URLPASS $STRIPE $OPENAI"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 20, "max_per_minute": 1000}'
start_daemon
ok $? "sbxd starts"

# run_approved CMD: escalate CMD through the hook and approve it.
run_approved() {
	hook_bash "$1" >"$T/out" &
	local hp=$!
	wait_for 10 has_pending
	"$SBX" -C "$FOLDER" approve "$(pending_ids)" >/dev/null
	wait "$hp"
}

run_approved "./task.sh deploy --token $GHP --password $PASSWORD"
like "$(reason <"$T/out")" "out: deploy --token \\[REDACTED" "the command's output reaches the model scrubbed (issue 10)"
grep -qF -- "--token $GHP" "$FOLDER"/.sandbox/results/*.stdout
ok $? "the command ran with its secrets: the full output on disk has them"
run_approved "AWS_ACCESS_KEY_ID=$AWS AWS_SECRET_ACCESS_KEY=$AWS_SECRET ./task.sh s3 sync"
run_approved "./task.sh curl -H 'Authorization: Bearer $BEARER' https://api.example.com"
run_approved "./task.sh git push https://deploy:$URLPASS@git.example.com/repo.git"
run_approved "./task.sh notify $SLACK https://hooks.slack.com/services/$SLACK_HOOK"
run_approved "./task.sh login --jwt $JWT"
run_approved "./task.sh gl $GLPAT gh $GHPAT"
run_approved "./task.sh pay $STRIPE ai $OPENAI"
run_approved "./task.sh env secret=$SECRET token=$TOKEN"
run_approved "printf '%s' '-----BEGIN RSA PRIVATE KEY-----
$PEM_BODY
-----END RSA PRIVATE KEY-----' | ./task.sh key"
# A denial whose reason quotes a secret.
hook_bash "./task.sh again $GHP" >"$T/out" &
hp=$!
wait_for 10 has_pending
"$SBX" -C "$FOLDER" deny "$(pending_ids)" --reason "never paste password=$PASSWORD or $GHP here" >/dev/null
wait "$hp"
# PostToolUse events carrying secrets.
post() {
	jq -cn --arg tool "$1" --argjson input "$2" --arg cwd "$FOLDER" \
		'{session_id: "sess-1", cwd: $cwd, hook_event_name: "PostToolUse",
		  tool_name: $tool, tool_input: $input, tool_response: {interrupted: false},
		  tool_use_id: "toolu_s"}' | "$HOOK" post >/dev/null
}
post Bash "$(jq -cn --arg c "export GITHUB_TOKEN=$GHP; curl -u admin:$PASSWORD https://x --data '{\"token\":\"$TOKEN\"}' -H 'Authorization: Bearer $JWT'" '{command: $c}')"
post Write "$(jq -cn --arg p "$FOLDER/$AWS.txt" '{file_path: $p, content: "x"}')"
# A rejected queue file whose name carries a token.
echo x >"$FOLDER/.sandbox/queue/new/$GHP.json"
wait_for 10 grep -q '"event":"post_tool_use".*"tool":"Write"' "$LOG"
wait_for 10 grep -q 'file_rejected' "$LOG"
stop_daemon

test -s "$LOG" && [ "$(jq -s 'map(select(.event == "request_received")) | length' "$LOG")" -ge 11 ]
ok $? "the log holds every request"
leaks=""
for s in $ALL; do
	grep -qF -- "$s" "$LOG" && leaks="$leaks $s"
done
is "$leaks" "" "none of the $(echo $ALL | wc -w | tr -d " ") secrets appears in the log"
for s in $ALL; do
	grep -rqF -- "$s" "$FOLDER/.sandbox/audit"*.jsonl && echo "LEAK: $s"
done >"$T/leaks"
is "$(cat "$T/leaks")" "" "nor in any segment"
is "$(grep -cE 'eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+' "$LOG")" "0" "no JWT-shaped string is in the log"
leaks=""
for s in $ALL; do
	grep -qF -- "$s" "$T/sbxd.log" && leaks="$leaks $s"
done
is "$leaks" "" "nor in sbxd's own log (stderr)"
is "$(grep -c 'PRIVATE KEY' "$LOG")" "0" "no private key block is in the log"
n=$(grep -o '\[REDACTED' "$LOG" | wc -l)
[ "$n" -ge 20 ]
ok $? "redaction markers show where secrets were ($n)"
like "$(jq -r 'select(.event == "request_received") | .data.command' "$LOG" | head -1)" \
	'^\./task\.sh deploy --token \[REDACTED[^]]*\] --password \[REDACTED\]$' \
	"the rest of a command stays readable"
like "$(jq -r 'select(.event == "post_tool_use" and .data.tool == "Write") | .data.path' "$LOG")" \
	'/\[REDACTED:aws-key\]\.txt$' "a secret in a file path is redacted too"
"$SBX" -C "$FOLDER" audit verify >/dev/null 2>&1
ok $? "the redacted log verifies (redaction happens before hashing)"

done_testing
