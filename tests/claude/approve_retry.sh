#!/usr/bin/env bash
# approve_retry.sh - approve-then-retry-once with the real Claude Code CLI
# (`make test-claude` runs it after run.sh; the same cache, stand-in and
# environment). The scripted model writes a file outside the project (sbx
# queues it and tells the model to retry once after approval), waits
# (sleep), retries the identical Write (allowed once: the file appears),
# and retries again (escalated again). Prints TAP.
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$HERE/../integration/lib.sh"

FAKE_PID=""
APPR_PID=""
# shellcheck disable=SC2317 # called by the trap
retry_cleanup() {
	[ -n "$APPR_PID" ] && kill "$APPR_PID" 2>/dev/null && wait "$APPR_PID" 2>/dev/null
	[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null
	cleanup
}
trap retry_cleanup EXIT
bail() { echo "Bail out! $*"; exit 1; }

CACHE=${SBX_CLAUDE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sbx-test-npm/claude-code}
CLAUDE=${SBX_CLAUDE:-$CACHE/node_modules/.bin/claude}
if [ ! -x "$CLAUDE" ] || ! command -v node >/dev/null; then
	echo "1..0 # SKIP no Claude Code CLI at $CLAUDE (run.sh installs it) or no node"
	exit 0
fi

"$SBX" init --claude "$FOLDER" >"$T/init.out" 2>&1
ok $? "sbx init --claude"
set_limits '{"hook_wait_seconds": 1}'
start_daemon
mkdir -p "$T/outside" "$T/tmp" "$T/home"
OUT="$T/outside/approved.txt"

# The human: approves the first Write, two seconds after it shows up (the
# hook has answered by then), and nothing else.
(
	while :; do
		id=$("$SBX" -C "$FOLDER" pending --json 2>/dev/null |
			jq -r '[.[] | select(.tool == "Write")][0].id // empty')
		if [ -n "$id" ]; then
			sleep 2
			"$SBX" -C "$FOLDER" approve "$id" >/dev/null 2>>"$T/approver.err" &&
				echo "$id" >"$T/approved"
			exit 0
		fi
		sleep 0.2
	done
) &
APPR_PID=$!

jq -n --arg f "$OUT" '[
  {name: "Write", input: {file_path: $f, content: "approved once\n"}},
  {name: "Bash",  input: {command: "sleep 5", description: "Wait for the human"}},
  {name: "Write", input: {file_path: $f, content: "approved once\n"}},
  {name: "Write", input: {file_path: $f, content: "approved once\n"}}
]' >"$T/script.json"
REQ="$T/requests.jsonl"
: >"$REQ"
node "$HERE/fake-api.mjs" "$T/script.json" "$REQ" "$T/port" 2>"$T/fake-api.err" &
FAKE_PID=$!
wait_for 10 test -s "$T/port" || bail "the fake API did not start"
PORT=$(cat "$T/port")

(cd "$FOLDER" && env -i PATH="$PATH" HOME="$T/home" TMPDIR="$T/tmp" \
	LANG=C.UTF-8 TERM=dumb SBX_CONFIG_DIR="$SBX_CONFIG_DIR" \
	ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=sk-ant-sbx-test-dummy \
	NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
	CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 \
	DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 IS_SANDBOX=1 \
	timeout 240 "$CLAUDE" -p "Run the scripted steps." \
		--permission-mode bypassPermissions --no-session-persistence \
		--output-format stream-json --verbose \
	>"$T/claude.jsonl" 2>"$T/claude.err")
is "$?" 0 "claude -p exits 0"

LAST=$(jq -c 'select(.body.tools? and any(.body.tools[]; .name == "Bash"))' "$REQ" | tail -1)
content() {
	printf '%s' "$LAST" | jq -r --arg id "$1" '[.body.messages[]? | select(.content | type == "array")
	  | .content[] | select(.type == "tool_result" and .tool_use_id == $id)][0] // {}
	  | if (.content | type) == "string" then .content
	    else ([.content[]? | .text? // empty] | join("\n")) end'
}
first=$(cat "$T/approved" 2>/dev/null)
r=$(content toolu_sbx_01)
like "$r" "pending as request $first" "1st Write: queued for a human, the model gets the request id"
like "$r" "repeat the identical call once" "and is told to retry once after approval"
is "$(cat "$OUT" 2>/dev/null)" "approved once" "3rd call (identical retry after approval): the file was written"
unlike "$(content toolu_sbx_03)" "sbx:" "and the model got the Write's own result"
r=$(content toolu_sbx_04)
like "$r" "pending as request [0-9a-f]{16}" "4th call (a second identical retry): escalated again"
unlike "$r" "request $first" "as a new request"
is "$("$SBX" -C "$FOLDER" pending --json | jq '[.[] | select(.tool == "Write")] | length')" 1 \
	"one Write waits for a human"

done_testing
