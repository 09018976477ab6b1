#!/usr/bin/env bash
# sbx watch in a handed-over folder (deployment 3), in a real terminal
# (tmux): B, sbxd's user, approves, remembers and denies A's requests from
# its terminal, and each approved command runs as B. A's Write requests are
# previewed against files B may not read, or that A made a FIFO: the
# terminal says so and never hangs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dep3lib.sh"
command -v tmux >/dev/null 2>&1 || skip_all "tmux is missing (apt-get install tmux)"

export TMUX_TMPDIR="$T"
TM="tmux -L sbxtest"
dep3_setup || { sed 's/^/#   /' "$T/init.out" "$T/handover.out"; exit 1; }
dep3_task
start_daemon_b

screen() { $TM capture-pane -p -t w; }
screen_has() { screen | grep -Eq -- "$1"; }
trap '$TM kill-server 2>/dev/null; dep3_cleanup' EXIT

# B's terminal: a shell of B's own (its uid, groups, HOME), nothing of root's.
$TM new-session -d -s w -x 100 -y 30 "setpriv --reuid=$UB --regid=$UB --init-groups -- env -i PATH=/usr/bin:/bin HOME=$T/home-b USER=$UB TERM=xterm bash --norc --noprofile"
$TM send-keys -t w "PS1='$ '; $SBX watch -C $FOLDER" Enter
wait_for 30 screen_has "sbx watch - 0 pending"
ok $? "B's sbx watch starts on the handed-over folder"
wpid=$(pgrep -u "$UB" -f "sbx watch -C $FOLDER" | head -1)
is "$(stat -c %U "/proc/$wpid" 2>/dev/null)" "$UB" "(it runs as B)"

# Approve once.
hook_a "./task.sh w1" >"$T/h1" &
hp=$!
wait_for 30 screen_has "task.sh w1"
ok $? "A's request appears in B's terminal without a key press"
like "$(screen)" "why +the policy escalates" "with why the policy escalated it"
$TM send-keys -t w a
wait "$hp"
r=$(reason <"$T/h1")
like "$r" "ran-as $UB" "a approves: the command ran as B"
like "$r" "treasure-of-b-$$" "with B's rights, and its output reached A"
wait_for 30 screen_has "result [0-9a-f]{16}: done, exit 0"
ok $? "the result appears in B's terminal"

# Approve and remember: A's same call then runs without asking, as B.
hook_a "./task.sh w2" >"$T/h2" &
hp=$!
wait_for 30 screen_has "task.sh w2"
$TM send-keys -t w r
wait_for 20 screen_has "remember: \\[e\\]xact request or \\[p\\]refix"
ok $? "r asks for the scope"
$TM send-keys -t w e Enter
wait_for 20 screen_has "expires after"
$TM send-keys -t w Enter
wait "$hp"
like "$(reason <"$T/h2")" "ran-as $UB" "r approves"
like "$(hook_a "./task.sh w2" | reason)" "remembered approval.*ran-as $UB|ran-as $UB" \
	"and the same call of A's runs again as B without asking"
is "$(runs_b)" 3 "three runs, all as B"

# Deny with a reason.
hook_a "./task.sh w3" >"$T/h3" &
hp=$!
wait_for 30 screen_has "task.sh w3"
$TM send-keys -t w d
wait_for 20 screen_has "deny reason"
$TM send-keys -t w "not from this folder" Enter
wait "$hp"
like "$(reason <"$T/h3")" "not from this folder" "d denies, and B's reason reaches A"
is "$(runs_b)" 3 "nothing more ran"

# A's Write over a file of A's that B cannot read: the preview must not
# call it a new file.
mkdir -p "$T/out-a"
chown "$UA:" "$T/out-a"
chmod 0711 "$T/out-a"
as_a sh -c "printf 'secret of a\n' >'$T/out-a/private.txt' && chmod 600 '$T/out-a/private.txt'"
write_a() {
	payload Write "$(jq -cn --arg p "$1" --arg c "$2" '{file_path: $p, content: $c}')" |
		as_a env CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre
}
write_a "$T/out-a/private.txt" "new text" >"$T/h4" &
hp=$!
wait_for 30 screen_has "write +$T/out-a/private.txt"
ok $? "A's Write shows its target in B's terminal"
s=$(screen)
unlike "$s" "a new file" "an existing file B cannot read is not called a new file"
like "$s" "cannot be read" "the preview says B cannot read it"
unlike "$s" "secret of a" "(and shows nothing of it)"
$TM send-keys -t w d
wait_for 20 screen_has "deny reason"
$TM send-keys -t w "no" Enter
wait "$hp"
# A FIFO of A's at the target: a preview that opened it would hang B's
# terminal until A writes.
as_a mkfifo "$T/out-a/pipe"
write_a "$T/out-a/pipe" "into a pipe" >"$T/h5" &
hp=$!
wait_for 30 screen_has "write +$T/out-a/pipe"
ok $? "A's Write to a FIFO shows in B's terminal"
like "$(screen)" "not a regular file" "and the preview says what it is"
$TM send-keys -t w d
wait_for 20 screen_has "deny reason"
ok $? "B's terminal still answers keys (it did not block on A's FIFO)"
$TM send-keys -t w "no pipes" Enter
wait "$hp"
like "$(reason <"$T/h5")" "no pipes" "and its denial reaches A"

# A symlink of A's to B's secret: named as one, never followed.
as_a ln -s "$T/home-b/secret" "$T/out-a/link"
write_a "$T/out-a/link" "over b's secret" >"$T/h7" &
hp=$!
wait_for 30 screen_has "write +$T/out-a/link"
s=$(screen)
like "$s" "a symlink, not followed" "A's Write to a symlink is previewed as one"
unlike "$s" "treasure-of-b" "and B's terminal does not show what it points to"
$TM send-keys -t w d
wait_for 20 screen_has "deny reason"
$TM send-keys -t w "no links" Enter
wait "$hp"

# An approved Write: A's hook gets its one-time allowance.
write_a "$T/out-a/w.txt" "w" >"$T/h6" &
hp=$!
wait_for 30 screen_has "write +$T/out-a/w.txt \\(a new file\\)"
ok $? "a Write to a new file is previewed as one"
$TM send-keys -t w a
wait "$hp"
is "$(decision <"$T/h6")" "allow" "a approves A's Write: A's hook allows it"

$TM send-keys -t w q
wait_for 20 sh -c "! kill -0 $wpid 2>/dev/null"
ok $? "q quits"
done_testing
