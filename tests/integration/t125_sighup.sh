#!/usr/bin/env bash
# sbxd reloads on SIGHUP instead of dying: with --all it reads the folder
# registry again and serves the folders prepared since it started (a
# request there is then approved and run); folders it serves go on; a
# recorded folder it cannot open (another sbxd holds it, .sandbox is not
# private) is logged and skipped, and sbxd keeps running. SIGTERM still
# stops it, exit 0.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 30}'
: >"$T/sbxd.log"
"$SBXD" --all 2>>"$T/sbxd.log" &
DPID=$!
wait_for 10 grep -q serving "$T/sbxd.log"
ok $? "sbxd --all serves the one recorded folder"

kill -HUP "$DPID"
wait_for 10 grep -q "SIGHUP: reloaded" "$T/sbxd.log"
ok $? "SIGHUP: sbxd says it reloaded"
kill -0 "$DPID" 2>/dev/null
ok $? "and is still running"
like "$(grep 'SIGHUP: reloaded' "$T/sbxd.log" | tail -1)" "1 recorded, 0 added, serving 1" \
	"nothing new to serve"

# A folder prepared after sbxd started.
B="$T/second proj"
mkdir -p "$B"
"$SBX" init "$B" >/dev/null 2>&1
cp "$FOLDER/task.sh" "$B/"
cp "$FOLDER/.sandbox/policy.json" "$B/.sandbox/policy.json"
"$SBX" -C "$B" policy accept >/dev/null
# One the other sbxd holds, and one whose .sandbox is open to others.
C="$T/held"
mkdir -p "$C"
"$SBX" init "$C" >/dev/null 2>&1
"$SBXD" "$C" 2>"$T/other.log" &
OTHER=$!
wait_for 10 grep -q serving "$T/other.log"
E="$T/open"
mkdir -p "$E"
"$SBX" init "$E" >/dev/null 2>&1
chmod 755 "$E/.sandbox"

kill -HUP "$DPID"
wait_for 10 grep -q "serving.*added on SIGHUP" "$T/sbxd.log"
ok $? "the folder prepared since is served after SIGHUP"
# the summary comes after every folder was tried (a held lock is retried)
wait_for 10 sh -c "[ \$(grep -c 'SIGHUP: reloaded' '$T/sbxd.log') -ge 2 ]"
like "$(grep 'SIGHUP: reloaded' "$T/sbxd.log" | tail -1)" "4 recorded, 1 added, serving 2" \
	"one added, the two it cannot serve left out"
like "$(cat "$T/sbxd.log")" "SIGHUP: $C is already served by another sbxd .*; not served" \
	"the folder another sbxd serves is logged and skipped"
like "$(cat "$T/sbxd.log")" "SIGHUP: $E/.sandbox is accessible by others.*; not served" \
	"the folder with an open .sandbox is logged and skipped"
kill -0 "$DPID" 2>/dev/null
ok $? "sbxd keeps running"

(cd "$B" && bash_payload "./task.sh hup" "$B" | CLAUDE_PROJECT_DIR="$B" "$HOOK" pre >"$T/hb") &
hp=$!
wait_for 10 bash -c "\"$SBX\" -C \"$B\" pending --json | jq -e 'length > 0'"
ok $? "a request in the new folder reaches sbxd"
id=$("$SBX" -C "$B" pending --json | jq -r '.[0].id')
"$SBX" -C "$B" approve "$id" >/dev/null 2>&1
wait "$hp"
like "$(reason <"$T/hb" | head -1)" "ALREADY EXECUTED" "and once approved, sbxd runs it"
is "$(wc -l <"$B/runs.log" | tr -d ' ')" "1" "exactly once"

kill -HUP "$DPID"
wait_for 10 bash -c "[ \$(grep -c 'SIGHUP: reloaded' '$T/sbxd.log') -ge 3 ]"
like "$(grep 'SIGHUP: reloaded' "$T/sbxd.log" | tail -1)" "4 recorded, 0 added, serving 2$" \
	"a third SIGHUP adds nothing twice"

kill "$OTHER"
wait "$OTHER" 2>/dev/null
kill -TERM "$DPID"
wait "$DPID"
is "$?" "0" "SIGTERM still stops sbxd, exit 0"
DPID=""

# Without --all, SIGHUP does not stop it either.
start_daemon
kill -HUP "$DPID"
wait_for 10 grep -q "SIGHUP: reloaded; serving the 1 folder" "$T/sbxd.log"
ok $? "sbxd DIR: SIGHUP reloads"
kill -0 "$DPID" 2>/dev/null
ok $? "and it keeps running"

done_testing
