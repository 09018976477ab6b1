#!/usr/bin/env bash
# The approval loop end to end: hook -> queue -> sbxd -> signed approval
# -> execution outside the agent -> output back in the hook's answer.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 20}'
start_daemon
ok $? "sbxd starts and serves the folder"

# 1. Approve once.
hook_bash "./task.sh one" >"$T/out1" &
hp=$!
wait_for 10 has_pending
ok $? "the escalated call appears in sbx pending"
json=$("$SBX" -C "$FOLDER" pending --json)
id=$(echo "$json" | jq -r '.[0].id')
like "$id" '^[0-9a-f]{16}$' "pending --json gives the request id"
is "$(echo "$json" | jq -r '.[0].tool')" "Bash" "pending --json gives the tool"
is "$(echo "$json" | jq -r '.[0].command')" "./task.sh one" "pending --json gives the exact command"
like "$(echo "$json" | jq -r '.[0].reason')" '.' "pending --json says why it was escalated"
like "$(echo "$json" | jq -r '.[0].created')" '^[0-9]+$' "pending --json gives the creation time"
is "$(runs)" 0 "nothing ran before approval"
"$SBX" -C "$FOLDER" approve "${id:0:6}" >"$T/approve.out" 2>&1
ok $? "sbx approve accepts a unique id prefix"
wait "$hp"
out=$(cat "$T/out1")
is "$(echo "$out" | decision)" "deny" "the hook answers deny, so the tool never runs in the agent"
r=$(echo "$out" | reason)
like "$(echo "$r" | head -1)" "^sbx: approved by [^ ]+ and ALREADY EXECUTED outside the agent as request $id \\(exit status 0, [0-9]+ ms\\)" \
	"the first line says approved, executed, id, exit status, duration"
like "$r" "out: one" "stdout reaches the model"
like "$r" "err: one" "stderr reaches the model"
is "$(runs)" 1 "the command ran exactly once"
# (the executor wakes the hook with its result, then exits; sbxd records
# the run as done when it reaps it: a moment later)
shows() { [ "$("$SBX" -C "$FOLDER" show "$1" --json | jq -r .status)" = "$2" ]; }
wait_for 10 shows "$id" done
is "$("$SBX" -C "$FOLDER" show "$id" --json | jq -r .status)" "done" "sbx show reports done"
is "$("$SBX" -C "$FOLDER" show "$id" --json | jq -r .result.exit_code)" "0" "sbx show has the result"

# 2. Deny with a reason.
hook_bash "./task.sh two" >"$T/out2" &
hp=$!
wait_for 10 has_pending
id=$(pending_ids)
"$SBX" -C "$FOLDER" deny "$id" --reason "not on a Friday" >/dev/null
wait "$hp"
r=$(cat "$T/out2" | reason)
is "$(cat "$T/out2" | decision)" "deny" "a denied request is answered deny"
like "$r" "DENIED by [^ ]+: not on a Friday" "the approver's reason reaches the model"
is "$(runs)" 1 "a denied command never runs"
is "$("$SBX" -C "$FOLDER" show "$id" --json | jq -r .status)" "denied" "sbx show reports denied"

# 3. A failing command: its exit status comes back.
hook_bash "./task.sh fail" >"$T/out3" &
hp=$!
wait_for 10 has_pending
"$SBX" -C "$FOLDER" approve "$(pending_ids)" >/dev/null
wait "$hp"
like "$(cat "$T/out3" | reason | head -1)" "exit status 3" "a non-zero exit status is reported"

