#!/usr/bin/env bash
# Hostile: sbxd closes an idle folder's database and reopens it on the
# next event (t235). Whatever the agent does to the closed database is
# found at the reopen, said as TAMPERING, and the folder is no longer
# served - never silently used: state.db replaced by a copy, rewritten in
# place (a remembered rule added with sqlite3), a symlink; a WAL with
# frames planted beside it; -shm made a symlink to a file of the user's
# (which SQLite would truncate); .sandbox swapped for a copy. Each is
# checked from outside: the request the agent then drops is never
# claimed or run, nothing is written through the link, and the other
# folders are still served. 24 folders: sbxd keeps 16 databases open,
# so those of folders 1-8 are closed after the start.
. "$(dirname "$0")/lib.sh"

N=24
folder() { echo "$T/f$1"; }
db_open() { ls -l "/proc/$DPID/fd" 2>/dev/null | grep -q " $(folder "$1")/.sandbox/state.db\$"; }
db_closed() { kill -0 "$DPID" && ! db_open "$1"; }
# drop K WORD: the agent's call in folder K (the hook waits 1 s at most).
drop() {
	local f
	f=$(folder "$1")
	(cd "$f" && bash_payload "./task.sh $2" "$f" | CLAUDE_PROJECT_DIR="$f" "$HOOK" pre \
		>"$T/hook.$1")
}
# refused K WHAT [REGEX]: sbxd stopped serving folder K and said why
# (REGEX, default TAMPERING), its request was never claimed, nothing ran.
refused() {
	local f
	f=$(folder "$1")
	wait_for 10 grep -q "\[$f\] .*STOPPED SERVING THIS FOLDER" "$T/sbxd.log"
	ok $? "$2: sbxd stops serving folder $1"
	like "$(grep "\[$f\] .*STOPPED SERVING" "$T/sbxd.log")" "${3:-TAMPERING}" "... and says why"
	[ -n "$(ls "$f/.sandbox/queue/new/")" ] && [ -z "$(ls "$f/.sandbox/pending/")" ]
	ok $? "... the agent's request is left unclaimed in queue/new"
	[ ! -f "$f/runs.log" ]
	ok $? "... nothing ran"
	drop "$1" again
	like "$(reason <"$T/hook.$1")" "sbxd is not serving $f" \
		"... and its next call is told sbxd no longer serves the folder"
}

for k in $(seq "$N"); do
	mkdir -p "$(folder "$k")" && "$SBX" init "$(folder "$k")" >/dev/null 2>&1 || break
	FOLDER=$(folder "$k") setup_task
	FOLDER=$(folder "$k") set_limits '{"hook_wait_seconds": 1}'
done
is "$(grep -c '^/' "$SBX_CONFIG_DIR/folders")" "$N" "$N folders prepared"
start_all() {
	: >"$T/sbxd.log"
	"$SBXD" --all 2>>"$T/sbxd.log" &
	DPID=$!
	wait_for 120 sh -c "[ \$(grep -c '] serving' '$T/sbxd.log') -ge $N ]"
}
start_all
stop_daemon
cp "$(folder 2)/.sandbox/state.db" "$T/f2-old.db"
start_all
ok $? "sbxd --all serves the $N folders"
closed=0
for k in $(seq 1 8); do db_closed "$k" && closed=$((closed + 1)); done
is "$closed" "8" "the databases of folders 1-8 are closed (idle)"

# 1. state.db replaced by a copy of itself (another inode).
sb=$(folder 1)/.sandbox
cp "$sb/state.db" "$sb/copy.db" && mv "$sb/copy.db" "$sb/state.db"
drop 1 after-copy
# (The rename is seen at once by the watch on .sandbox: the same stop.)
refused 1 "state.db replaced by a copy" "state.db was removed, replaced"

# 2. Rewritten in place: a remembered rule for ./task.sh added to a copy
# (sqlite3), the copy written back over state.db (same inode).
sb=$(folder 2)/.sandbox
sqlite3 "$T/f2-old.db" "INSERT INTO rules (scope, prefix, tool, approver, created) VALUES
	('prefix', './task.sh', 'Bash', 'root', strftime('%s','now'))" &&
	cat "$T/f2-old.db" >"$sb/state.db"
drop 2 rule-planted
refused 2 "state.db rewritten in place with a remembered rule"

# 3. A WAL with frames planted beside the closed database: SQLite would
# read its pages as the database's.
sb=$(folder 3)/.sandbox
head -c 8192 /dev/urandom >"$sb/state.db-wal"
drop 3 wal-planted
refused 3 "a WAL with frames planted"

# 4. -shm made a symlink to a file of the user's.
sb=$(folder 4)/.sandbox
echo "precious" >"$T/victim"
rm -f "$sb/state.db-shm" && ln -s "$T/victim" "$sb/state.db-shm"
drop 4 shm-link
refused 4 "state.db-shm made a symlink"
is "$(cat "$T/victim")" "precious" "... the file it points to is untouched"

# 5. state.db a symlink to a copy.
sb=$(folder 5)/.sandbox
cp "$sb/state.db" "$T/f5.db" && rm "$sb/state.db" && ln -s "$T/f5.db" "$sb/state.db"
drop 5 db-link
refused 5 "state.db made a symlink" "state.db was removed, replaced or is a symlink"

# 6. A hard link to state.db made elsewhere (its link count changes).
sb=$(folder 6)/.sandbox
ln "$sb/state.db" "$T/f6-link.db"
drop 6 db-hardlink
refused 6 "a hard link to state.db"

# 7. .sandbox swapped for a copy while closed.
f=$(folder 7)
mv "$f/.sandbox" "$f/.sandbox.old" && cp -a "$f/.sandbox.old" "$f/.sandbox"
drop 7 swapped
refused 7 ".sandbox swapped for a copy" ".sandbox was removed, moved or replaced"

# The others are still served, folder 8 (closed, untouched) among them.
for k in 8 20; do
	f=$(folder "$k")
	(cd "$f" && bash_payload "./task.sh still-$k" "$f" | CLAUDE_PROJECT_DIR="$f" "$HOOK" pre \
		>/dev/null) &
	hp=$!
	wait_for 30 sh -c "'$SBX' -C '$f' pending --json | jq -e 'length > 0' >/dev/null"
	id=$("$SBX" -C "$f" pending --json | jq -r '.[0].id')
	"$SBX" -C "$f" approve "$id" >/dev/null
	wait_for 30 test -f "$f/.sandbox/results/$id.json"
	is "$(jq -r .status "$f/.sandbox/results/$id.json" 2>/dev/null)" "done" \
		"folder $k is still served (its database reopened, untouched)"
	wait "$hp"
done
unlike "$(grep -E '/f(8|9|1[0-9]|2[0-4])\] ' "$T/sbxd.log")" "TAMPERING|STOPPED" \
	"no untouched folder was refused"
kill -0 "$DPID"
ok $? "sbxd is still running"
done_testing
