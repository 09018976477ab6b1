#!/usr/bin/env bash
# Hostile, while sbxd is stopped, without sbxd's key: the audit log's tail
# of a folder sbxd left idle is changed - the log cut short, a forged line
# appended, audit.jsonl swapped with a closed segment, two closed segments
# swapped. sbxd's idle record (daemon/idle.h) no longer describes
# audit.jsonl (its inode, size or ctime moved), so the start opens the
# folder in full, whose checks refuse a log that ends before its signed
# head or holds a damaged line, as always; two closed segments swapped
# (which neither the full open nor the recorded tail reads) are found by
# `sbx audit verify`. Checked from outside: what sbxd says, whether it
# serves the folder, and verify.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/idlelib.sh"

init_folder
# Small segments: the log rotates (audit.000001.jsonl, ...).
start_v --audit-segment-bytes 8192
events 120 fill
wait_for 30 logged fill
ok $? "events logged"
stop_daemon
nseg=$(ls "$FOLDER"/.sandbox/audit.0*.jsonl | wc -l)
[ "$nseg" -ge 3 ]
ok $? "the log rotated ($nseg closed segments)"
verify
ok $? "it verifies"
cp -p "$FOLDER"/.sandbox/audit*.jsonl "$T/"

# refused WHAT WHY: the start opens the folder in full and refuses its log.
refused() {
	: >"$T/sbxd.log"
	"$SBXD" -v --audit-segment-bytes 8192 "$FOLDER" 2>>"$T/sbxd.log" &
	DPID=$!
	wait_for 20 sh -c "! kill -0 $DPID 2>/dev/null"
	ok $? "$1: sbxd does not serve the folder"
	DPID=""
	like "$(cat "$T/sbxd.log")" "opened in full: audit.jsonl was written, replaced or linked" \
		"... the record no longer matches audit.jsonl: opened in full"
	like "$(cat "$T/sbxd.log")" "$2" "... whose checks refuse the log"
}
restore() { cp -p "$T"/audit*.jsonl "$FOLDER/.sandbox/"; }

# 1. Cut short: the last two records (the signed head's and its checkpoint).
size=$(stat -c %s "$ALOG")
cut=$(head -n -2 "$ALOG" | wc -c)
truncate -s "$cut" "$ALOG"
refused "the log cut before its signed head" "does not match its last signed head.*cut off"
is "$(stat -c %s "$ALOG")" "$cut" "... and nothing is appended to it"
restore

# 2. A forged line appended: the last record again with one byte changed.
tail -1 "$ALOG" | sed 's/"event":"checkpoint"/"event":"checkpoinu"/' >>"$ALOG"
refused "a forged line appended" "audit.jsonl is damaged"
restore

# 3. audit.jsonl swapped with the newest closed segment.
last=$(ls "$FOLDER"/.sandbox/audit.0*.jsonl | tail -1)
mv "$ALOG" "$T/active" && mv "$last" "$ALOG" && mv "$T/active" "$last"
refused "audit.jsonl swapped with a closed segment" "does not match its last signed head"
rm -f "$FOLDER"/.sandbox/audit*.jsonl
restore

# The log restored as sbxd left it (copies: their ctime differs, so the
# next start opens in full, and records the tail again).
start_v --audit-segment-bytes 8192
events 1 back
wait_for 20 logged back
ok $? "the log restored: served again"
stop_daemon
start_v --audit-segment-bytes 8192
lazy_start
ok $? "... and left idle with a record again"
stop_daemon

# 4. Two closed segments swapped: audit.jsonl untouched, so the record
# still matches and the first event resumes the log at its tail (the
# full open reads only audit.jsonl too); verify finds the swap.
mv "$FOLDER/.sandbox/audit.000001.jsonl" "$T/s1"
mv "$FOLDER/.sandbox/audit.000002.jsonl" "$FOLDER/.sandbox/audit.000001.jsonl"
mv "$T/s1" "$FOLDER/.sandbox/audit.000002.jsonl"
start_v --audit-segment-bytes 8192
lazy_start
ok $? "closed segments swapped: the record still matches audit.jsonl"
events 1 swapped
wait_for 20 logged swapped
ok $? "... the folder is served"
like "$(cat "$T/sbxd.log")" "audit log resumed at its recorded tail" "... its first event resumes the log"
stop_daemon
! verify
ok $? "... and \`sbx audit verify\` fails"
like "$(cat "$T/verify.out")" "audit.00000[12].jsonl" "... naming the swapped segments"
done_testing
