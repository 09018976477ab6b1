#!/usr/bin/env bash
# run.sh - sbx with the real Codex CLI (`make test-agents`).
#
# Installs @openai/codex from npm into a cache outside the repository if
# it is missing, prepares a folder with `sbx init --codex` and nothing
# else (no hand edits: the trust records in CODEX_HOME/config.toml are
# sbx's), and runs `codex exec` against fake-responses.mjs, a scripted
# stand-in for the OpenAI Responses API on 127.0.0.1, with sbxd running
# and a scripted approver approving whatever is pending. The stand-in's
# scripted model makes six tool calls:
#   1. exec_command `ls`                       safe: runs inside the agent
#   2. exec_command `git push origin main`     escalated, approved, run by sbxd
#   3. exec_command `touch ...; echo >> .sandbox/policy.json`   denied
#   4. exec_command `echo {} > .codex/hooks.json`   denied (self-protection)
#   5. exec_command `python3 -i` (tty)         escalated: a prompt reading stdin
#   6. write_stdin into a session               no hook sees it; there is none
# and the test reads what the model received (the stand-in records every
# request). Then `sbx doctor` must be green. Prints TAP.
#
# Environment:
#   SBX_BIN               directory of sbx, sbx-hook, sbxd (set by make)
#   SBX_CODEX             use this codex executable instead of the cache
#   SBX_CODEX_CACHE       the npm prefix it is installed into (default
#                         ${XDG_CACHE_HOME:-$HOME/.cache}/sbx-test-npm/codex)
#   SBX_CODEX_VERSION     install this version (default: latest, once)
#   SBX_KEEP=1            keep the temporary folder for a look afterwards
#
# When the npm registry does not answer (and no codex is installed), it
# prints "1..0 # SKIP" with the reason and exits 0.
#
# Observed with codex-cli 0.171.0 (what the assertions rely on):
# - `codex exec` sends POST /v1/responses (stream: true) to the provider's
#   base_url, one per turn, offering the tools exec_command and write_stdin
#   (among others); a tool result comes back as a function_call_output
#   input item of the next request;
# - it runs .codex/hooks.json only with [projects."DIR"] trust_level =
#   "trusted" and [hooks.state."DIR/.codex/hooks.json:pre_tool_use:0:0"]
#   trusted_hash = sha256 of the hook's declaration; without them, or with
#   a stale hash, it skips the hook without a word;
# - the PreToolUse payload names exec_command "Bash" with the raw
#   tool_input.command; a deny reaches the model as
#   "Command blocked by PreToolUse hook: REASON. Command: CMD".
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

for tool in node npm jq git python3; do
	command -v "$tool" >/dev/null || skip_all "test-agents needs $tool"
done

# --- The real client, installed once into a cache outside the repo ------
CACHE=${SBX_CODEX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sbx-test-npm/codex}
installed_version() {
	jq -r .version "$CACHE/node_modules/@openai/codex/package.json" 2>/dev/null
}
if [ -n "${SBX_CODEX:-}" ]; then
	CODEX=$SBX_CODEX
else
	CODEX="$CACHE/node_modules/.bin/codex"
	want=${SBX_CODEX_VERSION:-}
	if [ ! -x "$CODEX" ] || { [ -n "$want" ] && [ "$(installed_version)" != "$want" ]; }; then
		timeout 30 npm ping >"$T/npm-ping.log" 2>&1 ||
			skip_all "the npm registry does not answer (npm ping failed); cannot install @openai/codex"
		mkdir -p "$CACHE" || bail "cannot create $CACHE"
		echo "# installing @openai/codex@${want:-latest} into $CACHE (npm)"
		if ! flock "$CACHE/.lock" timeout 600 npm install --prefix "$CACHE" \
			--no-audit --no-fund --loglevel=error \
			"@openai/codex@${want:-latest}" >"$T/npm.log" 2>&1; then
			diag <"$T/npm.log"
			bail "npm install @openai/codex failed (see above)"
		fi
	fi
fi
[ -x "$CODEX" ] || bail "no codex executable at $CODEX"
# Even --version writes into CODEX_HOME: keep it in the test's.
mkdir -p "$T/home" "$CODEX_HOME"
CODEX_VERSION=$(HOME="$T/home" CODEX_HOME="$CODEX_HOME" "$CODEX" --version 2>/dev/null | head -1)
echo "# Codex: ${CODEX_VERSION:-unknown} ($CODEX)"

# --- The folder: a git repo with a local bare remote, sbx init --codex ---
git init -q --bare "$T/remote.git"
git -C "$FOLDER" init -q -b main
git -C "$FOLDER" -c user.name=sbx-test -c user.email=sbx-test@example.invalid \
	commit -q --allow-empty -m "first commit"
