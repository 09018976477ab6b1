#!/usr/bin/env bash
# F5: the agent deletes a delivery receipt (queue/delivered is its drop
# box, writable even inside the jail) to use a one-time allowance twice.
# An approved Write is allowed once, whatever the agent does to the
# receipts: sbxd confirms the receipt it finds first (a signed copy of
# the result naming the receipt's nonce) and only the hook holding that
# nonce allows; a receipt deleted before sbxd saw it still counts as a
# delivery (and is said as TAMPERING), so a later identical call is
# queued anew; a receipt rewritten or made a symlink allows nobody (and
# sbxd never follows it). Also: a symlink planted in the queue's path
# never takes a receipt elsewhere, a receipt that cannot be made is said
# (never a duplicate request), with no sbxd an approval is not claimed,
# and a result filed unclaimed gets a receipt.
. "$(dirname "$0")/lib.sh"

init_folder
start_daemon
SB="$FOLDER/.sandbox"
D="$SB/queue/delivered"
mkdir -p "$T/outside"
OUT="$T/outside/notes.txt"
write_payload() {
	payload Write "$(jq -cn --arg p "$OUT" --arg c "$1" '{file_path: $p, content: $c}')"
}
hook_write() { write_payload "$1" | env -u TMPDIR CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre; }
pending_for() {
	"$SBX" -C "$FOLDER" pending --json | jq -r ".[] | select($1) | .id"
}
has_pending_for() { [ -n "$(pending_for "$1")" ]; }
set_limits '{"hook_wait_seconds": 5}'

# approved_unclaimed CONTENT: a Write asked once, its hook gone (killed),
# then approved: an approved result nobody took yet. Prints its id.
approved_unclaimed() {
	local p id
	hook_write "$1" >/dev/null &
	p=$!
	wait_for 20 has_pending_for ".input.content == \"$1\"" || return 1
	id=$(pending_for ".input.content == \"$1\"")
	# the hook itself (a child of the background pipeline), then the rest
	kill -9 $(pgrep -P "$p") "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	"$SBX" -C "$FOLDER" approve "$id" >/dev/null
	wait_for 20 test -f "$SB/results/$id.json" || return 1
	echo "$id"
}
allows() { cat "$@" | decision | grep -c allow; }

# 1. The race: sbxd is stopped (or busy), a hook claims the approval,
# the agent deletes its receipt, a second identical call claims again.
# (The hooks wait up to 30 s, not 5: sbxd, thawed, must confirm one of
# them before their deadline, which a loaded machine can miss.)
set_limits '{"hook_wait_seconds": 30}'
id=$(approved_unclaimed "race")
kill -STOP "$DPID"
hook_write "race" >"$T/a.out" &
pa=$!
wait_for 20 test -e "$D/$id"
ok $? "the first call made its receipt"
rm -f "$D/$id"
hook_write "race" >"$T/b.out" &
pb=$!
wait_for 20 test -e "$D/$id"
ok $? "the second call made a receipt again after the first was deleted"
sleep 0.3
kill -CONT "$DPID"
wait "$pa" "$pb"
is "$(allows "$T/a.out" "$T/b.out")" 1 "the approval allows exactly one of the two calls"
other=$(for f in "$T/a.out" "$T/b.out"; do [ "$(decision <"$f")" = deny ] && reason <"$f"; done)
like "$other" "request $id" "the other call is denied, naming the request"
is "$(jq -r .receipt "$SB/results/$id.json")" "$(cat "$D/$id")" \
	"the signed result names the receipt sbxd found"
wait_for 10 test -f "$SB/done/$id.json"
ok $? "the request is filed as delivered"
set_limits '{"hook_wait_seconds": 5}'
hook_write "race" >"$T/c.out"
is "$(decision <"$T/c.out")" "deny" "a third identical call is not allowed"
unlike "$(reason <"$T/c.out")" "request $id" "... it is a new request, not the used approval"

# 2. The receipt deleted, nobody claims again: sbxd still counts the
# delivery (its inotify event saw the receipt made), says TAMPERING, and
# a later identical call is queued anew instead of finding the approval.
id=$(approved_unclaimed "deleted")
kill -STOP "$DPID"
hook_write "deleted" >"$T/d.out" &
pd=$!
wait_for 20 test -e "$D/$id"
rm -f "$D/$id"
kill -CONT "$DPID"
wait "$pd"
is "$(allows "$T/d.out")" 0 "a call whose receipt was deleted is not allowed (nobody's)"
like "$(reason <"$T/d.out")" "request $id" "... and is told about the request"
wait_for 10 test -f "$SB/done/$id.json"
ok $? "the request is filed as delivered all the same"
is "$(jq -r .receipt "$SB/results/$id.json")" "" "its result is confirmed to nobody"
like "$(cat "$T/sbxd.log")" "TAMPERING: the delivery receipt of request $id was removed" \
	"sbxd says the receipt was removed"
