#!/usr/bin/env bash
# `sbx audit export` (an evidence bundle), `audit verify --evidence` and
# `audit show --json` stream the log: their peak memory, read from
# outside (/usr/bin/time -v), stays far below the size of a log of about
# 48 MB that sbxd wrote for real. Before, export and verify --evidence
# read the whole log (or bundle) into memory, and show --json held every
# record.
. "$(dirname "$0")/lib.sh"

[ -x /usr/bin/time ] || skip_all "no /usr/bin/time (GNU time) to read the peak RSS"
SB="$FOLDER/.sandbox"
init_folder
start_daemon
stop_daemon
# 800 PostToolUse events of about 60 kB each, dropped into the agent's
# drop box while sbxd is stopped; its start-up scan writes them to the log.
python3 - "$SB/queue/events" <<'PY'
import json, os, sys
d = sys.argv[1]
for i in range(800):
    words = " ".join("w%05d" % ((i * 7919 + k) % 100000) for k in range(8500))
    doc = {"v": 1, "kind": "post_tool_use", "agent": "claude-code", "session_id": "big",
           "tool": "Bash", "command": "echo " + words, "exit_code": 0, "time": 1764400000 + i}
    name = "%016x.json" % (0xb16000000000 + i)
    with open(os.path.join(d, ".tmp"), "w") as f:
        json.dump(doc, f)
    os.rename(os.path.join(d, ".tmp"), os.path.join(d, name))
PY
start_daemon
empty() { [ -z "$(ls "$SB/queue/events")" ]; }
wait_for 120 empty
ok $? "sbxd takes in the 800 events"
stop_daemon
bytes=$(cat "$SB"/audit*.jsonl | wc -c)
[ "$bytes" -gt 40000000 ]
ok $? "the log holds more than 40 MB ($bytes bytes in $(ls "$SB"/audit*.jsonl | wc -l) segments)"
records=$(cat "$SB"/audit*.jsonl | wc -l)

peak() {	# peak OUT CMD...: runs CMD, prints its peak RSS in kB
	local out=$1
	shift
	/usr/bin/time -v -o "$T/time.txt" "$@" >"$out" 2>"$out.err"
	echo $? >"$out.rc"
	sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/time.txt"
}
# Under ASan (make asan) the allocator's quarantine and shadow make the
# peak RSS say nothing about the log: those checks are skipped there.
asan=0
ldd "$SBX" 2>/dev/null | grep -q libasan && asan=1
mem_ok() {	# mem_ok KB LIMIT DESCRIPTION
	if [ "$asan" = 1 ]; then
		_n=$((_n + 1))
		echo "ok $_n # SKIP peak RSS under ASan: $3"
		return
	fi
	[ -n "$1" ] && [ "$1" -lt "$2" ]
	ok $? "$3"
}
limit=$((bytes / 1024 / 4))     # a quarter of the log, in kB
[ "$limit" -gt 16384 ] && limit=16384
# Reading the folder, verify and show map one segment (16 MiB at most)
# at a time: that is in their RSS, the rest of the log is not.
seglimit=$((16384 + 8192))

kb=$(peak "$T/export" "$SBX" -C "$FOLDER" audit export --evidence "$T/bundle")
is "$(cat "$T/export.rc")" 0 "audit export --evidence succeeds"
[ "$(stat -c %s "$T/bundle")" -gt "$bytes" ]
ok $? "the bundle holds the whole log"
mem_ok "$kb" "$limit" "audit export --evidence peaks at $kb kB, under $limit kB (the log is $((bytes / 1024)) kB)"

kb=$(peak "$T/verify" env SBX_CONFIG_DIR="$T/elsewhere" "$SBX" audit verify --evidence "$T/bundle" \
	--key "$(cat "$T/config/daemon.pub" 2>/dev/null || echo none)")
like "$(cat "$T/verify")" "audit log OK: $records records" "the bundle verifies, every record"
mem_ok "$kb" "$limit" "audit verify --evidence peaks at $kb kB, under $limit kB"

kb=$(peak "$T/show" "$SBX" -C "$FOLDER" audit show --json)
is "$(jq length "$T/show")" "$records" "audit show --json prints every record as one array"
mem_ok "$kb" "$seglimit" "audit show --json peaks at $kb kB, under $seglimit kB (one segment and 8 MB)"

kb=$(peak "$T/verify2" "$SBX" -C "$FOLDER" audit verify)
like "$(cat "$T/verify2")" "audit log OK: $records records" "the folder's log verifies"
mem_ok "$kb" "$seglimit" "audit verify peaks at $kb kB, under $seglimit kB"

# A bundle cut short, or with a segment longer than the file, is refused.
head -c $((bytes / 2)) "$T/bundle" >"$T/cut"
SBX_CONFIG_DIR="$T/elsewhere" "$SBX" audit verify --evidence "$T/cut" >"$T/cut.out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "not a well-formed sbx evidence bundle" "$T/cut.out"
ok $? "a bundle cut in half is refused as not well-formed"
# The export of a log sbxd is appending to ends at a whole record.
start_daemon
for i in $(seq 20); do
	jq -cn --arg i "$i" '{v: 1, kind: "post_tool_use", agent: "claude-code",
	  session_id: "live", tool: "Bash", command: ("echo " + $i), exit_code: 0}' \
	  >"$SB/queue/events/.t" && mv "$SB/queue/events/.t" "$SB/queue/events/$(printf '%016x' $((0xc0000 + i))).json"
done &
wp=$!
"$SBX" -C "$FOLDER" audit export --evidence "$T/live" >/dev/null
ok $? "audit export while sbxd writes"
wait "$wp"
stop_daemon
SBX_CONFIG_DIR="$T/elsewhere" "$SBX" audit verify --evidence "$T/live" >"$T/live.out" 2>&1
like "$(cat "$T/live.out")" "audit log OK" "and that bundle verifies (whole records only)"
done_testing
