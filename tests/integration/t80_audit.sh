#!/usr/bin/env bash
# The audit log of a real loop: one request's story end to end, PostToolUse
# events, `sbx audit verify|show|export`, and every kind of tampering.
. "$(dirname "$0")/lib.sh"

LOG="$FOLDER/.sandbox/audit.jsonl"
RECHAIN="$TOOLS/rechain"

# post_payload TOOL INPUT-JSON RESPONSE-JSON: a PostToolUse payload.
post_payload() {
	jq -cn --arg tool "$1" --argjson input "$2" --argjson resp "$3" --arg cwd "$FOLDER" \
		'{session_id: "sess-1", transcript_path: "/dev/null", cwd: $cwd,
		  hook_event_name: "PostToolUse", tool_name: $tool, tool_input: $input,
		  tool_response: $resp, tool_use_id: "toolu_post"}'
}
verify() { "$SBX" -C "$FOLDER" audit verify "$@" 2>&1; }

init_folder
setup_task
set_limits '{"hook_wait_seconds": 20}'
start_daemon
ok $? "sbxd starts"
test -f "$SBX_CONFIG_DIR/daemon.key" && [ "$(stat -c %a "$SBX_CONFIG_DIR/daemon.key")" = 600 ]
ok $? "sbxd created its checkpoint key, mode 0600"
test -f "$SBX_CONFIG_DIR/daemon.pub"
ok $? "and its public key for the verifier"

# One approved request, one denied, one bad file.
hook_bash "./task.sh one" >"$T/out1" &
hp=$!
wait_for 10 has_pending
id=$(pending_ids)
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait "$hp"
# A restart puts a signed checkpoint after the first request's records
# (the tampering checks below need one in the middle of the log; sbxd
# checkpoints when it starts and stops, and 5 s after records when idle).
wait_for 15 grep -q '"event":"result_delivered","request":"'"$id"'"' "$LOG"
stop_daemon
start_daemon
hook_bash "./task.sh two" >"$T/out2" &
hp=$!
wait_for 10 has_pending
id2=$(pending_ids)
"$SBX" -C "$FOLDER" deny "$id2" --reason "not today" >/dev/null
wait "$hp"
echo '{}' >"$FOLDER/.sandbox/queue/new/not-a-request.json"

# PostToolUse: a file written by the agent, and a Bash command.
printf 'new content\n' >"$FOLDER/notes.txt"
out=$(post_payload Write "{\"file_path\": \"$FOLDER/notes.txt\", \"content\": \"new content\\n\"}" \
	'{"type": "update", "originalFile": "old content\n"}' | "$HOOK" post)
rc=$?
is "$out" "{}" "sbx-hook post answers {}"
is "$rc" 0 "and exits 0"
# Without originalFile, the original that sbx-hook pre kept gives "before".
printf 'first version\n' >"$FOLDER/kept.txt"
payload Write "{\"file_path\": \"$FOLDER/kept.txt\", \"content\": \"second\\n\"}" |
	CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre >"$T/pre-write.out"
is "$(decision <"$T/pre-write.out")" "allow" "an allowed Write (sbx-hook pre keeps the original)"
printf 'second\n' >"$FOLDER/kept.txt"
post_payload Write "{\"file_path\": \"$FOLDER/kept.txt\", \"content\": \"second\\n\"}" \
	'{"type": "update"}' | "$HOOK" post >/dev/null
out=$(post_payload Bash '{"command": "make test"}' '{"stdout": "", "stderr": "", "interrupted": false, "exit_code": 2}' |
	"$HOOK" post)
is "$out" "{}" "sbx-hook post answers {} for Bash"
out=$(echo 'not json' | "$HOOK" post; echo "rc=$?")
is "$out" "{}
rc=0" "sbx-hook post never fails the tool, even on garbage"
# A malformed event file is rejected, not logged.
echo '{"v": 1, "kind": "post_tool_use", "tool": "Write", "evil": 1}' \
	>"$FOLDER/.sandbox/queue/events/0123456789abcdef.json"

