#!/usr/bin/env bash
# One sbxd serves every recorded folder, however many (issue 16: `sbxd
# --all` served the first 64 and left the others' requests waiting, saying
# nothing; `sbx watch --all` had the same cap). N folders (default 300,
# SBX_T190_FOLDERS; `make bench-scale` does 1,000): every one is served,
# requests in the first, the 65th and the last run, `sbx watch --all`
# lists every folder and a request in the last, and a SIGHUP adds 70 more
# (past any room kept at start), served as well. Too many --pass-env names
# are an error, not dropped.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/evlib.sh"

N=${SBX_T190_FOLDERS:-300}
folder() { echo "$T/f$1"; }
prepare() {	# prepare FROM TO: sbx init each folder
	local k
	for k in $(seq "$1" "$2"); do
		mkdir -p "$(folder "$k")"
		"$SBX" init "$(folder "$k")" >/dev/null 2>&1 || return 1
	done
}
with_task() {	# with_task K: an escalated task in folder K
	FOLDER=$(folder "$1") setup_task
	FOLDER=$(folder "$1") set_limits '{"hook_wait_seconds": 60}'
}
# run_in K WORD: the agent's call in folder K, approved by a human; its
# result comes back to the hook.
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

# Other caps say so rather than drop: 70 --pass-env names are refused.
"$SBXD" $(for _ in $(seq 70); do printf -- '--pass-env HOME '; done) "$T" 2>"$T/env.err"
is "$?" 2 "sbxd refuses more --pass-env names than it passes (exit 2)"
like "$(cat "$T/env.err")" "too many --pass-env names" "... and says so"

prepare 1 "$N"
ok $? "$N folders prepared (sbx init)"
is "$(grep -c '^/' "$SBX_CONFIG_DIR/folders")" "$N" "all $N are recorded"
for k in 1 65 "$N"; do with_task "$k"; done

: >"$T/sbxd.log"
"$SBXD" --all 2>>"$T/sbxd.log" &
DPID=$!
wait_for 300 sh -c "[ \$(grep -c '] serving' '$T/sbxd.log') -ge $N ]"
ok $? "sbxd --all says it serves each of the $N folders"
for k in 1 65 "$N"; do
	grep -q "\[$(folder "$k")\] serving" "$T/sbxd.log"
	ok $? "... folder $k among them"
done
for k in 1 65 "$N"; do
	run_in "$k" "in-$k"
	ok $? "a request in folder $k is approved, run once and delivered"
done

# sbx watch --all: every folder, and a request pending in the last one.
f=$(folder "$N")
(cd "$f" && bash_payload "./task.sh watch-me" "$f" | CLAUDE_PROJECT_DIR="$f" "$HOOK" pre \
	>/dev/null) &
hp=$!
wait_for 60 sh -c "'$SBX' -C '$f' pending --json | jq -e 'length > 0' >/dev/null"
id=$("$SBX" -C "$f" pending --json | jq -r '.[0].id')
printf 'l\nq\n' | "$SBX" watch --all --plain >"$T/watch.out" 2>&1
like "$(head -1 "$T/watch.out")" "$N folder\\(s\\)" "sbx watch --all watches all $N folders"
like "$(cat "$T/watch.out")" "$id" "... and shows the request pending in the last one"
"$SBX" -C "$f" deny "$id" >/dev/null
wait "$hp"

# SIGHUP: 70 folders prepared since start are served too.
prepare $((N + 1)) $((N + 70))
with_task $((N + 70))
kill -HUP "$DPID"
wait_for 300 grep -q "SIGHUP: reloaded" "$T/sbxd.log"
like "$(grep 'SIGHUP: reloaded' "$T/sbxd.log" | tail -1)" \
	"$((N + 70)) recorded, 70 added, serving $((N + 70))" "SIGHUP adds the 70 new folders"
run_in $((N + 70)) "after-hup"
ok $? "a request in the last folder added is run"
unlike "$(cat "$T/sbxd.log")" "not served|NOT served|room for" "no folder was left out"

if can_see_sleep; then
	wait_for 60 sleeping "$DPID"
	ok $? "with $((N + 70)) folders, idle sbxd sleeps in poll(2) with no timeout"
else
	ok 0 "# SKIP this machine does not show the syscall a process sleeps in"
fi
kill -0 "$DPID"
ok $? "sbxd is still running"
stop_daemon
done_testing
