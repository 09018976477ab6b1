#!/usr/bin/env bash
# Hostile, with sbxd's key: in the same-user deployment the agent can read
# CONFIG/daemon.key, so it can forge sbxd's idle record of a folder
# (daemon/idle.h, re-keyed with tests/tools/idleforge) to describe a log
# it altered while sbxd was down. The record then lets the start skip the
# open, but the first event resumes the log only when the bytes from the
# signed head's line to the end are exactly the recorded records; anything
# else reads the log in full, whose checks decide as without any record:
# a log cut before its signed head is TAMPERING (the folder is no longer
# served, nothing is appended); a copy of a record appended is taken as
# the full open always took it, and `sbx audit verify` finds it. Checked
# from outside: sbxd's words, what it runs, the log's bytes, verify.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/idlelib.sh"

forge() { "$IDLEFORGE" "$SBX_CONFIG_DIR" "$FOLDER" "$@"; }
# first TAG: starts sbxd, which must take the (forged) record; drops one
# event, the folder's first.
first() {
	start_v
	lazy_start
	ok $? "$1: the forged record is taken at start (the folder is not opened)"
	events 1 "$1"
}
mismatch() {
	wait_for 20 grep -q "audit tail in its idle record does not match" "$T/sbxd.log"
	ok $? "... the first event finds the tail differs and reads the log in full"
}

init_folder
start_v
events 40 fill
wait_for 30 logged fill
ok $? "events logged"
stop_daemon
verify
ok $? "the log verifies"

# 1. The record's tail edited (last seq), the log untouched.
forge seq=9999
first edited
mismatch
wait_for 20 logged edited
ok $? "... the log is intact: the folder is served"
stop_daemon
verify
ok $? "... and the log verifies"
cp -p "$ALOG" "$T/log.orig"

# 2. The log cut before its signed head, the record made to fit the file
# (its inode, size and times) and its tail's size.
cut=$(head -n -2 "$ALOG" | wc -c)
truncate -s "$cut" "$ALOG"
forge restat "size=$cut"
first cut
mismatch
wait_for 20 grep -q "STOPPED SERVING THIS FOLDER" "$T/sbxd.log"
ok $? "... the full read refuses the log: the folder is no longer served"
like "$(grep "STOPPED SERVING" "$T/sbxd.log")" "TAMPERING.*does not match its last signed head" \
	"... said as TAMPERING"
is "$(stat -c %s "$ALOG")" "$cut" "... and nothing is appended to the cut log"
[ -n "$(ls "$FOLDER/.sandbox/queue/events/")" ]
ok $? "... its event is left where the agent dropped it"
stop_daemon
rm -f "$IDLE"/*
cp "$T/log.orig" "$ALOG"

# The log back: a full open, then a clean stop writes a record again.
start_v && stop_daemon
start_v
lazy_start
ok $? "the log restored: a record again"
stop_daemon

# 3. A copy of the last record appended, the record made to fit.
tail -1 "$ALOG" >>"$ALOG"
forge restat "size=$(stat -c %s "$ALOG")"
first copied
mismatch
wait_for 20 logged copied
ok $? "... the full read takes the copy, as a full open always did: served"
stop_daemon
! verify
ok $? "... but \`sbx audit verify\` fails"
like "$(cat "$T/verify.out")" "BROKEN" "... and says where the chain breaks"
done_testing
