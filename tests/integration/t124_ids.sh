#!/usr/bin/env bash
# Request ids a human sees are ones they can type. An id's first 8 digits
# come from the request hash, so the same call made again shares them with
# the earlier request: sbx watch shows as many digits as it takes to name
# one request in the folder's database (at least 8), and sbx pending the
# full id. sbx approve of an id nobody knows says "no such request" when
# sbxd runs, and that sbxd is not running when it does not.
. "$(dirname "$0")/lib.sh"

export TMUX_TMPDIR="$T"
TM="tmux -L sbxtest"
screen() { $TM capture-pane -p -t w; }
screen_has() { screen | grep -Eq -- "$1"; }
trap '$TM kill-server 2>/dev/null; cleanup' EXIT

init_folder
setup_task
set_limits '{"hook_wait_seconds": 30}'

start_daemon
stop_daemon
"$SBX" -C "$FOLDER" approve 0123456789abcdef >/dev/null 2>"$T/err0"
is "$?" "1" "approve of an unknown id with sbxd stopped fails"
like "$(cat "$T/err0")" "sbxd is not running for $FOLDER: start \`sbxd" "and says sbxd is not running"

start_daemon
"$SBX" -C "$FOLDER" approve 0123456789abcdef >/dev/null 2>"$T/err1"
is "$?" "1" "approve of an unknown id with sbxd running fails"
like "$(cat "$T/err1")" "sbx: no such request: 0123456789abcdef" "and says no such request"
"$SBX" -C "$FOLDER" deny 01234567 >/dev/null 2>"$T/err2"
like "$(cat "$T/err2")" "no such request: 01234567" "deny with an unknown prefix too"

# The same call twice: the first is approved and delivered, the second is
# a new request whose id starts with the same 8 digits.
hook_bash "./task.sh same" >"$T/h1" &
hp=$!
wait_for 10 has_pending
id1=$(pending_ids | head -1)
"$SBX" -C "$FOLDER" approve "$id1" >/dev/null 2>&1
wait "$hp"
like "$(reason <"$T/h1" | head -1)" "ALREADY EXECUTED" "the first call ran"
hook_bash "./task.sh same" >"$T/h2" &
hp=$!
wait_for 10 has_pending
id2=$(pending_ids | head -1)
[ -n "$id2" ] && [ "$id2" != "$id1" ]
ok $? "the same call again is a new request ($id1, then $id2)"
is "${id2:0:8}" "${id1:0:8}" "whose id shares its first 8 digits with the first"
common=8
while [ "${id1:0:$((common + 1))}" = "${id2:0:$((common + 1))}" ]; do
	common=$((common + 1))
done
want=${id2:0:$((common + 1))}

like "$("$SBX" -C "$FOLDER" pending)" "^$id2 " "sbx pending shows the full id"
$TM new-session -d -s w -x 100 -y 30 "env -i PATH=$PATH HOME=$T TERM=xterm SBX_CONFIG_DIR=$SBX_CONFIG_DIR bash --norc --noprofile"
$TM send-keys -t w "PS1='$ '; $SBX watch -C $FOLDER" Enter
wait_for 10 screen_has "task.sh same"
ok $? "sbx watch lists the second request"
line=$(screen | grep -E '^> [0-9a-f]+ ' | head -1)
shown=$(printf '%s' "$line" | awk '{print $2}')
is "$shown" "$want" "sbx watch shows the id to ${#want} digits: the shortest prefix no other request has"
"$SBX" -C "$FOLDER" approve "${id2:0:8}" >/dev/null 2>"$T/err3"
like "$(cat "$T/err3")" "matches several requests" "8 digits would not name one request"
"$SBX" -C "$FOLDER" approve "$shown" >/dev/null 2>&1
ok $? "the digits sbx watch shows are enough for sbx approve"
wait "$hp"
like "$(reason <"$T/h2" | head -1)" "ALREADY EXECUTED outside the agent as request $id2" "and approve the right request"

done_testing