hook_write "deleted" >"$T/e.out"
is "$(decision <"$T/e.out")" "deny" "a later identical call is not allowed"
unlike "$(reason <"$T/e.out")" "request $id" "... it is queued anew"
[ ! -e "$OUT" ]
ok $? "(nothing was written by the tests: the hook only decides)"

# 2b. The agent rewrites a hook's receipt with a nonce of its own: sbxd
# confirms what it finds, which no hook holds: nobody is allowed.
id=$(approved_unclaimed "rewritten")
kill -STOP "$DPID"
hook_write "rewritten" >"$T/r.out" &
pr=$!
wait_for 20 test -e "$D/$id"
forged=0123456789abcdef0123456789abcdef
rm -f "$D/$id" && printf %s "$forged" >"$D/$id"
kill -CONT "$DPID"
wait "$pr"
is "$(allows "$T/r.out")" 0 "a hook whose receipt was rewritten is not allowed"
wait_for 10 test -f "$SB/done/$id.json"
is "$(jq -r .receipt "$SB/results/$id.json")" "$forged" "the result names the receipt found, nobody's"

# 2c. A receipt that is a symlink to a file holding 32 hex digits (a
# secret of the user's): sbxd never follows it; nothing of the file
# reaches the result the agent reads.
id=$(approved_unclaimed "linked")
secret=fedcba9876543210fedcba9876543210
printf %s "$secret" >"$T/secret"
ln -s "$T/secret" "$D/$id"
wait_for 10 test -f "$SB/done/$id.json"
ok $? "a symlink receipt is taken as a delivery"
is "$(jq -r .receipt "$SB/results/$id.json")" "" "confirmed to nobody, not followed"
! grep -q "$secret" "$SB/results/$id.json"
ok $? "the file it points to is not read into the result"

# 3. A symlink planted for queue/delivered: the hook never follows it to
# make its receipt elsewhere (where sbxd would never see it), and says
# the delivery cannot be recorded; no duplicate request is filed.
# (sbxd is stopped meanwhile, still holding the folder: it would see the
# swap and stop serving the folder, and the hook would claim nothing.)
id=$(approved_unclaimed "planted")
kill -STOP "$DPID"
mkdir "$T/elsewhere"
mv "$D" "$T/delivered.real"
ln -s "$T/elsewhere" "$D"
n_new=$(ls "$SB/queue/new" | wc -l)
hook_write "planted" >"$T/f.out"
rm "$D"
mv "$T/delivered.real" "$D"
kill -CONT "$DPID"
is "$(decision <"$T/f.out")" "deny" "with queue/delivered a symlink, the approval is not used"
like "$(reason <"$T/f.out")" "request $id.*its delivery cannot be recorded" \
	"... the answer says the delivery cannot be recorded"
is "$(ls "$T/elsewhere" | wc -l)" 0 "no receipt was made through the symlink"
is "$(ls "$SB/queue/new" | wc -l)" "$n_new" "no duplicate request was filed"

# 4. No sbxd runs: an approval is not claimed (only sbxd could confirm
# it, and it would be lost); the call is told to wait for sbxd, and once
# sbxd runs the identical call is allowed, once.
id=$(approved_unclaimed "nodaemon")
stop_daemon
hook_write "nodaemon" >"$T/g.out"
is "$(decision <"$T/g.out")" "deny" "with no sbxd, an approved call is not allowed yet"
like "$(reason <"$T/g.out")" "No sbxd is running .*request $id" "... it is told no sbxd runs, naming the request"
[ ! -e "$D/$id" ]
ok $? "... and the approval is not claimed"
start_daemon
hook_write "nodaemon" >"$T/h.out"
is "$(decision <"$T/h.out")" "allow" "once sbxd runs, the identical call is allowed"
hook_write "nodaemon" >"$T/i.out"
is "$(decision <"$T/i.out")" "deny" "... once"
stop_daemon

# 5. A result left undelivered for a day is filed as unclaimed: with a
# receipt, so a hook that read pending/ before the move cannot claim it.
start_daemon
id=$(approved_unclaimed "unclaimed")
stop_daemon
touch -d '2 days ago' "$SB/results/$id.json"
start_daemon
wait_for 20 test -f "$SB/done/$id.json"
ok $? "a result undelivered for a day is filed in done/"
test -e "$D/$id"
ok $? "... with a receipt sbxd made"
is "$(jq -r .receipt "$SB/results/$id.json")" "" "... and an approval confirmed to nobody"

done_testing
