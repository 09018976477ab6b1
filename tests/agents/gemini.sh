#!/usr/bin/env bash
# gemini.sh - sbx with the real Gemini CLI (second half of `make test-agents`).
#
# Installs @google/gemini-cli from npm into a cache outside the repository
# if it is missing, prepares a folder with `sbx init --gemini` and nothing
# else (the hook in .gemini/settings.json, the folder in Gemini's
# trustedFolders.json), and runs `gemini -p ... --yolo` against
# fake-gemini.mjs, a scripted stand-in for the Gemini API on 127.0.0.1
# (GOOGLE_GEMINI_BASE_URL), with sbxd running and a scripted approver. The
# scripted model makes four tool calls:
#   1. run_shell_command `ls -la`               safe: runs inside the agent
#   2. run_shell_command `git push origin main` escalated, approved, run by sbxd
#   3. run_shell_command `touch ...; echo >> .sandbox/policy.json`   denied
#   4. write_file .gemini/settings.json         denied (self-protection)
# and the test reads what the model received. Prints TAP; SKIPs when the
# npm registry does not answer and no gemini is installed.
#
# Environment: SBX_BIN; SBX_GEMINI (a gemini executable), SBX_GEMINI_CACHE
# (default ${XDG_CACHE_HOME:-$HOME/.cache}/sbx-test-npm/gemini),
# SBX_GEMINI_VERSION, SBX_KEEP=1.
#
# Observed with Gemini CLI 0.61.0 (what the assertions rely on):
# - with GEMINI_API_KEY, auth type gemini-api-key (user settings) and
#   GOOGLE_GEMINI_BASE_URL it sends POST /v1beta/models/M:generateContent
#   (a routing classifier asking for JSON) and
#   M:streamGenerateContent?alt=sse (the agent loop, tools offered);
# - folder trust is on by default: in an untrusted folder project hooks
#   are not run; with the folder in trustedFolders.json they are, after a
#   warning naming them;
# - a BeforeTool deny reaches the model as the functionResponse
#   {"error": "Tool execution blocked: REASON"}.
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$HERE/../integration/lib.sh"