git -C "$FOLDER" remote add origin "$T/remote.git"
MARKER="marker-$$-$RANDOM.txt"
echo "only ls shows this name" >"$FOLDER/$MARKER"
"$SBX" init --codex "$FOLDER" >"$T/init.out" 2>&1
ok $? "sbx init --codex prepares the folder, registers the hook and trusts it"
[ -s "$T/init.out" ] && diag <"$T/init.out" | grep -i codex
HOOKS="$FOLDER/.codex/hooks.json"
cp "$HOOKS" "$T/hooks.before"
is "$(python3 -c 'import sys, tomllib; print(sorted(tomllib.load(open(sys.argv[1], "rb"))))' \
	"$CODEX_HOME/config.toml" 2>&1)" "['hooks', 'projects']" \
	"Codex's config.toml holds only what sbx init wrote (trust records)"
set_limits '{"hook_wait_seconds": 60}'
cp "$FOLDER/.sandbox/policy.json" "$T/policy.before"

start_daemon
ok $? "sbxd starts and serves the folder"

# The scripted approver: approves whatever is pending, logs what it did.
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

# --- The stand-in for the model API -----------------------------------------
jq -n --arg t "$T" '[
  {name: "exec_command", arguments: {cmd: "ls"}},
  {name: "exec_command", arguments: {cmd: "git push origin main"}},
  {name: "exec_command", arguments: {cmd: ("touch " + $t + "/denied-ran; echo pwned >> .sandbox/policy.json")}},
  {name: "exec_command", arguments: {cmd: "echo {} > .codex/hooks.json"}},
  {name: "exec_command", arguments: {cmd: "python3 -i", tty: true, yield_time_ms: 1000}},
  {name: "write_stdin", arguments: {session_id: 1, chars: ("open(\"" + $t + "/stdin-ran\", \"w\")\n")}}
]' >"$T/script.json"
REQ="$T/requests.jsonl"
: >"$REQ"
node "$HERE/fake-responses.mjs" "$T/script.json" "$REQ" "$T/port" >/dev/null 2>"$T/fake-api.err" &
FAKE_PID=$!
wait_for 10 test -s "$T/port" || { diag <"$T/fake-api.err"; bail "the fake API did not start"; }
PORT=$(cat "$T/port")
echo "# fake Responses API on 127.0.0.1:$PORT"

# --- codex exec ------------------------------------------------------------------
# The model provider comes from -c overrides, so config.toml stays sbx's.
mkdir -p "$T/home"
t0=$(date +%s%N)
(cd "$FOLDER" && env -i PATH="$PATH" HOME="$T/home" TMPDIR="${TMPDIR:-/tmp}" \
	LANG=C.UTF-8 TERM=dumb SBX_CONFIG_DIR="$SBX_CONFIG_DIR" CODEX_HOME="$CODEX_HOME" \
	SBX_FAKE_KEY=sk-sbx-test-dummy NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
	timeout 240 "$CODEX" exec --skip-git-repo-check -s danger-full-access \
		-c model=gpt-5 -c model_provider=sbxfake \
		-c model_providers.sbxfake.name=sbxfake \
		-c "model_providers.sbxfake.base_url=\"http://127.0.0.1:$PORT/v1\"" \
		-c model_providers.sbxfake.wire_api=responses \
		-c model_providers.sbxfake.env_key=SBX_FAKE_KEY \
		-c check_for_update_on_startup=false -c analytics.enabled=false \
		"Run the scripted steps." \
	>"$T/codex.out" 2>"$T/codex.err" </dev/null)
rc=$?
CODEX_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
is "$rc" 0 "codex exec exits 0 (took ${CODEX_MS} ms)"
[ "$rc" -eq 0 ] || tail -20 "$T/codex.err" | diag
echo "# the stand-in answered $(wc -l <"$REQ" | tr -d ' ') request(s):" \
	"$(jq -r '"\(.method) \(.url | split("?")[0])"' "$REQ" | sort | uniq -c | tr -s ' \n' ' ')"

# What the model received: the last request holds the whole conversation.
LAST=$(jq -c 'select(.body.tools? and any(.body.tools[]; .name == "exec_command"))' "$REQ" | tail -1)
[ -n "$LAST" ] || LAST='{}'
output() {	# output CALL_ID: the function_call_output the model got
	printf '%s' "$LAST" | jq -r --arg id "$1" '[.body.input[]? | select(.type == "function_call_output"
	  and .call_id == $id) | .output | if type == "string" then . else tostring end][0] // ""'
}
is "$(printf '%s' "$LAST" | jq -r '[.body.input[]? | select(.type == "function_call") | .call_id] | join(",")')" \
	"call_sbx_01,call_sbx_02,call_sbx_03,call_sbx_04,call_sbx_05,call_sbx_06" \
	"the model's six scripted calls all went through the loop"