# 4. Remember: the same call later runs without asking.
hook_bash "./task.sh three" >"$T/out4" &
hp=$!
wait_for 10 has_pending
id=$(pending_ids)
"$SBX" -C "$FOLDER" approve "$id" --remember >/dev/null
wait "$hp"
like "$(cat "$T/out4" | reason)" "out: three" "approved with --remember runs"
before=$(runs)
out=$(hook_bash "./task.sh three")
like "$(echo "$out" | reason | head -1)" "remembered approval" "the same call is auto-approved by the remembered rule"
is "$(runs)" "$((before + 1))" "and runs again, once"
like "$("$SBX" -C "$FOLDER" pending)" "auto-approved" "sbx pending lists auto-approved requests"
last=$("$SBX" -C "$FOLDER" show "$(echo "$out" | reason | head -1 | grep -oE '[0-9a-f]{16}')" --json)
is "$(echo "$last" | jq -r .auto_approved)" "true" "sbx show marks it auto-approved"
out=$(hook_bash "./task.sh three-other")
like "$(echo "$out" | reason)" "pending as request" "a different call is not covered by the remembered one"

# 5. Deadline first, then repeat: attach while pending, result once after.
set_limits '{"hook_wait_seconds": 1}'
"$SBX" -C "$FOLDER" deny "$(pending_ids)" >/dev/null
wait_for 10 bash -c "! $SBX -C $FOLDER pending --json | jq -e 'length > 0'"
out=$(hook_bash "./task.sh four")
r=$(echo "$out" | reason)
is "$(echo "$out" | decision)" "deny" "when the deadline passes the hook denies"
like "$r" "pending as request [0-9a-f]{16}" "and says the request is pending, with its id"
id=$(echo "$r" | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
out=$(hook_bash "./task.sh four")
like "$(echo "$out" | reason)" "pending as request $id" "repeating the call attaches to the same request"
wait_for 10 has_pending	# (sbxd may not have taken it in yet, under load)
is "$(pending_ids | wc -l | tr -d ' ')" "1" "no duplicate request was queued"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait_for 10 test -f "$FOLDER/.sandbox/results/$id.json"
ok $? "the daemon runs it after the hook gave up waiting"
out=$(hook_bash "./task.sh four")
like "$(echo "$out" | reason | head -1)" "ALREADY EXECUTED.*request $id" "repeating the call returns the stored result"
like "$(echo "$out" | reason)" "out: four" "with its output"
n=$(grep -c "run four" "$FOLDER/runs.log")
is "$n" "1" "it ran once"
out=$(hook_bash "./task.sh four")
like "$(echo "$out" | reason)" "pending as request" "the stored result is returned only once; a new call is a new request"
unlike "$(echo "$out" | reason)" "$id" "with a new id"

# 6. Large output is trimmed for the model, kept in full on disk.
set_limits '{"hook_wait_seconds": 20}'
# The last call of part 5 is queued; under load sbxd may not have taken it
# in yet: wait for it, deny it, and see it gone before the next request.
wait_for 10 has_pending
"$SBX" -C "$FOLDER" deny "$(pending_ids)" >/dev/null
# sbxd handles the decision asynchronously: let it leave pending first.
wait_for 10 bash -c "! $SBX -C $FOLDER pending --json | jq -e 'length > 0'"
hook_bash "./task.sh big 100000" >"$T/out6" &
hp=$!
wait_for 10 has_pending
id=$(pending_ids)
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait "$hp"
r=$(cat "$T/out6" | reason)
len=$(printf '%s' "$r" | wc -c)
[ "$len" -lt 8000 ]
ok $? "the reason stays under 8,000 characters (got $len)"
like "$r" "trimmed.*$FOLDER/.sandbox/results/$id.stdout" "and points to the full output"
size=$(wc -c <"$FOLDER/.sandbox/results/$id.stdout")
[ "$size" -ge 100000 ]
ok $? "the full output is on disk ($size bytes)"

# Delivered requests leave pending/ (the hook scans only pending/ and
# queue/new, so its work does not grow with history).
wait_for 15 bash -c "! ls $FOLDER/.sandbox/pending | grep -q $id"
ok $? "a delivered request moves from pending/ to done/"
# The receipt stays until retention prunes the output: sbxd takes it in at
# once, and a second identical call racing the first must still find it.
test -f "$FOLDER/.sandbox/done/$id.json" && test -e "$FOLDER/.sandbox/queue/delivered/$id"
ok $? "its receipt is kept with the done request"
test -f "$FOLDER/.sandbox/results/$id.stdout"
ok $? "its output stays where the model was told it is"

done_testing