wait_for 15 grep -q '"event":"result_delivered","request":"'"$id"'"' "$LOG"
ok $? "the hook's receipt is logged as result_delivered"
wait_for 10 grep -q '"exit_code":2,.*"tool":"Bash"' "$LOG"
ok $? "the PostToolUse Bash event reaches the log"
wait_for 10 grep -q '"event":"file_rejected".*0123456789abcdef' "$LOG"
ok $? "a malformed event file is rejected and the rejection logged"
stop_daemon

# The log itself.
jq -e . "$LOG" >/dev/null
ok $? "every line of audit.jsonl is JSON (jq reads it)"
is "$(jq -s '[.[].seq] == [range(1; length + 1)]' "$LOG")" "true" "sequence numbers run 1, 2, 3, ..."
is "$(jq -s '[range(1; length) as $i | .[$i].prev == .[$i - 1].hash] | all' "$LOG")" "true" \
	"each record's prev is the previous record's hash"
is "$("$RECHAIN" <"$LOG" | cmp - "$LOG" && echo same)" "same" \
	"re-encoding every parsed record gives the same bytes (the encoding is canonical)"
events=$(jq -r 'select(.request == "'"$id"'") | .event' "$LOG" | tr '\n' ' ')
is "$events" "request_received decision approval_consumed exec_started exec_finished result_delivered " \
	"one request's records, in order, from arrival to delivery"
r=$(jq -c 'select(.request == "'"$id"'" and .event == "request_received") | .data' "$LOG")
is "$(echo "$r" | jq -r .trigger)" "shell" "request received: with its trigger"
like "$(echo "$r" | jq -r .rule)" 'task.sh' "and the rule"
is "$(echo "$r" | jq -r .status)" "pending" "and the daemon's classification"
d=$(jq -c 'select(.request == "'"$id"'" and .event == "decision")' "$LOG")
like "$(echo "$d" | jq -r .actor)" '^approver:' "the decision's actor is the approver"
is "$(echo "$d" | jq -r '.data.verdict + " " + (.data.remember | tostring)')" "approve false" \
	"with the verdict and remember"
s=$(jq -c 'select(.request == "'"$id"'" and .event == "exec_started") | .data' "$LOG")
like "$(echo "$s" | jq -r .pid)" '^[0-9]+$' "execution started: with the pid"
is "$(echo "$s" | jq -r .timeout_s)" "600" "and the timeout"
f=$(jq -c 'select(.request == "'"$id"'" and .event == "exec_finished") | .data' "$LOG")
is "$(echo "$f" | jq -r .exit_code)" "0" "execution finished: exit status"
is "$(echo "$f" | jq -r .stdout_blake2b)" "$(b2sum -l 256 "$FOLDER/.sandbox/results/$id.stdout" | cut -d' ' -f1)" \
	"output hash matches the captured output"
is "$(echo "$f" | jq -r .stdout_bytes)" "$(wc -c <"$FOLDER/.sandbox/results/$id.stdout" | tr -d ' ')" \
	"output size matches"
unlike "$(cat "$LOG")" 'out: one' "the output itself is not in the log"
is "$(jq -r 'select(.request == "'"$id2"'" and .event == "request_closed") | .data.status + ": " + .data.reason' "$LOG")" \
	"denied: not today" "a denial is closed with its reason"
like "$(jq -r 'select(.event == "file_rejected") | .data.name' "$LOG")" "not-a-request.json" \
	"a rejected queue file is logged with why"
w=$(jq -c 'select(.event == "post_tool_use" and (.data.path // "" | endswith("notes.txt"))) | .data' "$LOG")
is "$(echo "$w" | jq -r .after)" "$(b2sum -l 256 "$FOLDER/notes.txt" | cut -d' ' -f1)" \
	"PostToolUse Write: the file's hash after the change"