# 1. A safe command runs inside the agent.
r=$(output call_sbx_01)
like "$r" "$MARKER" "ls ran inside the agent: its real output is the tool result"
unlike "$r" "PreToolUse|sbx:" "and sbx did not answer for it"

# 2. An escalated command: approved, executed by sbxd, output to the model.
r=$(output call_sbx_02)
like "$r" "^Command blocked by PreToolUse hook: it was blocked here only because sbx ALREADY RAN IT for you, outside the agent: approved by [^ ]+ and ALREADY EXECUTED outside the agent as request [0-9a-f]{16} \\(exit status 0" \
	"git push: Codex's wrapper reads \"blocked here only because sbx ALREADY RAN IT\""
like "$r" "To $T/remote.git" "the tool result holds git push's real output (destination)"
like "$r" "\\[new branch\\] +main -> main" "and its real output (the branch it pushed)"
like "$r" "--- end of the result of sbx request [0-9a-f]{16} ---\\. Command: git push origin main$" \
	"the output ends with sbx's own line before Codex's \". Command: ...\""
id=$(printf '%s' "$r" | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
show=$("$SBX" -C "$FOLDER" show "${id:-none}" --json 2>/dev/null)
is "$(printf '%s' "$show" | jq -r '"\(.status) \(.result.exit_code) \(.agent)"')" \
	"done 0 codex" "sbx show: request ${id:-?} from codex, done by sbxd, exit 0"
sid=$(grep -oE 'session id: [0-9a-f-]+' "$T/codex.err" | head -1 | cut -d' ' -f3)
is "$(printf '%s' "$show" | jq -r .session)" "${sid:-no session id printed}" \
	"the request came from this Codex session"
is "$(git -C "$T/remote.git" rev-parse main 2>/dev/null)" "$(git -C "$FOLDER" rev-parse HEAD)" \
	"the remote really has the commit"

# 3. A denied command never runs.
r=$(output call_sbx_03)
like "$r" "^Command blocked by PreToolUse hook: sbx: denied by policy" "the denied command: the model gets sbx's reason"
! test -e "$T/denied-ran"
ok $? "and no part of it ran (no $T/denied-ran)"
cmp -s "$T/policy.before" "$FOLDER/.sandbox/policy.json"
ok $? ".sandbox/policy.json is unchanged"

# 4. A write to the hook configuration is denied.
r=$(output call_sbx_04)
like "$r" "^Command blocked by PreToolUse hook: sbx: denied by policy \\(self-protection\\).*\\.codex/hooks\\.json" \
	"echo > .codex/hooks.json: the model gets sbx's self-protection reason"
cmp -s "$T/hooks.before" "$HOOKS"
ok $? ".codex/hooks.json is unchanged"

# 5-6. An interactive interpreter is escalated (write_stdin would reach it
# unchecked); approved, sbxd runs it with stdin from /dev/null, so no
# session stays open for write_stdin.
r=$(output call_sbx_05)
like "$r" "ALREADY RAN IT.*as request [0-9a-f]{16} \\(exit status 0" "python3 -i: escalated and run by sbxd, not in the agent"
is "$(cut -f2 "$T/approved" 2>/dev/null | tr '\n' ';')" "git push origin main;python3 -i;" \
	"the approver was asked exactly twice: git push and python3 -i"
r=$(output call_sbx_06)
unlike "$r" "^Command blocked" "write_stdin passes no hook (as documented)"
! test -e "$T/stdin-ran"
ok $? "and reached no interpreter: there was no session to write to"
echo "# write_stdin answer: $(printf '%.200s' "$r" | tr '\n' ' ')"

# --- sbx doctor, from outside ------------------------------------------------------
"$SBX" -C "$FOLDER" doctor >"$T/doctor.out" 2>&1
ok $? "sbx doctor is green (exit 0)"
like "$(cat "$T/doctor.out")" "^ok +Codex: .codex/hooks.json runs sbx-hook codex" "doctor: the Codex hook is registered and trusted"
[ "$_failed" -eq 0 ] || diag <"$T/doctor.out"

# --- Summary -------------------------------------------------------------------
if [ "$_failed" -ne 0 ]; then
	echo "# --- for a look: the model's tool results, codex's stderr, sbxd"
	printf '%s' "$LAST" | jq -c '.body.input[]? | select(.type == "function_call_output")' 2>/dev/null |
		cut -c1-300 | diag
	tail -20 "$T/codex.err" | diag
	tail -20 "$T/sbxd.log" | diag
	[ "${SBX_KEEP:-}" ] || echo "# run with SBX_KEEP=1 to keep $T"
fi
echo "# test-agents: $_n tests, $_failed failed, with ${CODEX_VERSION:-codex} in" \
	"$(( $(date +%s) - START ))s (codex exec: ${CODEX_MS} ms)"
[ "$_failed" -eq 0 ] && echo "# test-agents: PASS" || echo "# test-agents: FAIL"
done_testing
