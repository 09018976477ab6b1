# idlelib.sh - for the tests of the audit tail in sbxd's idle records
# (t315-t319, daemon/idle.h, audit_open_resume in daemon/audit.h).

IDLE="$SBX_CONFIG_DIR/idle"
IDLEFORGE="$TOOLS/idleforge"
ALOG="$FOLDER/.sandbox/audit.jsonl"

# events N [TAG]: drops N valid agent events (post_tool_use, as sbx-hook
# post writes them) into queue/events, each by rename; their records grow
# the log.
events() {
	local i id now
	now=$(date +%s)000
	mkdir -p "$T/ev"
	for i in $(seq "$1"); do
		id=$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')
		printf '{"v":1,"kind":"post_tool_use","agent":"claude-code","session_id":"s","tool_use_id":"%s-%s","tool":"Bash","cwd":"%s","time":%s,"command":"echo %s padding padding padding padding padding padding","exit_code":0}\n' \
			"${2:-ev}" "$i" "$FOLDER" "$now" "$i" >"$T/ev/$id.json"
		mv "$T/ev/$id.json" "$FOLDER/.sandbox/queue/events/$id.json"
	done
}

# logged TAG: the events tagged TAG are in the log: the first one's record
# is there and queue/events is empty (sbxd removes each file once its
# record is written; a clean stop leaves a record only when it is empty).
logged() {
	[ -z "$(ls -A "$FOLDER/.sandbox/queue/events/")" ] &&
		grep -q "\"tool_use_id\":\"$1-1\"" "$FOLDER"/.sandbox/audit*.jsonl 2>/dev/null
}

# start_v [ARGS]: sbxd -v on the folder, its log in $T/sbxd.log.
start_v() {
	: >"$T/sbxd.log"
	"$SBXD" -v "$@" "$FOLDER" 2>>"$T/sbxd.log" &
	DPID=$!
	wait_for 20 grep -q "serving" "$T/sbxd.log"
}

# lazy_start: sbxd served the folder without opening it (its record matched).
lazy_start() { ! grep -q "opened in full" "$T/sbxd.log"; }

verify() { "$SBX" -C "$FOLDER" audit verify >"$T/verify.out" 2>&1; }
