#!/usr/bin/env bash
# sbxd verifies the folder's policy once per change of what it was
# verified from (daemon/polcache.h), not for every request. An attacker
# of the same user changes it between two requests while sbxd holds it:
# edited in place (same size, its mtime put back), another file of the
# same size and mtime renamed over it, the acceptance swapped for an
# older validly signed one (rollback), the approver's key file edited in
# place. Each time the next request is judged by a policy verified
# again: refused (rejected, "the policy is invalid"), never by the one
# kept. The requests are written straight into queue/new (reqgen), as a
# hostile agent would, so that only sbxd's check stands in the way.
. "$(dirname "$0")/lib.sh"

REQGEN="$TOOLS/reqgen"
[ -x "$REQGEN" ] || { echo "Bail out! $REQGEN is missing (make test builds it)"; exit 1; }
P="$FOLDER/.sandbox/policy.json"
A="$FOLDER/.sandbox/policy.accepted"
row() { sqlite3 "$FOLDER/.sandbox/state.db" "SELECT status || ' ' || coalesce(deny_reason, '') FROM requests WHERE command = 'true # $1-0'"; }
send() {	# send NAME: one request, and its row once recorded
	"$REQGEN" "$FOLDER" 1 "$1" >/dev/null && "$REQGEN" --release "$FOLDER" >/dev/null
	wait_for 10 sh -c "[ -n \"\$(sqlite3 '$FOLDER/.sandbox/state.db' \"SELECT id FROM requests WHERE command = 'true # $1-0'\")\" ]"
	row "$1"
}
mtime_ns() { python3 -c 'import os,sys; print(os.stat(sys.argv[1]).st_mtime_ns)' "$1"; }
set_mtime() { python3 -c 'import os,sys; os.utime(sys.argv[1], ns=(int(sys.argv[2]), int(sys.argv[2])))' "$1" "$2"; }
poke() {	# poke FILE OFFSET BYTE: one byte changed in place, mtime put back
	local m
	m=$(mtime_ns "$1")
	python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); f.write(sys.argv[3].encode()); f.close()' "$1" "$2" "$3"
	set_mtime "$1" "$m"
}
settle() { sleep 1.2; }	# inputs older than PC_SETTLE_MS: the next verified policy is kept

init_folder
add_rule escalate 'Bash(true:*)'
start_daemon
settle
like "$(send warm)" "^pending" "a request under the accepted policy is pending (the policy is now kept)"
like "$(send kept)" "^pending" "and the next one too (the kept policy)"

# 1. policy.json edited in place: same size, mtime put back.
cp "$P" "$T/p.orig"
off=$(grep -bo '"version"' "$P" | head -1 | cut -d: -f1)
poke "$P" "$((off + 1))" V
is "$(stat -c %s "$P")" "$(stat -c %s "$T/p.orig")" "(the edit keeps the size)"
like "$(send inplace)" "^rejected the policy is invalid" "policy.json edited in place, size and mtime kept: the next request is refused"
poke "$P" "$((off + 1))" v
cmp -s "$P" "$T/p.orig"
ok $? "(the accepted bytes put back)"
like "$(send back)" "^pending" "the accepted bytes back: verified again, pending"
settle
like "$(send back2)" "^pending" "(and kept again)"

# 2. Another file of the same size and mtime renamed over it.
m=$(mtime_ns "$P")
sed 's/"version"/"Version"/' "$P" >"$T/p.swap"
set_mtime "$T/p.swap" "$m"
mv "$T/p.swap" "$P"
like "$(send swapped)" "^rejected the policy is invalid" "a same-size file with the same mtime renamed over policy.json: refused"
cp "$T/p.orig" "$P"
like "$(send restored)" "^pending" "(restored: pending)"

# 3. Rollback: the acceptance swapped for an older, validly signed one.
cp "$P" "$T/p.v1"
cp "$A" "$T/a.v1"
add_rule escalate 'Bash(echo:*)'
settle
like "$(send newer)" "^pending" "a newer acceptance: pending (and kept)"
like "$(send newer2)" "^pending" "(the kept policy)"
cp "$T/p.v1" "$P"
cp "$T/a.v1" "$A"
like "$(send rollback)" "^rejected the policy is invalid.*(rollback|before)" "the older policy and acceptance put back: refused as a rollback"
add_rule escalate 'Bash(printf:*)'
settle
like "$(send again)" "^pending" "accepted again: pending (and kept)"

# 4. The approver's key file edited in place (the key revoked by
# replacing it): the acceptance no longer verifies.
K="$SBX_CONFIG_DIR/approvers/$(jq -r .approver "$A").pub"
[ -f "$K" ]
ok $? "(the approver's key file: $K)"
c=$(head -c 1 "$K")
[ "$c" = 0 ] && n=1 || n=0
poke "$K" 0 "$n"
like "$(send revoked)" "^rejected the policy is invalid" "the approver's key edited in place: refused"

done_testing
