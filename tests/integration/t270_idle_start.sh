#!/usr/bin/env bash
# A folder with nothing to do since the last run is served at start
# without opening its database or log (issue 16: 1,000 folders in < 1 s):
# sbxd's idle record of it (CONFIG/idle, daemon/idle.h) is written when
# it stops, private (0600 in a 0700 directory, hidden from the jail), and
# matched at the next start. "serving" stays honest: the folder is really
# served - a request dropped after the start is claimed, approved, run
# once and delivered (the database opened at that first event) - and
# nothing is written into a folder that had nothing to do.
. "$(dirname "$0")/lib.sh"

IDLE="$SBX_CONFIG_DIR/idle"
db_open() { ls -l "/proc/$DPID/fd" 2>/dev/null | grep -q " $FOLDER/.sandbox/state.db\$"; }
log_open() { ls -l "/proc/$DPID/fd" 2>/dev/null | grep -q " $FOLDER/.sandbox/audit.jsonl\$"; }
sums() { cat "$FOLDER"/.sandbox/{audit.jsonl,state.db} | cksum; }

init_folder
setup_task
set_limits '{"hook_wait_seconds": 60}'
start_daemon
ok $? "sbxd serves the folder (a first start: opened in full)"
db_open
ok $? "its database is open after a first start"
stop_daemon
is "$(ls "$IDLE" | wc -l)" "1" "the clean stop leaves one idle record in sbxd's config"
rec=$(ls "$IDLE"/* | head -1)
is "$(stat -c %a "$IDLE") $(stat -c %a "$rec")" "700 600" "private: 0700 directory, 0600 record"

before=$(sums)
start_daemon
ok $? "sbxd serves it again"
! db_open && ! log_open
ok $? "a restart opens neither its database nor its log (nothing to do)"
unlike "$(cat "$T/sbxd.log")" "opened in full" "the record matched"
is "$(sums)" "$before" "nothing is written into it at start"

# Served for real: a request dropped after the start.
hook_bash "./task.sh after-start" >"$T/out" &
hp=$!
wait_for 30 has_pending
ok $? "a request dropped after the start is claimed"
db_open
ok $? "its database is opened for it"
"$SBX" -C "$FOLDER" approve "$(pending_ids)" >/dev/null
wait "$hp"
like "$(reason <"$T/out")" "out: after-start" "approved, run and delivered"
is "$(runs)" "1" "it ran once"
[ ! -e "$rec" ]
ok $? "the record is gone while the database is in use"
stop_daemon
[ -e "$rec" ]
ok $? "the clean stop writes it again"
"$SBX" -C "$FOLDER" audit verify >/dev/null 2>&1
ok $? "the audit log verifies"

# Hidden from the jail: the agent never sees sbxd's records (sbx jail
# needs sbxd serving the folder).
start_daemon
if command -v bwrap >/dev/null && "$SBX" -C "$FOLDER" jail --offline -- /bin/true >/dev/null 2>&1; then
	"$SBX" -C "$FOLDER" jail --offline -- ls "$IDLE" >"$T/jail.out" 2>&1
	[ $? -ne 0 ] && ! grep -q "$(basename "$rec")" "$T/jail.out"
	ok $? "the idle records are not reachable in the jail"
else
	ok 0 "# SKIP bubblewrap cannot run here"
fi
stop_daemon

done_testing