is "$(echo "$w" | jq -r .before)" "$(printf 'old content\n' | b2sum -l 256 | cut -d' ' -f1)" \
	"and before it (from the client's originalFile)"
k=$(jq -c 'select(.event == "post_tool_use" and (.data.path // "" | endswith("kept.txt"))) | .data' "$LOG")
is "$(echo "$k" | jq -r .before)" "$(printf 'first version\n' | b2sum -l 256 | cut -d' ' -f1)" \
	"PostToolUse Write without originalFile: before is the original sbx-hook pre kept"
is "$(echo "$k" | jq -r .after)" "$(printf 'second\n' | b2sum -l 256 | cut -d' ' -f1)" "and after the new content"
is "$(jq -r 'select(.event == "post_tool_use" and .data.tool == "Bash") | .session' "$LOG")" "sess-1" \
	"PostToolUse events carry the session id"
is "$(jq -r 'select(.event == "policy_loaded") | .data.hash' "$LOG" | head -1)" \
	"$(b2sum -l 256 "$FOLDER/.sandbox/policy.json" | cut -d' ' -f1)" "policy loaded: with its hash"
is "$(jq -r .event "$LOG" | head -1)" "daemon_start" "the log starts with the daemon's start"
is "$(jq -r .event "$LOG" | tail -2 | tr '\n' ' ')" "daemon_stop checkpoint " \
	"and ends with its stop and a signed checkpoint"
is "$(sqlite3 -cmd '.timeout 5000' "$FOLDER/.sandbox/state.db" 'select seq from audit_head')" \
	"$(jq -r 'select(.event == "daemon_stop") | .seq' "$LOG" | tail -1)" "state.db keeps the signed head"

# sbx audit verify / show / export.
out=$(verify)
is "$?" 0 "sbx audit verify: exit 0 on an intact log"
like "$out" "^audit log OK: [0-9]+ records" "and says so"
is "$(verify --json | jq -r .ok)" "true" "verify --json"
out=$("$SBX" -C "$FOLDER" audit show --request "${id:0:6}")
is "$(echo "$out" | wc -l | tr -d ' ')" "6" "audit show --request: the request's story, six records"
like "$(echo "$out" | head -1)" "request_received.*Bash \`./task.sh one\`" "starting with its arrival"
like "$(echo "$out" | tail -1)" "result_delivered" "ending with the delivery"
is "$("$SBX" -C "$FOLDER" audit show --session sess-1 --json | jq -r '[.[].session] | unique | join(",")')" \
	"sess-1" "audit show --session filters by session"
is "$("$SBX" -C "$FOLDER" audit show --since 1h --json | jq length)" "$(wc -l <"$LOG" | tr -d ' ')" \
	"audit show --since 1h shows everything from this test"
is "$("$SBX" -C "$FOLDER" audit show --since "$(( $(date +%s) + 3600 ))")" "no records match" \
	"and --since in the future nothing"
out=$("$SBX" -C "$FOLDER" audit export --syslog 2>&1)
is "$?" 0 "audit export --syslog"
like "$out" "sent [0-9]+ records" "says how many records it sent"

# Tampering: each on a fresh copy of the intact log, with sbxd stopped.
cp "$LOG" "$T/pristine"
n=$(wc -l <"$LOG" | tr -d ' ')
mid=$((n / 2))
restore() { cp "$T/pristine" "$LOG"; }
# tampered KIND-REGEX MESSAGE-REGEX DESCRIPTION
tampered() {
	local out rc
	out=$(verify)
	rc=$?
	[ "$rc" -ne 0 ]
	ok $? "$3: verify fails"
	like "$out" "BROKEN \\($1\\)" "$3: reported as $1"
	like "$out" "$2" "$3: located"
	restore
}

