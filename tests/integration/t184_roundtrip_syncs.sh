#!/usr/bin/env bash
# The syncs of one escalation round trip (docs/QUEUE.md, "Syncs"),
# counted from outside with strace: the hook makes none (sbxd makes the
# request durable when it records it), and sbxd with its executor makes
# those the table lists for a remembered command that prints nothing:
# the claim's commit (which marks it started too), the audit sync, the
# result and its directory before the answer, then the finish's commit
# and audit sync. The hook's wait is a FIFO: no inotify watch on results/.
. "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || skip_all "strace is not installed"
init_folder
set_limits '{"hook_wait_seconds": 30}'
add_rule escalate 'Bash(true)'
start_daemon
# A remembered approval for `true`.
(hook_bash "true" >/dev/null) &
HP=$!
wait_for 10 has_pending
"$SBX" -C "$FOLDER" approve "$(pending_ids | head -1)" --remember >/dev/null
wait $HP
sleep 1
SYNCS='fsync|fdatasync|syncfs|sync|sync_file_range|msync'
# sbxd, and its spare executor (forked ahead of the run) with its child.
tree() { local c; for c in $(pgrep -P "$1"); do echo "$c"; tree "$c"; done; }
procs="$DPID $(tree "$DPID")"
# shellcheck disable=SC2046
strace -f -qq -o "$T/d.st" -e trace=fsync,fdatasync,syncfs,sync,sync_file_range,msync \
	$(printf -- '-p %s ' $procs) &
SP=$!
# strace may not attach where ptrace is restricted: that is the machine.
# shellcheck disable=SC2086
wait_traced "$SP" $procs || skip_all "strace cannot attach to sbxd here"
bash_payload "true" >"$T/p.json"
(cd "$FOLDER" && strace -f -qq -o "$T/h.st" -e trace=fsync,fdatasync,syncfs,sync,sync_file_range,msync,inotify_add_watch,inotify_init,inotify_init1 \
	"$HOOK" pre <"$T/p.json" >"$T/out.json")
like "$(reason <"$T/out.json")" "remembered approval\\) and ALREADY EXECUTED" "the round trip goes through a remembered approval"
sleep 1.5
kill "$SP"
wait "$SP" 2>/dev/null
is "$(grep -cE "($SYNCS)\\(" "$T/h.st")" "0" "the hook makes no sync"
is "$(grep -cE 'inotify' "$T/h.st")" "0" "and watches nothing with inotify"
# The claim's commit (marked started in it: t266) and the audit sync
# before the fork; the executor's two; the log's sync of exec_started (the loop's
# group commit); the finish's commit and audit sync; the audit sync of
# result_delivered (the receipt, seen at once). Not the standalone
# purge of intents (a lost delete is repeated). That is 8 when the
# exec_started record and the receipt are recorded in a pass with their
# neighbours; each that comes in a pass of its own (the machine's load
# decides) costs its commit too: at most 10. It was 13, then 11, before.
n=$(grep -cE "($SYNCS)\\(" "$T/d.st")
[ "$n" -ge 4 ] && [ "$n" -le 10 ]
ok $? "sbxd and its executor make at most 10 syncs for it ($n)"
is "$(grep -cE '^[0-9]+ +fsync\(' "$T/d.st")" "2" "of which the executor's: the result and its directory"

done_testing
