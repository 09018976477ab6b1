#!/usr/bin/env bash
# A signed result counts only for the request it names. Two identical calls
# share a hash; the agent copies the first one's signed result to the
# second's name while the second waits. The hook must not deliver it (the
# model would be told a command ran that did not), and sbxd, when the
# second runs, must move the copy aside as forged and write the real
# result, not drop it.
. "$(dirname "$0")/lib.sh"

SB="$FOLDER/.sandbox"
init_folder
setup_task
set_limits '{"hook_wait_seconds": 2}'
start_daemon

# 1. The first call, approved, run and delivered (the hook waits long
# enough for that on a loaded machine; then 2 s again).
set_limits '{"hook_wait_seconds": 30}'
hook_bash "./task.sh one" >"$T/out1" &
hp=$!
wait_for 10 has_pending
a=$(pending_ids)
"$SBX" -C "$FOLDER" approve "$a" >/dev/null
wait "$hp"
like "$(reason <"$T/out1")" "out: one" "the first call ran and its output was delivered"
set_limits '{"hook_wait_seconds": 2}'
wait_for 20 test -e "$SB/queue/delivered/$a"
ok $? "and its receipt was written"

# 2. The same call again: a new request, same hash, pending.
out=$(hook_bash "./task.sh one")
like "$(echo "$out" | reason)" "pending|approv" "the same call again waits for a human"
wait_for 10 has_pending	# (the hook answers after 2 s; sbxd may take it in later, under load)
b=$(pending_ids)
[ -n "$b" ] && [ "$b" != "$a" ] && [ "$(jq -r .hash "$SB/pending/$b.json")" = "$(jq -r .hash "$SB/results/$a.json")" ]
ok $? "a new request, with the first one's hash"

# 3. The agent copies the first signed result to the second's name.
cp "$SB/results/$a.json" "$SB/results/$b.json"
out=$(hook_bash "./task.sh one")
unlike "$(echo "$out" | reason)" "ALREADY EXECUTED|out: one" \
	"the hook does not deliver the copied result as the second call's"
is "$(grep -c '^run one$' "$FOLDER/runs.log")" "1" "nothing ran a second time yet"

# 4. The human approves the second: it runs, and its own result replaces
# the copy (kept aside as forged).
"$SBX" -C "$FOLDER" approve "$b" >/dev/null
wait_for 20 sh -c "[ \$(grep -c '^run one\$' '$FOLDER/runs.log') = 2 ]"
ok $? "the second request runs"
wait_for 20 sh -c "jq -e '.id == \"$b\"' '$SB/results/$b.json' >/dev/null"
ok $? "its real result, naming it, replaced the copy"
ls "$SB/rejected/" | grep -q "$b.json.forged"
ok $? "the copy was moved to rejected/ as forged"
like "$(cat "$T/sbxd.log")" "request $b: TAMPERING: a result sbxd did not write" "sbxd said so"
out=$(hook_bash "./task.sh one")
like "$(echo "$out" | reason)" "out: one" "the next identical call gets the second request's real result"
stop_daemon
done_testing
