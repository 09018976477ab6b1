#!/usr/bin/env bash
# Hostile, after the start: a folder served lazily (its idle record matched,
# daemon/idle.h: database and log not opened yet) is opened at its first
# event with the checks of any reopen, against what the record says sbxd
# left. Whatever the agent did to it after the start is found then, said as
# TAMPERING, and the folder is no longer served - never silently used:
# state.db rewritten in place with a remembered rule, a WAL with frames
# planted, audit.jsonl appended to, state.db hard-linked. Checked from
# outside: the request the agent then drops is never claimed or run, its
# next call is told sbxd no longer serves the folder, and an untouched
# folder is still served.
. "$(dirname "$0")/lib.sh"

N=5
folder() { echo "$T/f$1"; }
db_open() { ls -l "/proc/$DPID/fd" 2>/dev/null | grep -q " $(folder "$1")/.sandbox/state.db\$"; }
drop() {
	local f
	f=$(folder "$1")
	(cd "$f" && bash_payload "./task.sh $2" "$f" | CLAUDE_PROJECT_DIR="$f" "$HOOK" pre \
		>"$T/hook.$1")
}
refused() {
	local f
	f=$(folder "$1")
	wait_for 10 grep -q "\[$f\] .*STOPPED SERVING THIS FOLDER" "$T/sbxd.log"
	ok $? "$2: sbxd stops serving folder $1"
	like "$(grep "\[$f\] .*STOPPED SERVING" "$T/sbxd.log")" "TAMPERING" "... and says why"
	[ -n "$(ls "$f/.sandbox/queue/new/")" ] && [ -z "$(ls "$f/.sandbox/pending/")" ]
	ok $? "... the agent's request is left unclaimed in queue/new"
	[ ! -f "$f/runs.log" ]
	ok $? "... nothing ran"
	drop "$1" again
	like "$(reason <"$T/hook.$1")" "sbxd is not serving $f" \
		"... and its next call is told sbxd no longer serves the folder"
}
start_all() {
	: >"$T/sbxd.log"
	"$SBXD" --all 2>>"$T/sbxd.log" &
	DPID=$!
	wait_for 60 sh -c "[ \$(grep -c '] serving' '$T/sbxd.log') -ge $N ]"
}

for k in $(seq "$N"); do
	mkdir -p "$(folder "$k")" && "$SBX" init "$(folder "$k")" >/dev/null 2>&1 || break
	FOLDER=$(folder "$k") setup_task
	FOLDER=$(folder "$k") set_limits '{"hook_wait_seconds": 1}'
done
start_all && stop_daemon
cp "$(folder 1)/.sandbox/state.db" "$T/f1-old.db"
start_all
ok $? "sbxd --all serves the $N folders"
lazy=0
for k in $(seq "$N"); do db_open "$k" || lazy=$((lazy + 1)); done
is "$lazy" "$N" "none of their databases is open (each record matched)"

# 1. state.db rewritten in place (same inode) with a remembered rule.
sqlite3 "$T/f1-old.db" "INSERT INTO rules (scope, prefix, tool, approver, created) VALUES
	('prefix', './task.sh', 'Bash', 'root', strftime('%s','now'))" &&
	cat "$T/f1-old.db" >"$(folder 1)/.sandbox/state.db"
drop 1 rule-planted
refused 1 "state.db rewritten in place with a remembered rule"

# 2. A WAL with frames planted beside it.
head -c 8192 /dev/urandom >"$(folder 2)/.sandbox/state.db-wal"
drop 2 wal-planted
refused 2 "a WAL with frames planted"

# 3. The audit log appended to (a record of the agent's making).
tail -1 "$(folder 3)/.sandbox/audit.jsonl" >>"$(folder 3)/.sandbox/audit.jsonl"
drop 3 audit-appended
refused 3 "audit.jsonl appended to"

# 4. A hard link to state.db made elsewhere.
ln "$(folder 4)/.sandbox/state.db" "$T/f4-link.db"
drop 4 db-hardlink
refused 4 "a hard link to state.db"

# Folder 5, untouched, is served: opened at its first event.
f=$(folder 5)
(cd "$f" && bash_payload "./task.sh still" "$f" | CLAUDE_PROJECT_DIR="$f" "$HOOK" pre \
	>/dev/null) &
hp=$!
wait_for 30 sh -c "'$SBX' -C '$f' pending --json | jq -e 'length > 0' >/dev/null"
id=$("$SBX" -C "$f" pending --json | jq -r '.[0].id')
"$SBX" -C "$f" approve "$id" >/dev/null
wait_for 30 test -f "$f/.sandbox/results/$id.json"
is "$(jq -r .status "$f/.sandbox/results/$id.json" 2>/dev/null)" "done" \
	"the untouched folder is still served (opened at its first event)"
wait "$hp"
unlike "$(grep -F "[$f] " "$T/sbxd.log")" "TAMPERING|STOPPED" "and was not refused"
kill -0 "$DPID"
ok $? "sbxd is still running"
done_testing
