#!/usr/bin/env bash
# sbx-hook post (PostToolUse, after every tool call) writes its event
# without a sync, like a request (docs/QUEUE.md, "Syncs"): sbxd makes it
# durable when it appends the record. Checked from outside:
# - (strace) the hook makes no fsync, fdatasync or syncfs, and answers {};
# - sbxd still records the event, and removes its file;
# - queue/events or queue/tmp swapped for a symlink: nothing is written
#   where it points, and the hook still answers {} and exits 0.
. "$(dirname "$0")/lib.sh"

SB="$FOLDER/.sandbox"
LOG="$SB/audit.jsonl"
OUT="$T/outside"
mkdir -m 700 "$OUT"
init_folder
# post_json SESSION: a PostToolUse report of a Bash call in the folder
post_json() {
	jq -cn --arg s "$1" --arg cwd "$FOLDER" '{session_id: $s, cwd: $cwd,
	  hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: {command: "true"},
	  tool_response: {}, tool_use_id: "toolu_1"}'
}

if command -v strace >/dev/null 2>&1; then
	post_json s-sync >"$T/p.json"
	o=$(strace -f -e trace=fsync,fdatasync,syncfs,sync -o "$T/st.txt" "$HOOK" post <"$T/p.json")
	is "$o" "{}" "the hook answers {}"
	is "$(grep -cE '^[0-9]+ +(fsync|fdatasync|syncfs|sync)\(' "$T/st.txt")" 0 \
		"and makes no sync (strace)"
	is "$(ls "$SB/queue/events" | wc -l | tr -d ' ')" 1 "its event is in queue/events"
else
	ok 0 "# SKIP strace is not installed"
	ok 0 "# SKIP strace is not installed"
	post_json s-sync | "$HOOK" post >/dev/null
	is "$(ls "$SB/queue/events" | wc -l | tr -d ' ')" 1 "its event is in queue/events"
fi

start_daemon
wait_for 20 sh -c "grep -q '\"s-sync\"' '$LOG'"
ok $? "sbxd records the event (audit log)"
wait_for 20 sh -c "[ -z \"\$(ls -A '$SB/queue/events')\" ]"
ok $? "and removes its file"
stop_daemon

for q in queue/events queue/tmp; do
	mv "$SB/$q" "$T/q.real"
	ln -s "$OUT" "$SB/$q"
	o=$(post_json "s-$q" | "$HOOK" post)
	is "$o rc=$?" "{} rc=0" "$q as a symlink: the hook still answers {} and exit 0"
	is "$(ls -A "$OUT")" "" "nothing was written through the $q symlink"
	rm "$SB/$q"
	mv "$T/q.real" "$SB/$q"
done

done_testing
