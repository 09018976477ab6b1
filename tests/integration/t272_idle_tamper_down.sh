#!/usr/bin/env bash
# Hostile, between two runs of sbxd: an idle folder's record (daemon/idle.h)
# lets the next start skip opening it only while it still describes the
# folder exactly. Whatever the agent (or anyone) changes while sbxd is down
# - state.db edited with sqlite3, a WAL with frames planted, the audit log
# appended to, the policy accepted again - or does to the record itself
# (a byte changed, another folder's record put in its place, a fifo) makes
# the start open the folder in full, with crash recovery, as without any
# record: checked from outside by what only the full open does (a run
# recorded as running is finished as interrupted; a torn audit line is cut
# and recorded) and by what sbxd says.
. "$(dirname "$0")/lib.sh"

IDLE="$SBX_CONFIG_DIR/idle"
F2="$T/other"
rec_of() { echo "$IDLE/$(printf '%s' "$(cd "$1" && pwd -P)" | b2sum -l 256 | cut -c1-32)"; }
start2() {
	: >"$T/sbxd.log"
	"$SBXD" "$FOLDER" "$F2" 2>>"$T/sbxd.log" &
	DPID=$!
	wait_for 20 sh -c "[ \$(grep -c '] serving' '$T/sbxd.log') -ge 2 ]"
}
# full WHY: the start opened $FOLDER in full, saying WHY (a regex).
full() {
	like "$(grep -F "[$(cd "$FOLDER" && pwd -P)] opened in full" "$T/sbxd.log")" "$1" \
		"... the start opens the folder in full: $1"
}
lazy() {
	unlike "$(grep -F "[$(cd "$FOLDER" && pwd -P)] opened in full" "$T/sbxd.log")" "." \
		"$1: the record matches (the folder is not opened)"
}

init_folder
setup_task
mkdir -p "$F2" && "$SBX" init "$F2" >/dev/null
start2 && stop_daemon
rec=$(rec_of "$FOLDER")
[ -f "$rec" ] && [ -f "$(rec_of "$F2")" ]
ok $? "a clean stop leaves a record of each idle folder (named by its path's hash)"
start2
ok $? "sbxd serves both"
lazy "untouched"
stop_daemon

# 1. state.db edited while sbxd is down: a run recorded as running (what
# a crash leaves). Only the full open's recovery finishes it.
id=0123456789abcdef
now=$(date +%s)
sqlite3 "$FOLDER/.sandbox/state.db" "INSERT INTO requests (id, hash, tool, input, cwd, created,
	expires, status, started) VALUES ('$id', 'h', 'Bash', '{}', '$FOLDER', $now, $((now + 600)),
	'running', $now)"
start2
full "state.db was written"
wait_for 10 test -f "$FOLDER/.sandbox/results/$id.json"
is "$(jq -r .status "$FOLDER/.sandbox/results/$id.json" 2>/dev/null)" "interrupted" \
	"... and recovers: the run is finished as interrupted"
stop_daemon

# 2. A WAL with frames planted beside state.db.
start2 && stop_daemon
head -c 8192 /dev/urandom >"$FOLDER/.sandbox/state.db-wal"
start2
full "state.db-wal with frames"
stop_daemon
: >"$FOLDER/.sandbox/state.db-wal"

# 3. The audit log appended to: a torn line (as a crash leaves it).
start2 && stop_daemon
printf '{"seq":999,"time":1,"prev":"00' >>"$FOLDER/.sandbox/audit.jsonl"
start2
full "audit.jsonl was written"
wait_for 10 grep -q '"event":"audit_recovered"' "$FOLDER/.sandbox/audit.jsonl"
ok $? "... and the torn line is cut and recorded at start"
stop_daemon

# 4. The policy accepted again (its retention may differ).
start2 && stop_daemon
set_limits '{"keep_results_days": 1}'
start2
full "policy was accepted again"
stop_daemon

# 5. The record itself: one byte changed (its keyed hash no longer fits).
start2 && stop_daemon
lazy "before the record is edited"
python3 - "$rec" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) - 100] ^= 1
open(p, "wb").write(bytes(b))
PY
start2
full "idle record .* is damaged"
stop_daemon

# 6. Another folder's record (intact, keyed by the same sbxd) put in its place.
start2 && stop_daemon
cp "$(rec_of "$F2")" "$rec"
start2
full "idle record .* is damaged"
stop_daemon

# 7. A fifo in its place: never waited on.
start2 && stop_daemon
rm -f "$rec" && mkfifo -m 600 "$rec"
start2
ok $? "a fifo in place of the record: sbxd still starts"
full "idle record .* is damaged"
stop_daemon
rm -f "$rec"

"$SBX" -C "$FOLDER" audit verify >/dev/null 2>&1
ok $? "the audit log verifies"
done_testing