START=$(date +%s)
FAKE_PID=""
APPR_PID=""
# shellcheck disable=SC2317 # called by the trap
agents_cleanup() {
	[ -n "$APPR_PID" ] && kill "$APPR_PID" 2>/dev/null && wait "$APPR_PID" 2>/dev/null
	[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null
	[ "${SBX_KEEP:-}" ] && echo "# kept $T"
	cleanup
}
trap agents_cleanup EXIT
diag() { sed 's/^/#   /'; }
bail() { echo "Bail out! $*"; exit 1; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }

for tool in node npm jq git; do
	command -v "$tool" >/dev/null || skip_all "test-agents needs $tool"
done

CACHE=${SBX_GEMINI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sbx-test-npm/gemini}
installed_version() {
	jq -r .version "$CACHE/node_modules/@google/gemini-cli/package.json" 2>/dev/null
}
if [ -n "${SBX_GEMINI:-}" ]; then
	GEMINI=$SBX_GEMINI
else
	GEMINI="$CACHE/node_modules/.bin/gemini"
	want=${SBX_GEMINI_VERSION:-}
	if [ ! -x "$GEMINI" ] || { [ -n "$want" ] && [ "$(installed_version)" != "$want" ]; }; then
		timeout 30 npm ping >"$T/npm-ping.log" 2>&1 ||
			skip_all "the npm registry does not answer (npm ping failed); cannot install @google/gemini-cli"
		mkdir -p "$CACHE" || bail "cannot create $CACHE"
		echo "# installing @google/gemini-cli@${want:-latest} into $CACHE (npm)"
		if ! flock "$CACHE/.lock" timeout 600 npm install --prefix "$CACHE" \
			--no-audit --no-fund --loglevel=error \
			"@google/gemini-cli@${want:-latest}" >"$T/npm.log" 2>&1; then
			diag <"$T/npm.log"
			bail "npm install @google/gemini-cli failed (see above)"
		fi
	fi
fi
[ -x "$GEMINI" ] || bail "no gemini executable at $GEMINI"
# Even --version writes into its home: keep it in the test's.
mkdir -p "$T/home"
GEMINI_VERSION=$(HOME="$T/home" GEMINI_CLI_HOME="$GEMINI_CLI_HOME" "$GEMINI" --version 2>/dev/null | head -1)
echo "# Gemini CLI: ${GEMINI_VERSION:-unknown} ($GEMINI)"

# --- The folder: a git repo with a local bare remote, sbx init --gemini ---
git init -q --bare "$T/remote.git"
git -C "$FOLDER" init -q -b main
git -C "$FOLDER" -c user.name=sbx-test -c user.email=sbx-test@example.invalid \
	commit -q --allow-empty -m "first commit"
git -C "$FOLDER" remote add origin "$T/remote.git"
MARKER="marker-$$-$RANDOM.txt"
echo "only ls shows this name" >"$FOLDER/$MARKER"
"$SBX" init --gemini "$FOLDER" >"$T/init.out" 2>&1
ok $? "sbx init --gemini registers the hook and trusts the folder"
SETTINGS="$FOLDER/.gemini/settings.json"
cp "$SETTINGS" "$T/settings.before"
set_limits '{"hook_wait_seconds": 60}'
cp "$FOLDER/.sandbox/policy.json" "$T/policy.before"
# The harness's own choice of auth (user settings, not the folder's).
jq -n '{security: {auth: {selectedType: "gemini-api-key"}}}' >"$GEMINI_CLI_HOME/.gemini/settings.json"

start_daemon
ok $? "sbxd starts and serves the folder"
(
	while :; do
		"$SBX" -C "$FOLDER" pending --json 2>/dev/null | jq -r '.[] | [.id, .command] | @tsv' |
		while IFS=$(printf '\t') read -r id cmd; do
			"$SBX" -C "$FOLDER" approve "$id" >/dev/null 2>>"$T/approver.err" &&
				printf '%s\t%s\n' "$id" "$cmd" >>"$T/approved"
		done
		sleep 0.2
	done
) &
APPR_PID=$!

jq -n --arg t "$T" --arg s "$SETTINGS" '[
  {name: "run_shell_command", args: {command: "ls -la"}},
  {name: "run_shell_command", args: {command: "git push origin main"}},
  {name: "run_shell_command", args: {command: ("touch " + $t + "/denied-ran; echo pwned >> .sandbox/policy.json")}},
  {name: "write_file", args: {file_path: $s, content: "{\"hooks\": {}}\n"}}
]' >"$T/script.json"
REQ="$T/requests.jsonl"
: >"$REQ"
node "$HERE/fake-gemini.mjs" "$T/script.json" "$REQ" "$T/port" >/dev/null 2>"$T/fake-api.err" &
FAKE_PID=$!
wait_for 10 test -s "$T/port" || { diag <"$T/fake-api.err"; bail "the fake API did not start"; }
PORT=$(cat "$T/port")
echo "# fake Gemini API on 127.0.0.1:$PORT"

mkdir -p "$T/home"
t0=$(date +%s%N)
(cd "$FOLDER" && env -i PATH="$PATH" HOME="$T/home" TMPDIR="${TMPDIR:-/tmp}" \
	LANG=C.UTF-8 TERM=dumb SBX_CONFIG_DIR="$SBX_CONFIG_DIR" GEMINI_CLI_HOME="$GEMINI_CLI_HOME" \
	GEMINI_API_KEY=sbx-test-dummy GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$PORT" \
	NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
	timeout 240 "$GEMINI" -p "Run the scripted steps." --yolo \
	>"$T/gemini.out" 2>"$T/gemini.err" </dev/null)
rc=$?
GEMINI_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
is "$rc" 0 "gemini -p exits 0 (took ${GEMINI_MS} ms)"
[ "$rc" -eq 0 ] || tail -20 "$T/gemini.err" | diag
echo "# the stand-in answered $(wc -l <"$REQ" | tr -d ' ') request(s):" \
	"$(jq -r '"\(.method) \(.url | split("?")[0] | sub(".*/"; ""))"' "$REQ" | sort | uniq -c | tr -s ' \n' ' ')"

