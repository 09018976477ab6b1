#!/usr/bin/env bash
# Hostile (review of 2026-11-30): the agent inside `sbx jail` tries to
# lock sbxd's database. .sandbox is bound read-only, and a read-only
# descriptor is enough for a SHARED fcntl lock on byte 120 of
# state.db-shm, SQLite's WAL write lock: every write sbxd then made to
# the folder's database waited out the busy timeout (5 s, sbxd's one
# loop stopped for every folder it serves) and failed, the agent's
# request rejected as a "database error". The jail hides state.db-shm
# (an empty file bound over it): the agent's lock is on that file, not
# on sbxd's. Checked from outside: the request is claimed while the
# lock is held, and sbxd's log says nothing of a locked database.
. "$(dirname "$0")/lib.sh"

command -v bwrap >/dev/null || { echo "1..0 # SKIP bubblewrap is not installed"; exit 0; }
command -v python3 >/dev/null || { echo "1..0 # SKIP python3 is not installed"; exit 0; }

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1}'
start_daemon
ok $? "sbxd serves the folder"
shm="$FOLDER/.sandbox/state.db-shm"
[ -f "$shm" ]
ok $? "state.db-shm is there (sbxd has its database open)"

# In the jail: the lock, and the inode it is on.
cat >"$FOLDER/lock.py" <<'PY'
import fcntl, os, sys, time
try:
    fd = os.open(".sandbox/state.db-shm", os.O_RDONLY)
    fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 120, 0)
    print("locked inode", os.fstat(fd).st_ino, flush=True)
except OSError as e:
    print("refused:", e, flush=True)
    sys.exit(0)
time.sleep(int(sys.argv[1]))
PY
(cd "$FOLDER" && exec "$SBX" jail -C "$FOLDER" -- python3 lock.py 20) >"$T/jail.out" 2>&1 &
JP=$!
wait_for 30 grep -qE "locked|refused" "$T/jail.out"
ok $? "the script in the jail ran ($(head -c 120 "$T/jail.out"))"
got=$(sed -n 's/^locked inode //p' "$T/jail.out")
[ "$got" != "$(stat -c %i "$shm")" ]
ok $? "its lock is not on sbxd's state.db-shm (inode ${got:-none} in the jail, $(stat -c %i "$shm") outside)"

hook_bash "./task.sh held" >/dev/null
wait_for 8 has_pending
ok $? "its request is claimed while the lock is held"
unlike "$(cat "$T/sbxd.log")" "database is locked|database error" \
	"sbxd's writes never waited on the agent's lock, nor failed"

kill "$JP" 2>/dev/null
wait "$JP" 2>/dev/null
is "$(runs)" 0 "nothing ran (nobody approved)"
done_testing
