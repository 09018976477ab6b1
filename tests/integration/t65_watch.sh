#!/usr/bin/env bash
# sbx watch in a real terminal (tmux): approve, remember, deny with a
# reason, view, resize, TERM=dumb, NO_COLOR, and a signal that leaves the
# terminal restored.
. "$(dirname "$0")/lib.sh"

export TMUX_TMPDIR="$T"
TM="tmux -L sbxtest"
init_folder
setup_task
set_limits '{"hook_wait_seconds": 30}'
start_daemon

screen() { $TM capture-pane -p -t w; }
screen_has() { screen | grep -Eq -- "$1"; }
cleanup_tmux() { $TM kill-server 2>/dev/null; }
trap 'cleanup_tmux; cleanup' EXIT

$TM new-session -d -s w -x 80 -y 24 "env -i PATH=$PATH HOME=$T TERM=xterm SBX_CONFIG_DIR=$SBX_CONFIG_DIR bash --norc --noprofile"
$TM send-keys -t w "PS1='$ '; $SBX watch -C $FOLDER" Enter
wait_for 30 screen_has "sbx watch - 0 pending"
ok $? "sbx watch starts in an 80x24 terminal"
like "$(screen)" "\\[a\\]pprove \\[r\\]emember \\[d\\]eny \\[v\\]iew" "every key is shown on screen"

# Approve once.
hook_bash "./task.sh w1" >"$T/h1" &
hp=$!
wait_for 30 screen_has "task.sh w1"
ok $? "a new request appears without a key press"
s=$(screen)
like "$s" "risk: " "the selected request shows its risk"
like "$s" "why +the policy escalates" "and why the policy escalated it"
like "$s" "hook answers the agent in [0-9]+s" "and how long until the hook stops waiting"
like "$s" "\\$ \\./task\\.sh w1" "and the exact command"
$TM send-keys -t w a
wait "$hp"
like "$(cat "$T/h1" | reason | head -1)" "ALREADY EXECUTED" "a approves: the command ran and its output went back"
wait_for 30 screen_has "result [0-9a-f]{16}: done, exit 0 \\| out: w1"
ok $? "the result appears in sbx watch"

# Approve and remember.
hook_bash "./task.sh w2" >"$T/h2" &
hp=$!
wait_for 30 screen_has "task.sh w2"
$TM send-keys -t w r
wait_for 20 screen_has "remember: \\[e\\]xact request or \\[p\\]refix"
ok $? "r asks for the scope of the remembered rule"
$TM send-keys -t w e Enter
wait_for 20 screen_has "expires after"
ok $? "and for an expiry"
like "$(screen)" "rule covers: this exact call, rated [a-z]+ or lower, with no risk factor beyond" \
	"the remember dialog shows what the rule will cover"
$TM send-keys -t w Enter
wait "$hp"
out=$(hook_bash "./task.sh w2")
like "$(echo "$out" | reason | head -1)" "remembered approval" "r approves and remembers: the same call runs without asking"
wait_for 20 screen_has "auto-approved \\(remembered\\)"
ok $? "auto-approved requests are shown in a separate list"

# Deny with a reason typed on one line.
hook_bash "./task.sh w3" >"$T/h3" &
hp=$!
wait_for 30 screen_has "task.sh w3"
$TM send-keys -t w d
wait_for 20 screen_has "deny reason"
ok $? "d asks for a reason"
$TM send-keys -t w "use the staging box" Enter
wait "$hp"
like "$(cat "$T/h3" | reason)" "DENIED by [^ ]+: use the staging box" "the typed reason reaches the model"

