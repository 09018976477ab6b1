#!/usr/bin/env bash
# A SIGHUP that grows sbxd's folder table (past 16, its first size) must
# not leave executors with a stale list of lock fds to close: every
# executor closes every folder's sbxd.lock, so a running command never
# keeps a folder locked after sbxd stops (a restarted sbxd could not serve
# it, and hooks would think it served). Checked from /proc, from outside.
. "$(dirname "$0")/lib.sh"

folder() { echo "$T/f$1"; }
prepare() {	# prepare FROM TO: sbx init each folder
	local k
	for k in $(seq "$1" "$2"); do
		mkdir -p "$(folder "$k")"
		"$SBX" init "$(folder "$k")" >/dev/null 2>&1 || return 1
	done
}
# locks_held PID...: how many sbxd.lock files these processes hold open.
locks_held() {
	local p n=0
	for p in "$@"; do
		n=$((n + $(ls -l /proc/"$p"/fd 2>/dev/null | grep -c 'sbxd\.lock$')))
	done
	echo "$n"
}
# tree PID: PID's descendants.
tree() {
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		tree "$c"
	done
}

prepare 1 2
FOLDER=$(folder 1) setup_task
FOLDER=$(folder 1) set_limits '{"hook_wait_seconds": 2}'
: >"$T/sbxd.log"
"$SBXD" --all 2>>"$T/sbxd.log" &
DPID=$!
wait_for 60 sh -c "[ \$(grep -c '] serving' '$T/sbxd.log') -ge 2 ]"
ok $? "sbxd --all serves the first 2 folders"

# 30 more: the table grows twice (16, then 32).
prepare 3 32
kill -HUP "$DPID"
wait_for 120 grep -q "SIGHUP: reloaded" "$T/sbxd.log"
like "$(grep 'SIGHUP: reloaded' "$T/sbxd.log" | tail -1)" "30 added, serving 32" \
	"SIGHUP adds 30 folders"
is "$(locks_held "$DPID")" "32" "sbxd holds the 32 locks"

# A command that runs for a while in folder 1, started after the reload.
f=$(folder 1)
(cd "$f" && bash_payload "./task.sh sleep 30" "$f" | CLAUDE_PROJECT_DIR="$f" "$HOOK" pre \
	>/dev/null 2>&1) &
wait_for 30 sh -c "'$SBX' -C '$f' pending --json | jq -e 'length > 0' >/dev/null"
id=$("$SBX" -C "$f" pending --json | jq -r '.[0].id')
"$SBX" -C "$f" approve "$id" >/dev/null
wait_for 30 grep -q "run sleep 30" "$f/runs.log"
ok $? "the command runs"
kids=$(tree "$DPID")
[ -n "$kids" ]
ok $? "sbxd has an executor (and the command under it)"
# shellcheck disable=SC2086
is "$(locks_held $kids)" "0" "the executor and the command hold no folder's lock"
kill -0 "$DPID"
ok $? "sbxd is still running"
stop_daemon
done_testing
