#!/usr/bin/env bash
# The folder registry (CONFIG/folders) is read in one read by `sbxd --all`
# (at start and on SIGHUP) and `sbx watch --all`, and every line is
# accounted for: a line that is not an absolute path, or too long to be
# one, is said with its line number (sbxd --all refuses to start; on
# SIGHUP it keeps serving what it serves and says why), never dropped
# silently. Folders recorded between two SIGHUPs are served at the next.
. "$(dirname "$0")/lib.sh"

init_folder
REG="$SBX_CONFIG_DIR/folders"
cp "$REG" "$T/folders.good"

# 1. A line too long to be a path: sbxd --all names it instead of
# serving the rest as if it were not there.
{ cat "$T/folders.good"; printf '/%05000d\n' 0; } >"$REG"
out=$(timeout 20 "$SBXD" --all 2>&1)
rc=$?
is "$rc" 2 "sbxd --all refuses a registry with a line too long for a path (exit 2)"
like "$out" "folders line 2 is too long for a path" "and names the line"
out=$(timeout 5 "$SBX" watch --all --plain </dev/null 2>&1)
like "$out" "folders line 2 is too long for a path" "sbx watch --all says the same"

# 2. A line that is not an absolute path.
{ cat "$T/folders.good"; echo "relative/dir"; } >"$REG"
out=$(timeout 20 "$SBXD" --all 2>&1)
is "$?" 2 "sbxd --all refuses a line that is not an absolute path"
like "$out" "folders line 2 is not an absolute path" "and names it"

# 3. On SIGHUP: said, and the folders served go on being served.
cp "$T/folders.good" "$REG"
: >"$T/sbxd.log"
"$SBXD" --all 2>>"$T/sbxd.log" &
DPID=$!
wait_for 10 grep -q serving "$T/sbxd.log"
ok $? "sbxd --all serves the recorded folder"
echo "not/absolute" >>"$REG"
kill -HUP "$DPID"
wait_for 10 grep -q "SIGHUP: .*line 2 is not an absolute path.*still serving 1" "$T/sbxd.log"
ok $? "a bad registry on SIGHUP is said, and sbxd keeps serving"
kill -0 "$DPID"
ok $? "sbxd still runs"

# 4. Folders recorded meanwhile are served at the next SIGHUP, all of them.
cp "$T/folders.good" "$REG"
for i in 1 2 3 4 5 6; do
	mkdir -p "$T/f$i"
	"$SBX" init "$T/f$i" >/dev/null 2>&1
	kill -HUP "$DPID"
done
kill -HUP "$DPID"
all_served() { [ "$(grep -c 'added on SIGHUP' "$T/sbxd.log")" -eq 6 ]; }
wait_for 20 all_served
ok $? "every folder recorded between SIGHUPs is served"
like "$(grep 'SIGHUP: reloaded' "$T/sbxd.log" | tail -1)" "7 recorded, [0-9] added, serving 7" \
	"the last reload sees all 7, serving 7"
done_testing
