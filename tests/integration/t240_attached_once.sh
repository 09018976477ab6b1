#!/usr/bin/env bash
# Two hooks waiting on one request (the second identical call attaches to
# the request the first one queued) get its result delivered once: the
# one that creates the delivery receipt (queue/delivered/ID, O_EXCL) gets
# it; the other is told plainly that the result went to the identical
# call that waited with it. A one-time allowance (an approved Write) is
# used once, never twice; a command's output is handed back once, and
# the command ran once.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
start_daemon
mkdir -p "$T/outside"
OUT="$T/outside/notes.txt"
write_payload() {
	payload Write "$(jq -cn --arg p "$OUT" --arg c "$1" '{file_path: $p, content: $c}')"
}
hook_write() { write_payload "$1" | env -u TMPDIR CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre; }
pending_for() {	# pending_for JQ-FILTER: the id of the one pending request it selects
	"$SBX" -C "$FOLDER" pending --json | jq -r ".[] | select($1) | .id"
}
has_pending_for() { [ -n "$(pending_for "$1")" ]; }
# delivered_recorded ID: sbxd has recorded the delivery (it takes the
# receipt in after the hook answered)
delivered_recorded() { "$SBX" -C "$FOLDER" audit show --request "$1" | grep -q result_delivered; }
W="$FOLDER/.sandbox/queue/wake"
# waiting ID N: N hook processes hold request ID's wake FIFO open (they
# wait on it: the second has attached)
waiting() {
	local n=0 p
	for p in $(pgrep -x sbx-hook); do
		ls -l "/proc/$p/fd" 2>/dev/null | grep -q "queue/wake/$1\$" && n=$((n + 1))
	done
	[ "$n" -ge "$2" ]
}
set_limits '{"hook_wait_seconds": 30}'

# 1. A Write outside the project, asked twice at once (two parallel tool
# calls): one request, two waiting hooks; one approval.
hook_write "twice" >"$T/a.out" &
pa=$!
wait_for 10 has_pending_for '.input.content == "twice"'
id=$(pending_for '.input.content == "twice"')
hook_write "twice" >"$T/b.out" &
pb=$!
wait_for 20 waiting "$id" 2
ok $? "both calls wait on the request's wake FIFO"
is "$(ls "$FOLDER/.sandbox/queue/new" "$FOLDER/.sandbox/pending" | grep -c json)" 1 \
	"the second identical call attached to the first one's request"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait "$pa" "$pb"
allows=$(cat "$T/a.out" "$T/b.out" | decision | grep -c allow)
is "$allows" 1 "the one-time allowance is used by exactly one of the two waiting calls"
other=$(for f in "$T/a.out" "$T/b.out"; do [ "$(decision <"$f")" = deny ] && reason <"$f"; done)
like "$other" "request $id" "the other call is denied, naming the request"
like "$other" "used by another identical call" "... and says the approval went to the identical call"
test -e "$FOLDER/.sandbox/queue/delivered/$id"
ok $? "one delivery receipt"
wait_for 10 delivered_recorded "$id"
n=$("$SBX" -C "$FOLDER" audit show --request "$id" | grep -c result_delivered)
is "$n" 1 "one result_delivered record"

# 2. The same with a command: it runs once; one hook gets its output, the
# other is told where it went, and not to run it again.
hook_bash "./task.sh both" >"$T/c.out" &
pc=$!
wait_for 10 has_pending_for '.command == "./task.sh both"'
id=$(pending_for '.command == "./task.sh both"')
hook_bash "./task.sh both" >"$T/d.out" &
pd=$!
wait_for 20 waiting "$id" 2
ok $? "both calls wait on the request's wake FIFO"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait "$pc" "$pd"
is "$(runs)" 1 "the command ran once"
n=$(cat "$T/c.out" "$T/d.out" | reason | grep -c "ALREADY EXECUTED")
is "$n" 1 "its result is delivered to one of the two waiting calls"
other=$(for f in "$T/c.out" "$T/d.out"; do reason <"$f" | grep -q "ALREADY EXECUTED" || reason <"$f"; done)
like "$other" "request $id" "the other call's answer names the request"
like "$other" "handed to another identical call" "... says the result went to the other call"
like "$other" "Do not run it" "... and not to run it again"
unlike "$other" "out: both" "... without a second copy of the output"
is "$(cat "$T/c.out" "$T/d.out" | decision | sort -u)" "deny" "both answers are denies (the tool itself never runs)"
wait_for 10 delivered_recorded "$id"
n=$("$SBX" -C "$FOLDER" audit show --request "$id" | grep -c result_delivered)
is "$n" 1 "one result_delivered record"

# 3. The delivery cannot be recorded (queue/delivered made immutable): no
# delivery without its receipt, so an approval is never used unrecorded.
D="$FOLDER/.sandbox/queue/delivered"
if command -v chattr >/dev/null && chattr +i "$D" 2>/dev/null; then
	trap 'chattr -i "$D" 2>/dev/null; cleanup' EXIT
	chattr -i "$D"
	hook_write "unrecorded" >"$T/e.out" &
	pe=$!
	wait_for 10 has_pending_for '.input.content == "unrecorded"'
	id=$(pending_for '.input.content == "unrecorded"')
	wait_for 20 waiting "$id" 1
	chattr +i "$D"
	"$SBX" -C "$FOLDER" approve "$id" >/dev/null
	wait "$pe"
	chattr -i "$D"
	is "$(decision <"$T/e.out")" "deny" "a receipt that cannot be made: the Write is not allowed"
	like "$(reason <"$T/e.out")" "request $id.*its delivery cannot be recorded" \
		"and the answer says the delivery could not be recorded"
	[ ! -e "$OUT" ]
	ok $? "nothing was written"
else
	echo "# SKIP chattr +i is not available here: the unrecorded delivery is not tested"
fi

done_testing
