#!/usr/bin/env bash
# Every terminal state produces a result the hook can deliver: written on
# recovery when a crash or a full disk prevented it, with the output that
# exists; a torn result is moved aside, not trusted.
. "$(dirname "$0")/lib.sh"

FAULTY="$TOOLS/sbxd-faults"
req_id() { reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2; }
died() { ! kill -0 "$DPID" 2>/dev/null; }
start_faulty() {
	: >"$T/sbxd.log"
	SBX_FAULT=$1 "$FAULTY" "$FOLDER" 2>>"$T/sbxd.log" &
	DPID=$!
	wait_for 10 grep -q serving "$T/sbxd.log"
}

if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=3m tmpfs "$FOLDER" 2>/dev/null; then
	tmpfs=1
	trap 'stop_daemon; umount "$FOLDER" 2>/dev/null; cleanup' EXIT
else
	tmpfs=0
fi
init_folder
setup_task
cat >"$FOLDER/fill.sh" <<'SH'
#!/bin/sh
echo "run fill" >>"$(dirname "$0")/runs.log"
echo "filling the disk"
head -c 16M /dev/zero >"$(dirname "$0")/big" 2>/dev/null
exit 0
SH
chmod +x "$FOLDER/fill.sh"
add_rule escalate 'Bash(./fill.sh:*)'
set_limits '{"hook_wait_seconds": 1}'

# 1. The command finished and its result was written, but the crash cut
# it (a power cut leaves the renamed file empty): sbxd is killed right
# after reaping the executor, and the result is emptied.
start_faulty reaped
a=$(hook_bash "./task.sh torn" | req_id)
wait_for 10 has_pending
"$SBX" -C "$FOLDER" approve "$a" >/dev/null
wait_for 10 died
ok $? "sbxd is killed between reaping the executor and recording its result"
wait "$DPID" 2>/dev/null; DPID=""
: >"$FOLDER/.sandbox/results/$a.json"
start_daemon
is "$(jq -r .status "$FOLDER/.sandbox/results/$a.json" 2>/dev/null)" "interrupted" \
	"after the restart the torn result is replaced by a readable one"
like "$(jq -r .stdout "$FOLDER/.sandbox/results/$a.json")" "out: torn" "which keeps the command's output"
ls "$FOLDER/.sandbox/rejected/" | grep -q -- "-$a.json\$"
ok $? "the torn file is moved aside"
r=$(hook_bash "./task.sh torn" | reason)
like "$r" "request $a was approved but interrupted" "the hook delivers it"
like "$r" "out: torn" "with the output"
is "$(runs)" "1" "it is not run again"
stop_daemon

# 2. The disk fills while a command runs: no result can be written then;
# once there is space again the hook gets one.
if [ "$tmpfs" = 0 ]; then
	echo "# SKIP the full-disk part needs root (mount -t tmpfs)"
	done_testing
fi
start_daemon
b=$(hook_bash "./fill.sh" | req_id)
wait_for 10 has_pending
"$SBX" -C "$FOLDER" approve "$b" >/dev/null
wait_for 10 grep -q "request $b:.*interrupted\|request $b: done" "$T/sbxd.log"
ok $? "the command ran and filled the disk"
[ ! -s "$FOLDER/.sandbox/results/$b.json" ]
ok $? "no result could be written"
like "$(hook_bash "./fill.sh" | reason)" "pending as request $b" "meanwhile the hook can only say pending"
rm -f "$FOLDER/big"
wait_for 15 test -s "$FOLDER/.sandbox/results/$b.json"
ok $? "with space again, sbxd writes the missing result"
r=$(hook_bash "./fill.sh" | reason)
like "$r" "request $b was approved but interrupted" "the hook delivers it"
like "$r" "filling the disk" "with the output that was kept"
is "$("$SBX" -C "$FOLDER" show "$b" --json | jq -r .status)" "interrupted" "the database agrees"
is "$(grep -c 'run fill' "$FOLDER/runs.log")" "1" "it ran once"

done_testing