# View, move, resize.
hook_bash "./task.sh w4" >/dev/null &
hook_bash "./task.sh w5" >/dev/null &
wait_for 30 bash -c "$TM capture-pane -p -t w | grep -q 'sbx watch - 2 pending'"
ok $? "two pending requests are listed"
$TM send-keys -t w v
wait_for 20 screen_has "input, line 1 of"
ok $? "v shows the whole request"
like "$(screen)" '"command": "./task.sh w' "with its exact input"
$TM send-keys -t w q
wait_for 20 screen_has "sbx watch - 2 pending"
ok $? "q goes back to the list"
first=$(screen | grep '^>' )
$TM send-keys -t w j
wait_for 20 bash -c "[ \"\$($TM capture-pane -p -t w | grep '^>')\" != \"$first\" ]"
ok $? "j moves the selection"
$TM resize-window -t w -x 40 -y 15
wait_for 20 bash -c "$TM capture-pane -p -t w | grep -q '^\\[a\\]pprove'"
ok $? "after a resize to 40x15 it redraws"
width=$(screen | awk '{ if (length($0) > m) m = length($0) } END { print m }')
[ "$width" -le 40 ]
ok $? "and no line is wider than the terminal ($width)"
$TM capture-pane -p -e -t w | grep -q $'\033\\[7m'
ok $? "the selection is shown in reverse video"

# A signal: the terminal comes back as it was.
pid=$(pgrep -f "sbx watch -C $FOLDER" | head -1)
kill -TERM "$pid"
wait_for 20 bash -c "! kill -0 $pid 2>/dev/null"
ok $? "SIGTERM ends sbx watch"
$TM send-keys -t w "stty -a | tr ' ' '\\n' | grep -E '^-?(icanon|echo)\$' | tr '\\n' ' '; echo" Enter
wait_for 20 screen_has "^icanon echo"
ok $? "the terminal is back in canonical mode with echo"
$TM send-keys -t w "clear" Enter

# NO_COLOR: no reverse video.
$TM resize-window -t w -x 80 -y 24
$TM send-keys -t w "NO_COLOR=1 $SBX watch -C $FOLDER" Enter
wait_for 30 screen_has "sbx watch - 2 pending"
! $TM capture-pane -p -e -t w | grep -q $'\033\\[7m'
ok $? "NO_COLOR turns reverse video off"
$TM send-keys -t w q
wait_for 20 bash -c "! pgrep -f '[s]bx watch -C $FOLDER' >/dev/null"
ok $? "q quits"

# TERM=dumb: plain line mode.
$TM send-keys -t w "clear; TERM=dumb $SBX watch -C $FOLDER" Enter
wait_for 30 screen_has "commands: l, a ID"
ok $? "TERM=dumb falls back to line mode"
$TM send-keys -t w "l" Enter
wait_for 20 screen_has "task.sh w[45]"
ok $? "l lists the pending requests"
id=$(pending_ids | head -1)
$TM send-keys -t w "a ${id:0:6}" Enter
wait_for 30 screen_has "result $id: done"
ok $? "a ID approves in line mode and the result is shown"
$TM send-keys -t w "q" Enter
wait_for 20 bash -c "! pgrep -f '[s]bx watch -C $FOLDER' >/dev/null"
ok $? "q quits line mode"

# A write shows a diff preview against the file as it is now.
for p in $(pending_ids); do "$SBX" -C "$FOLDER" deny "$p" >/dev/null; done
printf 'keep\nold line\n' >"$T/target.txt"
wcmd="printf '%s' 'keep
new line
' > '$T/target.txt'"
(bash_payload "$wcmd" | env -u TMPDIR "$HOOK" pre >/dev/null) &
wait_for 30 bash -c "$SBX -C $FOLDER pending --json | jq -e 'length == 1'"
$TM send-keys -t w "clear; $SBX watch -C $FOLDER" Enter
wait_for 30 screen_has "write +$T/target.txt \\(diff against the file as it is now\\)"
ok $? "a write request shows the file it changes"
s=$(screen)
like "$s" "- old line" "the diff shows the line it removes"
like "$s" "\\+ new line" "and the line it adds"
like "$s" "1 unchanged line" "and counts the lines it keeps"
$TM send-keys -t w q

# Without a terminal: line mode on pipes, with --notify.
id=$(pending_ids | head -1)
printf 'd %s not now\nq\n' "$id" | "$SBX" watch -C "$FOLDER" --notify "cat >$T/notified" >"$T/plain.out"
like "$(cat "$T/plain.out")" "denied $id" "without a terminal it reads commands from stdin"
wait_for 20 test -s "$T/notified"
like "$(cat "$T/notified" 2>/dev/null)" "sbx: request [0-9a-f]{16} in $FOLDER" "--notify gets the request summary on stdin"

done_testing