# 1. One byte changed in a middle record.
sed -i "${mid}s/\"actor\":\"/\"actor\":\"X/" "$LOG"
tampered altered "audit.jsonl line $mid, record $mid: record $mid was altered" "one byte changed in record $mid"
# 2. A record deleted.
sed -i "${mid}d" "$LOG"
tampered deleted "record $mid is missing" "record $mid deleted"
# 3. A record inserted (a copy of an earlier, valid record).
sed -n 3p "$T/pristine" >"$T/rec3"
sed -i "${mid}r $T/rec3" "$LOG"
tampered inserted "line $((mid + 1)) holds record 3 again" "a record inserted after record $mid"
# 4. Two records swapped.
awk -v a="$mid" 'NR == a { hold = $0; next } NR == a + 1 { print; print hold; next } { print }' \
	"$T/pristine" >"$LOG"
tampered reordered "record $((mid + 1)) is at line $mid" "records $mid and $((mid + 1)) swapped"
# 5. The last records cut off.
head -n $((n - 3)) "$T/pristine" >"$LOG"
tampered truncated "ends at record $((n - 3)), but the signed head covers record $((n - 1))" \
	"the last three records cut off"
# 6. A re-chained forgery (hashes recomputed without the key), checkpoints kept.
"$RECHAIN" --replace './task.sh one' './task.sh 0ne' <"$T/pristine" >"$LOG"
tampered bad-checkpoint "checkpoint record [0-9]+ does not verify" "a re-chained forgery"
# 7. The same, checkpoint records dropped as well.
"$RECHAIN" --drop-checkpoints --replace './task.sh one' './task.sh 0ne' <"$T/pristine" >"$LOG"
out=$(verify)
[ $? -ne 0 ]
ok $? "a re-chained forgery without checkpoint records: verify fails"
like "$out" "BROKEN \\((forged|truncated)\\)" "reported as forged or truncated (it disagrees with the signed head)"
restore
# 8. The whole file replaced by a consistent forgery of the same length.
"$RECHAIN" --replace 'not today' 'ok today' <"$T/pristine" | grep -v '"event":"checkpoint"' >"$LOG"
out=$(verify)
[ $? -ne 0 ]
ok $? "a whole-file forgery that skips checkpoints fails"
restore
is "$(verify >/dev/null; echo $?)" 0 "the restored log verifies again"

# sbxd refuses to continue a log cut short while it was down.
head -n $((n - 3)) "$T/pristine" >"$LOG"
"$SBXD" "$FOLDER" 2>"$T/refuse.err"
is "$?" 2 "sbxd refuses to start on a log that ends before its signed head"
like "$(cat "$T/refuse.err")" "does not match its last signed head" "and says why"
restore

# Evidence bundle: verified elsewhere, without the config dir.
"$SBX" -C "$FOLDER" audit export --evidence "$T/evidence" >/dev/null
ok $? "audit export --evidence writes a bundle"
out=$(SBX_CONFIG_DIR="$T/elsewhere" "$SBX" audit verify --evidence "$T/evidence" 2>&1)
is "$?" 0 "the bundle verifies on its own (another config dir)"
like "$out" "audit log OK" "and says so"
pub=$(cat "$SBX_CONFIG_DIR/daemon.pub")
is "$(SBX_CONFIG_DIR="$T/elsewhere" "$SBX" audit verify --evidence "$T/evidence" --key "$pub" >/dev/null 2>&1; echo $?)" 0 \
	"with the daemon key pinned"
other=$(printf '%064d' 0 | tr 0 a)
is "$(SBX_CONFIG_DIR="$T/elsewhere" "$SBX" audit verify --evidence "$T/evidence" --key "$other" >/dev/null 2>&1; echo $?)" 1 \
	"with another key pinned it fails"
sed 's/not today/ok today!/' "$T/evidence" >"$T/evidence.bad"
out=$(SBX_CONFIG_DIR="$T/elsewhere" "$SBX" audit verify --evidence "$T/evidence.bad" 2>&1)
[ $? -ne 0 ]
ok $? "a tampered bundle fails"
like "$out" "BROKEN \\(altered\\)" "and says which record was altered"

done_testing
