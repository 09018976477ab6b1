#!/usr/bin/env bash
# A folder sbxd left idle is opened at its first event (daemon/idle.h);
# its audit log is resumed at the tail sbxd recorded (last record, signed
# head and where its line starts, size, segments, intents) instead of
# being read and hashed whole: checked from outside with strace, by the
# bytes sbxd reads from audit.jsonl at that first event - a few hundred
# (the head's record and its checkpoint), not the log. The same first
# event with the record's tail changed (re-keyed with sbxd's key, which
# the same-user deployment lets the agent read) reads it in full, and
# says so. What sbxd then writes verifies.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/idlelib.sh"

command -v strace >/dev/null || skip_all "strace is not installed"
strace -qq -o /dev/null true 2>/dev/null || skip_all "strace cannot trace here"

init_folder
start_v
events 150 fill
wait_for 30 logged fill
ok $? "150 agent events logged"
stop_daemon
size=$(stat -c %s "$ALOG")
[ "$size" -gt 60000 ]
ok $? "the log is large enough to tell a full read ($size bytes)"
read -r tail_ok seq head_seq head_off tsize seg intents < <("$IDLEFORGE" "$SBX_CONFIG_DIR" "$FOLDER" show)
is "$tail_ok $tsize $((seq - 1))" "1 $size $head_seq" \
	"the clean stop records the log's tail: its size, the head just before the last record"

# audit_bytes STRACE-FILE: bytes read from audit.jsonl (read/pread64 on
# an fd strace -y names).
audit_bytes() {
	grep -E '^[0-9]+ +(read|pread64)\([0-9]+</[^>]*/\.sandbox/audit\.jsonl>' "$1" |
		sed -E 's/.*= ([0-9]+)$/\1/' | grep -E '^[0-9]+$' | awk '{s += $1} END {print s + 0}'
}
# first_event TAG: starts sbxd (lazy), traces it, drops one event and
# waits for it in the log; the trace in $T/st.TAG.
first_event() {
	start_v
	lazy_start
	ok $? "$1: the start finds the record and opens nothing"
	strace -qq -f -y -o "$T/st.$1" -e trace=openat,read,pread64 -p "$DPID" &
	SPID=$!
	sleep 0.5
	events 1 "$1"
	wait_for 20 logged "$1"
	ok $? "$1: the first event is logged"
	sleep 0.2
	kill "$SPID"
	wait "$SPID" 2>/dev/null
	stop_daemon
}

first_event same
n=$(audit_bytes "$T/st.same")
[ "$n" -gt 0 ] && [ "$n" -lt 4096 ]
ok $? "nothing changed: sbxd reads $n bytes of audit.jsonl (the tail), not its $size"
like "$(cat "$T/sbxd.log")" "audit log resumed at its recorded tail" "... and says it resumed the log"
unlike "$(cat "$T/sbxd.log")" "does not match" "... with no mismatch said"
verify
ok $? "the log written on from the recorded tail verifies"

# The record's tail changed, re-keyed (files untouched): read in full.
size=$(stat -c %s "$ALOG")
"$IDLEFORGE" "$SBX_CONFIG_DIR" "$FOLDER" flip-hash
first_event forged
n=$(audit_bytes "$T/st.forged")
[ "$n" -ge "$size" ]
ok $? "a tail that differs: the whole log is read ($n of $size bytes)"
like "$(cat "$T/sbxd.log")" "audit tail in its idle record does not match .*last record" \
	"... and sbxd says the tail did not match"
verify
ok $? "the log verifies (the full read found it intact and sbxd went on)"

# Several first events in a row: each resumes (the record written at
# each clean stop carries the tail sbxd left).
first_event again
n=$(audit_bytes "$T/st.again")
[ "$n" -gt 0 ] && [ "$n" -lt 4096 ]
ok $? "after a full read, the next start resumes again ($n bytes read)"
verify
ok $? "and the log verifies"

# A folder opened in full at start that then has nothing to do (its
# daemon_start held back, never written) still gets its tail recorded.
rm -f "$IDLE"/*
start_v
stop_daemon
read -r tail_ok seq head_seq head_off tsize seg intents < <("$IDLEFORGE" "$SBX_CONFIG_DIR" "$FOLDER" show)
is "$tail_ok $tsize" "1 $(stat -c %s "$ALOG")" \
	"opened in full with nothing to do: the stop records the tail all the same"
first_event quiet
n=$(audit_bytes "$T/st.quiet")
[ "$n" -gt 0 ] && [ "$n" -lt 4096 ]
ok $? "... and the next start's first event resumes it ($n bytes read)"
done_testing
