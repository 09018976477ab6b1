#!/usr/bin/env bash
# sbxd's life: one daemon per folder, restarts that lose nothing, a
# daemon killed mid-run, command timeouts.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1, "exec_timeout_seconds": 2}'
start_daemon
ok $? "sbxd starts"

# One daemon per folder.
"$SBXD" "$FOLDER" 2>"$T/second.err" &
second=$!
wait "$second"
rc=$?
[ "$rc" -ne 0 ]
ok $? "a second sbxd for the same folder refuses to start"
like "$(cat "$T/second.err")" "already served by another sbxd \\(pid $DPID\\)" "and names the running one"

# sbxd rejects a folder that was never prepared.
mkdir -p "$T/bare"
"$SBXD" "$T/bare" 2>"$T/bare.err"
is "$?" "2" "sbxd on an unprepared folder exits 2"
like "$(cat "$T/bare.err")" "sbx init" "and says to run sbx init"

# A request dropped while sbxd is down is picked up on restart.
stop_daemon
out=$(hook_bash "./task.sh while-down")
like "$(echo "$out" | reason)" "queued as request [0-9a-f]{16} and will run only after" "with sbxd down the call is queued, and the hook says so"
id=$(echo "$out" | reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
test -f "$FOLDER/.sandbox/queue/new/$id.json"
ok $? "the request waits in queue/new"
start_daemon
wait_for 10 has_pending
ok $? "after restart sbxd picks it up from the rescan"

# Restart while a request is pending: the approval still works.
stop_daemon
start_daemon
is "$(pending_ids)" "$id" "the pending request survives a restart"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait_for 10 test -f "$FOLDER/.sandbox/results/$id.json"
ok $? "and runs once approved after the restart"
is "$(jq -r .status "$FOLDER/.sandbox/results/$id.json")" "done" "its result is done"

# mine PATTERN: this test's processes matching PATTERN (pgrep -f), those
# whose working directory is this test's folder: other suites run the
# same task.sh sleeps at the same time.
mine() {
	local p here
	here=$(realpath "$FOLDER")
	for p in $(pgrep -f "$1"); do
		[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$here" ] && echo "$p"
	done
}
has_mine() { [ -n "$(mine "$1")" ]; }
none_mine() { [ -z "$(mine "$1")" ]; }

# A command over its time limit is killed, with its process group.
out=$(hook_bash "./task.sh sleep 37")
id=$(echo "$out" | reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
wait_for 10 has_pending
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait_for 15 test -f "$FOLDER/.sandbox/results/$id.json"
ok $? "a command over exec_timeout_seconds is stopped"
is "$(jq -r .timed_out "$FOLDER/.sandbox/results/$id.json")" "true" "its result says timed out"
is "$(jq -r .signal "$FOLDER/.sandbox/results/$id.json")" "15" "killed by SIGTERM"
out=$(hook_bash "./task.sh sleep 37")
like "$(echo "$out" | reason | head -1)" "killed by signal 15 after its time limit" "the model is told it timed out"
wait_for 5 none_mine "sleep 37"
ok $? "no sleep is left behind"

# sbxd killed (SIGKILL) while a command runs: interrupted, never re-run.
set_limits '{"exec_timeout_seconds": 60}'
out=$(hook_bash "./task.sh sleep 23")
id=$(echo "$out" | reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
wait_for 10 has_pending
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait_for 10 grep -q "run sleep 23" "$FOLDER/runs.log"
ok $? "the long command started"
wait_for 10 has_mine "sleep 23"
ok $? "its sleep runs in this folder"
kill -9 "$DPID"
wait "$DPID" 2>/dev/null
DPID=""
wait_for 10 test -f "$FOLDER/.sandbox/results/$id.json"
ok $? "the executor notices sbxd died and records the run"
wait_for 5 none_mine "sleep 23"
ok $? "and kills the command's process group"
start_daemon
is "$("$SBX" -C "$FOLDER" show "$id" --json | jq -r .status)" "interrupted" "after restart the request is interrupted"
out=$(hook_bash "./task.sh sleep 23")
like "$(echo "$out" | reason | head -1)" "interrupted while running" "the model learns it was interrupted"
is "$(grep -c "run sleep 23" "$FOLDER/runs.log")" 1 "and it was not run again (start-up recovery and a repeat call)"

# SIGTERM to sbxd while a command runs: stops cleanly, records interrupted.
out=$(hook_bash "./task.sh sleep 21")
id=$(echo "$out" | reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
wait_for 10 has_pending
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait_for 10 grep -q "run sleep 21" "$FOLDER/runs.log"
kill "$DPID"
wait "$DPID"
is "$?" "0" "sbxd exits 0 on SIGTERM"
DPID=""
is "$(jq -r .status "$FOLDER/.sandbox/results/$id.json")" "interrupted" "the running request is recorded as interrupted"
like "$(sqlite3 -cmd '.timeout 5000' "$FOLDER/.sandbox/state.db" "select status from requests where id='$id'")" "interrupted" "in the database too"

start_daemon
ok $? "sbxd restarts after all that"
stop_daemon

# sbxd --all serves every folder sbx init recorded.
mkdir -p "$T/second"
"$SBX" init "$T/second" >/dev/null
"$SBXD" --all 2>"$T/all.log" &
DPID=$!
wait_for 10 bash -c "grep -c serving $T/all.log | grep -qx 2"
ok $? "sbxd --all serves both recorded folders"
stop_daemon
env SBX_CONFIG_DIR="$T/empty-config" "$SBXD" --all 2>"$T/none.err"
is "$?" "2" "sbxd --all with nothing recorded exits 2"
like "$(cat "$T/none.err")" "no folders recorded" "and says why"
"$SBXD" --all "$FOLDER" 2>/dev/null
is "$?" "2" "--all and a DIR together are a usage error"

done_testing
