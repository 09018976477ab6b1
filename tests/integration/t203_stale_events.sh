#!/usr/bin/env bash
# An event file that an earlier pass of sbxd already took in (its inotify
# event arrives after a rescan consumed it) is ignored quietly; but a file
# sbxd must refuse - hard links, a symlink, too large - is rejected and
# recorded even right after such a gone file (read_untrusted() sets errno
# exactly: a stale ENOENT from an earlier call no longer hides a refusal).
. "$(dirname "$0")/lib.sh"

SB="$FOLDER/.sandbox"
EV="$SB/queue/events"
event() {	# event NAME TEXT: a PostToolUse event file, by rename
	jq -cn --arg c "$2" '{v: 1, kind: "post_tool_use", agent: "claude-code",
	  session_id: "s203", tool: "Bash", command: $c, exit_code: 0}' >"$EV/.t" &&
		mv "$EV/.t" "$EV/$1.json"
}
logged() { grep -c "\"command\":\"$1\"" "$SB/audit.jsonl"; }
rejections() { grep -c '"event":"file_rejected"' "$SB/audit.jsonl"; }

init_folder
start_daemon

# 1. sbxd stopped while 30 events arrive and its rescan falls due: on
# resuming, the rescan takes them all in before it reads their inotify
# events, which then name files that are gone.
kill -STOP "$DPID"
for i in $(seq 10 39); do event "00000000000000$i" "race-$i"; done
sleep 6         # not a proof: lets the 5 s rescan fall due while stopped
kill -CONT "$DPID"
# A sentinel after them: once it is in, every earlier inotify event was read.
event 0000000000000fff sentinel-1
wait_for 20 grep -q '"command":"sentinel-1"' "$SB/audit.jsonl"
ok $? "sbxd takes in the events and the sentinel"
n=0
for i in $(seq 10 39); do [ "$(logged "race-$i")" = 1 ] && n=$((n + 1)); done
is "$n" 30 "each of the 30 events is in the log exactly once"
is "$(rejections)" 0 "no file_rejected for the events whose inotify event came late"
unlike "$(cat "$T/sbxd.log")" "rejected queue/events|No such file" "nor a rejection in sbxd's log"

# 2. Right after a gone file (ENOENT), files sbxd must refuse, each
# renamed into place (an inotify event, as the hook's own files).
echo '{"v": 1}' >"$T/outside.json"
kill -STOP "$DPID"
event 00000000000000a1 gone-first
rm "$EV/00000000000000a1.json"
ln "$T/outside.json" "$EV/.h" && mv "$EV/.h" "$EV/00000000000000a2.json"
event 00000000000000a3 gone-second
rm "$EV/00000000000000a3.json"
ln -s "$T/outside.json" "$EV/.s" && mv "$EV/.s" "$EV/00000000000000a4.json"
event 00000000000000a5 gone-third
rm "$EV/00000000000000a5.json"
head -c 70000 /dev/zero | tr '\0' x >"$EV/.big" && mv "$EV/.big" "$EV/00000000000000a6.json"
kill -CONT "$DPID"
event 0000000000000ffe sentinel-2
wait_for 20 grep -q '"command":"sentinel-2"' "$SB/audit.jsonl"
ok $? "sbxd goes on after them"
rej() { grep '"event":"file_rejected"' "$SB/audit.jsonl" | grep "$1"; }
like "$(rej 00000000000000a2.json)" "hard links" "the hard-linked event after a gone file is rejected, and says why"
like "$(rej 00000000000000a4.json)" "symlink" "the symlinked one too"
like "$(rej 00000000000000a6.json)" "too large" "the oversize one too"
is "$(ls "$EV" | grep -c '00000000000000a[246]')" 0 "none of them is left in the drop box"
[ -L "$(ls -d "$SB"/rejected/*-00000000000000a4.json)" ] && [ "$(cat "$T/outside.json")" = '{"v": 1}' ]
ok $? "the symlink itself was moved aside, its target untouched"
is "$(rejections)" 3 "the gone files are not rejections: 3 file_rejected in all"
for g in gone-first gone-second gone-third; do
	[ "$(logged "$g")" = 0 ] || fail=1
done
ok "${fail:-0}" "the removed events are not in the log"

stop_daemon
"$SBX" -C "$FOLDER" audit verify >/dev/null
ok $? "the audit log verifies"
done_testing