LAST=$(jq -c 'select(.body.tools? and (.body.tools | length > 0))' "$REQ" | tail -1)
[ -n "$LAST" ] || LAST='{}'
response() {	# response N: the Nth functionResponse the model got, as text
	printf '%s' "$LAST" | jq -r --argjson n "$1" '[.body.contents[]? | .parts[]? | select(.functionResponse)
	  | .functionResponse.response | (.error // .output // tostring)][$n - 1] // ""'
}
is "$(printf '%s' "$LAST" | jq -r '[.body.contents[]? | .parts[]? | select(.functionCall) | .functionCall.name] | join(",")')" \
	"run_shell_command,run_shell_command,run_shell_command,write_file" \
	"the model's four scripted calls all went through the loop"
like "$(cat "$T/gemini.err")" "project-level hooks have been detected.*" "Gemini names the project hook it runs"

r=$(response 1)
like "$r" "$MARKER" "ls ran inside the agent: its real output is the tool result"
unlike "$r" "blocked|sbx:" "and sbx did not answer for it"

r=$(response 2)
like "$r" "^Tool execution blocked: it was blocked here only because sbx ALREADY RAN IT for you, outside the agent: approved by [^ ]+ and ALREADY EXECUTED outside the agent as request [0-9a-f]{16} \\(exit status 0" \
	"git push: Gemini's wrapper reads \"blocked here only because sbx ALREADY RAN IT\""
like "$r" "To $T/remote.git" "the tool result holds git push's real output"
like "$r" "\\[new branch\\] +main -> main" "and the branch it pushed"
id=$(printf '%s' "$r" | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
is "$("$SBX" -C "$FOLDER" show "${id:-none}" --json 2>/dev/null | jq -r '"\(.status) \(.result.exit_code) \(.agent)"')" \
	"done 0 gemini" "sbx show: request ${id:-?} from gemini, done by sbxd, exit 0"
is "$(cut -f2 "$T/approved" 2>/dev/null | tr '\n' ';')" "git push origin main;" \
	"the approver was asked exactly once, for git push origin main"
is "$(git -C "$T/remote.git" rev-parse main 2>/dev/null)" "$(git -C "$FOLDER" rev-parse HEAD)" \
	"the remote really has the commit"

r=$(response 3)
like "$r" "^Tool execution blocked: sbx: denied by policy" "the denied command: the model gets sbx's reason"
! test -e "$T/denied-ran"
ok $? "and no part of it ran"
cmp -s "$T/policy.before" "$FOLDER/.sandbox/policy.json"
ok $? ".sandbox/policy.json is unchanged"

r=$(response 4)
like "$r" "^Tool execution blocked: sbx: denied by policy \\(self-protection\\).*\\.gemini/settings\\.json" \
	"write_file .gemini/settings.json: the model gets sbx's self-protection reason"
cmp -s "$T/settings.before" "$SETTINGS"
ok $? ".gemini/settings.json is unchanged"

if [ "$_failed" -ne 0 ]; then
	echo "# --- for a look: the model's tool results, gemini's stderr, sbxd"
	printf '%s' "$LAST" | jq -c '.body.contents[]? | .parts[]? | select(.functionResponse)' 2>/dev/null |
		cut -c1-300 | diag
	tail -20 "$T/gemini.err" | diag
	tail -20 "$T/sbxd.log" | diag
	[ "${SBX_KEEP:-}" ] || echo "# run with SBX_KEEP=1 to keep $T"
fi
echo "# test-agents-gemini: $_n tests, $_failed failed, with Gemini CLI ${GEMINI_VERSION:-?} in" \
	"$(( $(date +%s) - START ))s (gemini -p: ${GEMINI_MS} ms)"
[ "$_failed" -eq 0 ] && echo "# test-agents-gemini: PASS" || echo "# test-agents-gemini: FAIL"
done_testing
