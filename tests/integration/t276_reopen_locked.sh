#!/usr/bin/env bash
# F4: an idle folder's database is closed and reopened on its next event
# (t235). A lock another connection holds on it at that moment (a reader
# such as `sbx`, a sqlite3 shell) is no tampering: sbxd waits briefly,
# keeps serving the folder, tries again a second later and rescans it,
# so the request that came meanwhile is claimed once the lock goes; the
# other folders are served meanwhile. (Real tampering still stops the
# folder: t236.) 17 folders: sbxd keeps 16 databases open, so folder 1's
# is closed after the start.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || { echo "1..0 # SKIP python3 is not installed"; exit 0; }

N=17
folder() { echo "$T/f$1"; }
db_open() { ls -l "/proc/$DPID/fd" 2>/dev/null | grep -q " $(folder "$1")/.sandbox/state.db\$"; }
db_closed() { kill -0 "$DPID" && ! db_open "$1"; }
drop() {
	local f
	f=$(folder "$1")
	(cd "$f" && bash_payload "./task.sh $2" "$f" | CLAUDE_PROJECT_DIR="$f" "$HOOK" pre \
		>"$T/hook.$1")
}
claimed() { [ -n "$(ls "$(folder "$1")/.sandbox/pending/")" ]; }

for k in $(seq "$N"); do
	mkdir -p "$(folder "$k")" && "$SBX" init "$(folder "$k")" >/dev/null 2>&1 || break
	FOLDER=$(folder "$k") setup_task
	FOLDER=$(folder "$k") set_limits '{"hook_wait_seconds": 1}'
done
: >"$T/sbxd.log"
"$SBXD" --all 2>>"$T/sbxd.log" &
DPID=$!
wait_for 120 sh -c "[ \$(grep -c '] serving' '$T/sbxd.log') -ge $N ]"
ok $? "sbxd --all serves the $N folders"
wait_for 20 db_closed 1
ok $? "folder 1's database is closed (idle)"

# A connection holds an exclusive lock on folder 1's state.db (no write:
# the file stays the one sbxd left) for 15 s, longer than SQLite's busy
# wait of 5 s after sbxd first tries it (8 s left 3 s for the hook to
# start and its request to reach sbxd: little under ASan on a loaded
# machine).
cat >"$T/lock.py" <<'PY'
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA locking_mode=EXCLUSIVE")
c.execute("BEGIN EXCLUSIVE")
c.execute("SELECT count(*) FROM requests").fetchall()
open(sys.argv[2], "w").close()
time.sleep(float(sys.argv[3]))
c.execute("ROLLBACK")
c.close()
PY
python3 "$T/lock.py" "$(folder 1)/.sandbox/state.db" "$T/locked" 15 &
LPID=$!
wait_for 10 test -e "$T/locked"
ok $? "folder 1's database is locked"
drop 1 while-locked
drop 2 other
wait_for 20 claimed 2
ok $? "another folder is served while folder 1's database is locked"
wait "$LPID"
wait_for 20 claimed 1
ok $? "once the lock is gone, folder 1's request is claimed (the folder was rescanned)"
f=$(folder 1)
unlike "$(grep "\[$f\]" "$T/sbxd.log")" "STOPPED SERVING|TAMPERING" \
	"a lock is not taken for tampering: folder 1 is still served"
like "$(grep "\[$f\]" "$T/sbxd.log")" "locked by another connection" "sbxd says the database was locked"
like "$(grep "\[$f\]" "$T/sbxd.log")" "no longer locked .*served again" "... and when it is served again"
drop 1 after
like "$(reason <"$T/hook.1")" "pending as request" "the next call in folder 1 is queued and claimed as usual"

done_testing
