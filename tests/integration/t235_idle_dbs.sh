#!/usr/bin/env bash
# Idle folders' databases are closed and reopened on their next event or
# timer (issue 16: 1,000 folders in one sbxd, < 64 MB). 70 folders, more
# than the 64 of old and than the 16 databases sbxd keeps open: after the
# start most are closed (seen from /proc: sbxd holds no descriptor of
# their state.db); a request in a closed folder reopens it and is served
# (approved, run once, delivered); once idle and least recently used it
# is closed again; an expiry due in a closed folder still fires (its time
# is kept in memory), and a decision for a request that waits in one is
# taken in; requests in many closed folders are all served; a
# restart writes nothing into a folder with nothing to do; the clean stop
# leaves every WAL empty.
. "$(dirname "$0")/lib.sh"

N=70
folder() { echo "$T/f$1"; }
# db_open K: sbxd holds folder K's state.db open.
db_open() { ls -l "/proc/$DPID/fd" 2>/dev/null | grep -q " $(folder "$1")/.sandbox/state.db\$"; }
db_closed() { kill -0 "$DPID" && ! db_open "$1"; }
dbs_open() { ls -l "/proc/$DPID/fd" 2>/dev/null | grep -c '/.sandbox/state.db$'; }
req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }
with_task() {	# with_task K [LIMITS]
	FOLDER=$(folder "$1") setup_task
	FOLDER=$(folder "$1") set_limits "${2:-{\"hook_wait_seconds\": 60\}}"
}
# run_in K WORD: the agent's call in folder K, approved by a human; its
# result comes back to the hook, and it ran once.
run_in() {
	local f id hp
	f=$(folder "$1")
	(cd "$f" && bash_payload "./task.sh $2" "$f" | CLAUDE_PROJECT_DIR="$f" "$HOOK" pre \
		>"$T/hook.$1") &
	hp=$!
	wait_for 60 sh -c "'$SBX' -C '$f' pending --json | jq -e 'length > 0' >/dev/null" || return 1
	id=$("$SBX" -C "$f" pending --json | jq -r '.[0].id')
	"$SBX" -C "$f" approve "$id" >/dev/null || return 1
	wait "$hp"
	reason <"$T/hook.$1" | grep -q "out: $2" && [ "$(grep -c "^run $2\$" "$f/runs.log")" = 1 ]
}
# probe K: something happens in folder K (a receipt sbxd ignores): its
# database is opened, and it becomes the most recently used.
probe() { : >"$(folder "$1")/.sandbox/queue/delivered/probe-$RANDOM$RANDOM"; }
# closed_by_use K: folders 41-57 are used until folder K's database is
# closed (once K is idle - its records signed - and the least recently used).
closed_by_use() {
	local k
	for k in $(seq 41 57); do probe "$k"; done
	db_closed "$1"
}
start_all() {
	: >"$T/sbxd.log"
	"$SBXD" --all 2>>"$T/sbxd.log" &
	DPID=$!
	wait_for 300 sh -c "[ \$(grep -c '] serving' '$T/sbxd.log') -ge $N ]"
}

for k in $(seq "$N"); do
	mkdir -p "$(folder "$k")" && "$SBX" init "$(folder "$k")" >/dev/null 2>&1 || break
done
is "$(grep -c '^/' "$SBX_CONFIG_DIR/folders")" "$N" "$N folders prepared"
for k in 1 3 10 20 30 40 60 70; do with_task "$k"; done
with_task 2 '{"hook_wait_seconds": 1, "request_ttl_seconds": 20}'
with_task 4 '{"hook_wait_seconds": 1}'

# A first start writes each new log's first records; then sbxd stops.
start_all
ok $? "sbxd --all serves the $N folders"
stop_daemon
sum35() { cat "$(folder 35)"/.sandbox/{audit.jsonl,state.db} | cksum; }
before=$(sum35)
start_all
ok $? "and again after a restart"
is "$(sum35)" "$before" "a folder with nothing to do: nothing written at start (log, state.db)"

# A restart opens no database of a folder with nothing to do (its idle
# record matched, daemon/idle.h): each is opened at its first event.
n=$(dbs_open)
[ "$n" -le 16 ]
ok $? "at most 16 databases are open after the start ($n of $N)"
db_closed 1
ok $? "folder 1's database was closed once it was idle"

run_in 1 one
ok $? "a request in folder 1 (closed) reopens it, and is approved, run once and delivered"
db_open 1
ok $? "its database is open while it is in use"

# An expiry due while the folder is closed: the request waits in folder
# 2; 16 other folders are used after it, so its database is closed.
f2=$(folder 2)
id=$(cd "$f2" && bash_payload "./task.sh expire-me" "$f2" | CLAUDE_PROJECT_DIR="$f2" "$HOOK" pre | req_id)
like "$id" "^[0-9a-f]{16}$" "a request waits in folder 2 (expires in 20 s)"
wait_for 15 closed_by_use 2
ok $? "folder 2's database is closed (idle, least recently used) while the request waits"
wait_for 15 closed_by_use 1
ok $? "folder 1's, used before, is closed again"
[ ! -f "$f2/.sandbox/results/$id.json" ]
ok $? "the request has not expired yet"
wait_for 30 test -f "$f2/.sandbox/results/$id.json"
ok $? "its expiry fires in the closed folder (the database is reopened for it)"
is "$(jq -r .status "$f2/.sandbox/results/$id.json")" "expired" "the request expired"
is "$("$SBX" -C "$f2" show "$id" --json | jq -r .status)" "expired" "state.db says so"
[ ! -f "$f2/runs.log" ]
ok $? "nothing ran"

# A decision for a request that waits in a closed folder.
f4=$(folder 4)
id=$(cd "$f4" && bash_payload "./task.sh decided-later" "$f4" | CLAUDE_PROJECT_DIR="$f4" "$HOOK" pre | req_id)
like "$id" "^[0-9a-f]{16}$" "a request waits in folder 4"
wait_for 15 closed_by_use 4
ok $? "folder 4's database is closed while it waits"
"$SBX" -C "$f4" approve "$id" >/dev/null
wait_for 30 test -f "$f4/.sandbox/results/$id.json"
is "$(jq -r .status "$f4/.sandbox/results/$id.json" 2>/dev/null)" "done" \
	"the approval is taken in (the database reopened) and the command runs"
is "$(grep -c '^run decided-later$' "$f4/runs.log" 2>/dev/null)" "1" "once"

# Requests in folders closed since the start, one after another.
for k in 3 10 20 30 40 60 70; do
	run_in "$k" "in-$k"
	ok $? "a request in folder $k is served"
done
unlike "$(cat "$T/sbxd.log")" "TAMPERING|STOPPED SERVING" "no folder was refused"
kill -0 "$DPID"
ok $? "sbxd is still running"

stop_daemon
bad=0
for k in $(seq "$N"); do
	w="$(folder "$k")/.sandbox/state.db-wal"
	[ ! -s "$w" ] || bad=$((bad + 1))
done
is "$bad" "0" "after a clean stop no folder's WAL holds frames"
for k in 1 2 4 35; do
	"$SBX" -C "$(folder "$k")" audit verify >"$T/verify.$k" 2>&1
	ok $? "sbx audit verify in folder $k: OK"
done
done_testing
