#!/usr/bin/env bash
# run.sh - sbx with the real Claude Code CLI (`make test-claude`).
#
# Installs @anthropic-ai/claude-code from npm into a cache outside the
# repository if it is missing (no node, npm or registry: a SKIP line with
# the reason, never a pass), then runs `claude -p` in a folder prepared
# with `sbx init --claude`, against fake-api.mjs (a scripted stand-in for
# the model API on 127.0.0.1), with sbxd running and a scripted approver
# approving whatever is pending. The stand-in's scripted model makes three
# tool calls:
#   1. Bash `ls`                     safe: runs inside the agent
#   2. Bash `git push origin main`   escalated, approved, run by sbxd
#   3. Write .claude/settings.json   denied by sbx's self-protection
# and the test reads what the model received (the stand-in records every
# request) and what Claude Code reported about its hooks (stream-json with
# --include-hook-events). Then the same CLI runs inside `sbx jail`, against
# a second stand-in reached only through sbx-proxy (its 127.0.0.1:PORT in
# network.allowedDomains): a safe call (ls), an escalated call (git push,
# run by sbxd outside the jail) and project code that tries to read the
# approver key and add an approver, and fails. Prints TAP.
#
# Environment:
#   SBX_BIN               directory of sbx, sbx-hook, sbxd (set by make)
#   SBX_CLAUDE            use this claude executable instead of the cache
#   SBX_CLAUDE_CACHE      the npm prefix it is installed into (default
#                         ${XDG_CACHE_HOME:-$HOME/.cache}/sbx-test-npm/claude-code)
#   SBX_CLAUDE_VERSION    install this version (default: latest, once)
#   SBX_KEEP=1            keep the temporary folder for a look afterwards
#
# Nothing leaves the machine except the npm install: Claude Code gets a
# temporary HOME, a dummy API key, ANTHROPIC_BASE_URL pointing at the
# stand-in, and the variables that turn off its other traffic.
#
# Observed with Claude Code 2.1.332 (what the assertions rely on):
# - in print mode it sends only POST /v1/messages?beta=true, streaming, one
#   per turn (no count_tokens, no title or other side requests), and its
#   debug log shows no other endpoint with the variables set below;
# - a PreToolUse deny reason reaches the model as the tool_result content,
#   prefixed "PreToolUse:Bash hook error: ", with is_error true;
# - SessionStart additionalContext arrives as a role "system" message
#   "SessionStart hook additional context: ...";
# - a PostToolUse hook exiting 2 reaches the model as a role "system"
#   message "PostToolUse:Bash hook blocking error from command: ...";
# - --include-hook-events reports each hook run (hook_response with
#   hook_name, exit_code, outcome) in the stream-json output.
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$HERE/../integration/lib.sh"

START=$(date +%s)
FAKE_PID=""
FAKE2_PID=""
APPR_PID=""
# shellcheck disable=SC2317 # called by the trap
claude_cleanup() {
	[ -n "$APPR_PID" ] && kill "$APPR_PID" 2>/dev/null && wait "$APPR_PID" 2>/dev/null
	[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null
	[ -n "$FAKE2_PID" ] && kill "$FAKE2_PID" 2>/dev/null && wait "$FAKE2_PID" 2>/dev/null
	[ "${SBX_KEEP:-}" ] && echo "# kept $T"
	cleanup
}
trap claude_cleanup EXIT
diag() { sed 's/^/#   /'; }
bail() { echo "Bail out! $*"; exit 1; }

for tool in jq git; do
	command -v "$tool" >/dev/null || bail "test-claude needs $tool"
done
# What the machine lacks (node, npm, the registry) is a SKIP that says so.
NOT_TESTED="(sh contrib/install-deps.sh claude installs node and npm): the real Claude Code CLI was NOT tested"
command -v node >/dev/null || skip_all "node is not installed $NOT_TESTED"

# --- The real client, installed once into a cache outside the repo ------
CACHE=${SBX_CLAUDE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sbx-test-npm/claude-code}
installed_version() {
	jq -r .version "$CACHE/node_modules/@anthropic-ai/claude-code/package.json" 2>/dev/null
}
if [ -n "${SBX_CLAUDE:-}" ]; then
	CLAUDE=$SBX_CLAUDE
else
	CLAUDE="$CACHE/node_modules/.bin/claude"
	want=${SBX_CLAUDE_VERSION:-}
	if [ ! -x "$CLAUDE" ] || { [ -n "$want" ] && [ "$(installed_version)" != "$want" ]; }; then
		why=$(npm_unusable "@anthropic-ai/claude-code@${want:-latest}")
		[ -z "$why" ] || skip_all "$why $NOT_TESTED"
		mkdir -p "$CACHE" || bail "cannot create $CACHE"
		echo "# installing @anthropic-ai/claude-code@${want:-latest} into $CACHE (npm)"
		# A lock, so two runs do not install into the same prefix at once.
		if ! flock "$CACHE/.lock" timeout 600 npm install --prefix "$CACHE" \
			--no-audit --no-fund --loglevel=error \
			"@anthropic-ai/claude-code@${want:-latest}" >"$T/npm.log" 2>&1; then
			diag <"$T/npm.log"
			bail "npm install @anthropic-ai/claude-code failed (see above)"
		fi
	fi
fi
[ -x "$CLAUDE" ] || bail "no claude executable at $CLAUDE"
CLAUDE_VERSION=$("$CLAUDE" --version 2>/dev/null | head -1)
echo "# Claude Code: ${CLAUDE_VERSION:-unknown} ($CLAUDE)"

# --- The folder: a git repo with a local bare remote, sbx init --claude ---
git init -q --bare "$T/remote.git"
git -C "$FOLDER" init -q -b main
git -C "$FOLDER" -c user.name=sbx-test -c user.email=sbx-test@example.invalid \
	commit -q --allow-empty -m "first commit"
git -C "$FOLDER" remote add origin "$T/remote.git"
MARKER="marker-$$-$RANDOM.txt"
echo "only ls shows this name" >"$FOLDER/$MARKER"
"$SBX" init --claude "$FOLDER" >"$T/init.out" 2>&1
ok $? "sbx init --claude prepares the folder and registers the hooks"
SETTINGS="$FOLDER/.claude/settings.json"
cp "$SETTINGS" "$T/settings.before"
is "$(jq -r '.hooks.PreToolUse[0].hooks[0].command, .hooks.PostToolUse[0].hooks[0].command,
	      .hooks.SessionStart[0].hooks[0].command' "$SETTINGS" |
	while IFS= read -r c; do hook_of "$c"; echo; done | paste -sd,)" \
	"$HOOK pre,$HOOK post,$HOOK session-start" \
	"settings.json runs sbx-hook pre, post and session-start by absolute path"
# Do not sit for minutes if something is off (the registered hook timeout
# stays longer than this wait).
set_limits '{"hook_wait_seconds": 60}'

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
jq -n --arg settings "$SETTINGS" '[
  {name: "Bash",  input: {command: "ls", description: "List the folder"}},
  {name: "Bash",  input: {command: "git push origin main", description: "Publish main"}},
  {name: "Write", input: {file_path: $settings, content: "{\"hooks\": {}}\n"}}
]' >"$T/script.json"
REQ="$T/requests.jsonl"
: >"$REQ"
node "$HERE/fake-api.mjs" "$T/script.json" "$REQ" "$T/port" 2>"$T/fake-api.err" &
FAKE_PID=$!
wait_for 10 test -s "$T/port" || { diag <"$T/fake-api.err"; bail "the fake API did not start"; }
PORT=$(cat "$T/port")
echo "# fake API on 127.0.0.1:$PORT"

# --- Claude Code, print mode --------------------------------------------------
mkdir -p "$T/home"
# claude_p DIR PORT OUT ERR DEBUG: one print-mode session in DIR against the
# stand-in on PORT.
claude_p() {
	(cd "$1" && env -i PATH="$PATH" HOME="$T/home" TMPDIR="${TMPDIR:-/tmp}" \
		LANG=C.UTF-8 TERM=dumb SBX_CONFIG_DIR="$SBX_CONFIG_DIR" \
		ANTHROPIC_BASE_URL="http://127.0.0.1:$2" ANTHROPIC_API_KEY=sk-ant-sbx-test-dummy \
		NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 \
		DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 IS_SANDBOX=1 \
		timeout 240 "$CLAUDE" -p "Run the scripted steps." \
			--permission-mode bypassPermissions --no-session-persistence \
			--output-format stream-json --verbose --include-hook-events \
			--debug-file "$5" \
		>"$3" 2>"$4")
}
t0=$(date +%s%N)
claude_p "$FOLDER" "$PORT" "$T/claude.jsonl" "$T/claude.err" "$T/claude-debug.log"
rc=$?
CLAUDE_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
is "$rc" 0 "claude -p exits 0 (took ${CLAUDE_MS} ms)"
[ "$rc" -eq 0 ] || { tail -20 "$T/claude.err" | diag; tail -20 "$T/claude-debug.log" | diag; }
is "$(jq -r 'select(.type == "result") | .subtype' "$T/claude.jsonl" 2>/dev/null)" "success" \
	"Claude Code reports a successful session"
echo "# the stand-in answered $(wc -l <"$REQ" | tr -d ' ') request(s):" \
	"$(jq -r '"\(.method) \(.url | split("?")[0])"' "$REQ" | sort | uniq -c | tr -s ' \n' ' ')"

# What the model received: the last agent-loop request holds the whole
# conversation. tool_result TOOLU: that result as {content (text), is_error}.
LAST=$(jq -c 'select(.body.tools? and any(.body.tools[]; .name == "Bash"))' "$REQ" | tail -1)
[ -n "$LAST" ] || LAST='{}'
tool_result() {
	printf '%s' "$LAST" | jq -c --arg id "$1" '[.body.messages[]? | select(.content | type == "array")
	  | .content[] | select(.type == "tool_result" and .tool_use_id == $id)][0] // {}
	  | {is_error: (.is_error // false),
	     content: (if (.content | type) == "string" then .content
		       else ([.content[]? | .text? // empty] | join("\n")) end)}'
}
content() { tool_result "$1" | jq -r '.content // ""'; }
is_error() { tool_result "$1" | jq -r '.is_error'; }
like "$(printf '%s' "$LAST" | jq -r '[.body.messages[]? | select(.role == "assistant") | .content[]?
	| select(.type == "tool_use") | .id] | join(",")')" '^toolu_sbx_01,toolu_sbx_02,toolu_sbx_03$' \
	"the model's three scripted tool calls all went through the loop"
is "$(jq -r 'select(.subtype == "hook_response" and .hook_event == "PreToolUse")
	| "\(.hook_name) \(.exit_code)"' "$T/claude.jsonl" | tr '\n' ';')" \
	"PreToolUse:Bash 0;PreToolUse:Bash 0;PreToolUse:Write 0;" \
	"Claude Code asked sbx-hook pre about each call, and it answered (exit 0)"

# 1. A safe command runs inside the agent.
r=$(content toolu_sbx_01)
like "$r" "$MARKER" "ls ran inside the agent: its real output is the tool_result"
is "$(is_error toolu_sbx_01)" "false" "and it is not an error"
unlike "$r" "sbx:" "and sbx did not answer for it"

# 2. An escalated command: approved, executed by sbxd, output to the model.
r=$(content toolu_sbx_02)
like "$r" "sbx: approved by [^ ]+ and ALREADY EXECUTED outside the agent as request [0-9a-f]{16} \\(exit status 0" \
	"git push: the model is told it was approved and ALREADY EXECUTED"
like "$r" "To $T/remote.git" "the tool_result holds git push's real output (destination)"
like "$r" "\\[new branch\\] +main -> main" "and its real output (the branch it pushed)"
is "$(is_error toolu_sbx_02)" "true" "it arrives as a deny (is_error), so Claude Code never ran it itself"
id=$(printf '%s' "$r" | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
is "$(cut -f2 "$T/approved" 2>/dev/null | tr '\n' ';')" "git push origin main;" \
	"the approver was asked exactly once, for git push origin main"
show=$("$SBX" -C "$FOLDER" show "${id:-none}" --json 2>/dev/null)
is "$(printf '%s' "$show" | jq -r '"\(.status) \(.result.exit_code)"')" \
	"done 0" "sbx show: request ${id:-?} done by sbxd, exit 0"
is "$(printf '%s' "$show" | jq -r '"\(.agent) \(.session)"')" \
	"claude-code $(jq -r 'select(.type == "system" and .subtype == "init") | .session_id' "$T/claude.jsonl" 2>/dev/null)" \
	"the request came from this Claude Code session"
is "$(git -C "$T/remote.git" rev-parse main 2>/dev/null)" "$(git -C "$FOLDER" rev-parse HEAD)" \
	"the remote really has the commit"

# 3. A write to the hook configuration is denied.
r=$(content toolu_sbx_03)
like "$r" "sbx: denied by policy \\(self-protection\\).*$SETTINGS" \
	"Write .claude/settings.json: the model gets sbx's self-protection reason"
is "$(is_error toolu_sbx_03)" "true" "as an error"
cmp -s "$T/settings.before" "$SETTINGS"
ok $? ".claude/settings.json is unchanged"

# 4. SessionStart: sbx's context reached the model.
first=$(jq -c 'select(.body.tools? and any(.body.tools[]; .name == "Bash"))' "$REQ" | head -1)
like "$first" "This project is guarded by sbx \\(folder $FOLDER\\)" \
	"SessionStart: sbx's additionalContext is in the model's first request"
is "$(jq -r 'select(.subtype == "hook_response" and .hook_event == "SessionStart")
	| "\(.exit_code) \(.outcome)"' "$T/claude.jsonl" | sort -u | tr '\n' ';')" "0 success;" \
	"Claude Code reports the SessionStart hook succeeded"

# 5. PostToolUse: the hook ran after the tool that ran (ls), without error.
# Until `sbx-hook post` lands (another branch), it exits 2 as an unknown
# mode: these checks are then reported as TODO, and count once it exists.
todo=""
"$HOOK" post </dev/null >/dev/null 2>"$T/post-probe.err"
[ $? -eq 2 ] && grep -q '^usage:' "$T/post-probe.err" &&
	todo=" # TODO sbx-hook post is not built on this branch yet"
post_ok() {	# like ok, but a TODO failure does not fail the run
	if [ -n "$todo" ]; then
		_n=$((_n + 1))
		if [ "$1" -eq 0 ]; then echo "ok $_n - $2$todo"; else echo "not ok $_n - $2$todo"; fi
	else
		ok "$1" "$2"
	fi
}
posts=$(jq -r 'select(.subtype == "hook_response" and .hook_event == "PostToolUse")
	| "\(.hook_name) \(.exit_code) \(.outcome)"' "$T/claude.jsonl")
printf '%s\n' "$posts" | grep -q '^PostToolUse:Bash '
ok $? "PostToolUse: Claude Code ran sbx-hook post after the ls call"
[ -n "$posts" ] && ! printf '%s\n' "$posts" | grep -vq ' 0 success$'
post_ok $? "PostToolUse: every sbx-hook post run exited 0"
[ -n "$todo" ] && printf '%s\n' "$posts" | diag
! grep -Eq 'PostToolUse:[A-Za-z]+ hook (blocking )?error' "$REQ"
post_ok $? "PostToolUse: no hook error text reached the model"

# The audit log: sbx-hook post hands sbxd an event per tool call that ran
# (file tools: path and hashes; Bash: command, exit status when Claude Code
# reports one, interrupted). The log holds one for the ls call and none
# for the calls sbx denied (git push ran in sbxd, the Write never ran).
check_audit_log() {
	local log="$FOLDER/.sandbox/audit.jsonl" ev
	if [ -n "$todo" ] || [ ! -e "$log" ]; then
		_n=$((_n + 1))
		echo "ok $_n - PostToolUse: the audit log records the ls call # SKIP no audit log on this branch"
		return
	fi
	wait_for 10 grep -q '"event":"post_tool_use"' "$log"
	ev=$(jq -c 'select(.event == "post_tool_use" and .data.tool == "Bash")' "$log")
	like "$(printf '%s' "$ev" | jq -r .data.command)" '^ls( |$)' \
		"PostToolUse: the audit log records the ls call"
	is "$(printf '%s' "$ev" | jq -r '"\(.data.interrupted) \(.data.exit_code // 0)"')" "false 0" \
		"PostToolUse: not interrupted, exit 0"
	is "$(jq -r 'select(.event == "post_tool_use") | .data.tool' "$log" | tr '\n' ';')" "Bash;" \
		"PostToolUse: no event for the calls sbx denied (git push ran in sbxd, the Write never ran)"
	is "$(jq -r 'select(.request == "'"${id:-none}"'") | .event' "$log" | head -5 | tr '\n' ' ')" \
		"request_received decision approval_consumed exec_started exec_finished " \
		"the audit log tells the git push request's story"
	"$SBX" -C "$FOLDER" audit verify >/dev/null 2>&1
	ok $? "sbx audit verify passes on the session's log"
}
check_audit_log

unlike "$(cat "$T/claude.err")" "[Hh]ook.*(error|fail)" "claude's stderr names no hook error"

# 6. The hooks' binary is gone (make clean, a moved clone, an uninstall).
# A bare registered path would exit 127, which Claude Code treats as a
# non-blocking error: the call would run unguarded. The command sbx init
# registers blocks instead (exit 2) and tells the model what to do.
gone_session() {
	local f2="$T/gone proj" hb="$T/hook copy" req2="$T/requests-gone.jsonl" pid2 last2 r2
	mkdir -p "$f2" "$hb"
	cp "$HOOK" "$SBX_BIN/sbx-mcp" "$hb/"
	SBX_HOOK_DIR="$hb" "$SBX" init --claude "$f2" >"$T/init-gone.out" 2>&1
	ok $? "sbx init --claude registers a copy of sbx-hook (then removed)"
	rm "$hb/sbx-hook"
	jq -n '[{name: "Bash", input: {command: "touch gone-marker", description: "Touch"}}]' \
		>"$T/script-gone.json"
	: >"$req2"
	node "$HERE/fake-api.mjs" "$T/script-gone.json" "$req2" "$T/port-gone" \
		2>"$T/fake-api-gone.err" &
	pid2=$!
	if ! wait_for 10 test -s "$T/port-gone"; then
		kill "$pid2" 2>/dev/null
		ok 1 "the second fake API starts"
		return
	fi
	claude_p "$f2" "$(cat "$T/port-gone")" "$T/claude-gone.jsonl" "$T/claude-gone.err" \
		"$T/claude-gone-debug.log"
	kill "$pid2" 2>/dev/null
	wait "$pid2" 2>/dev/null
	[ ! -e "$f2/gone-marker" ]
	ok $? "sbx-hook gone: Claude Code did not run the Bash call (touch gone-marker)"
	is "$(jq -r 'select(.subtype == "hook_response" and .hook_event == "PreToolUse")
		| "\(.hook_name) \(.exit_code)"' "$T/claude-gone.jsonl" | tr '\n' ';')" \
		"PreToolUse:Bash 2;" "the registered PreToolUse command exited 2 (blocking)"
	last2=$(jq -c 'select(.body.tools? and any(.body.tools[]; .name == "Bash"))' "$req2" | tail -1)
	r2=$(LAST=${last2:-"{}"} tool_result toolu_sbx_01)
	like "$(printf '%s' "$r2" | jq -r .content)" \
		"sbx-hook is missing or not executable; every call is blocked\\. Reinstall sbx" \
		"the model is told the hook is missing and what to do"
	is "$(printf '%s' "$r2" | jq -r .is_error)" "true" "as an error"
}
gone_session

# --- The same CLI inside `sbx jail` -------------------------------------------
# Claude Code runs under bubblewrap; it reaches a second stand-in model API
# on 127.0.0.1 only through sbx-proxy (that host:port is in allowedDomains).
# Scripted: a safe call (ls), an escalated call (git push to a new branch:
# approved outside, run by sbxd outside the jail), and project code the
# hook allows (python3 leak.py) that tries to read the approver key and to
# add an approver key, and fails: the jail hides the one and makes the
# other read-only.
jail_run() {
	local port2 key_head py rc t0
	if ! command -v bwrap >/dev/null; then
		_n=$((_n + 1))
		echo "ok $_n - Claude Code inside sbx jail # SKIP bubblewrap is not installed"
		return
	fi
	py=$(command -v /usr/bin/python3 || command -v python3)
	cat >"$T/leak.py" <<PY
import os
cfg = os.environ.get("SBX_CONFIG_DIR", "")
for name in ("approver.key", "daemon.key"):
    try:
        with open(os.path.join(cfg, name)) as f:
            print("LEAKED " + name + ": " + f.read())
    except OSError as e:
        print("no " + name + ": " + e.strerror)
try:
    with open(os.path.join(cfg, "approvers", "evil.pub"), "w") as f:
        f.write("x")
    print("WROTE approvers/evil.pub")
except OSError as e:
    print("cannot add an approver: " + e.strerror)
PY
	jq -n --arg leak "$(cat "$T/leak.py")" --arg file "$FOLDER/leak.py" --arg py "$py" '[
	  {name: "Bash",  input: {command: "ls", description: "List the folder"}},
	  {name: "Bash",  input: {command: "git push origin main:jailed", description: "Publish"}},
	  {name: "Write", input: {file_path: $file, content: $leak}},
	  {name: "Bash",  input: {command: ($py + " leak.py"), description: "Run the project script"}}
	]' >"$T/script2.json"
	: >"$T/requests2.jsonl"
	node "$HERE/fake-api.mjs" "$T/script2.json" "$T/requests2.jsonl" "$T/port2" \
		2>"$T/fake-api2.err" &
	FAKE2_PID=$!
	wait_for 10 test -s "$T/port2" || { diag <"$T/fake-api2.err"; bail "the second fake API did not start"; }
	port2=$(cat "$T/port2")
	local p="$FOLDER/.sandbox/policy.json"
	jq --arg h "127.0.0.1:$port2" '.network.allowedDomains = [$h]' "$p" >"$p.new" &&
		mv "$p.new" "$p" && accept_policy
	: >"$T/approved"
	t0=$(date +%s%N)
	(cd "$FOLDER" && env -i PATH="$PATH" HOME="$T/home" TMPDIR="${TMPDIR:-/tmp}" \
		LANG=C.UTF-8 TERM=dumb SBX_CONFIG_DIR="$SBX_CONFIG_DIR" \
		ANTHROPIC_BASE_URL="http://127.0.0.1:$port2" ANTHROPIC_API_KEY=sk-ant-sbx-test-dummy \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 \
		DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 IS_SANDBOX=1 \
		timeout 240 "$SBX" -C "$FOLDER" jail --login -- "$CLAUDE" -p "Run the scripted steps." \
			--permission-mode bypassPermissions --no-session-persistence \
			--output-format stream-json --verbose --include-hook-events \
		>"$T/claude2.jsonl" 2>"$T/claude2.err")
	rc=$?
	JAIL_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
	kill "$FAKE2_PID" 2>/dev/null && wait "$FAKE2_PID" 2>/dev/null
	is "$rc" 0 "in sbx jail: claude -p exits 0 (took ${JAIL_MS} ms)"
	[ "$rc" -eq 0 ] || tail -20 "$T/claude2.err" | diag
	is "$(jq -r 'select(.type == "result") | .subtype' "$T/claude2.jsonl" 2>/dev/null)" "success" \
		"in sbx jail: Claude Code reports a successful session"
	LAST=$(jq -c 'select(.body.tools? and any(.body.tools[]; .name == "Bash"))' \
		"$T/requests2.jsonl" | tail -1)
	[ -n "$LAST" ] || LAST='{}'
	like "$(content toolu_sbx_01)" "$MARKER" "in sbx jail: ls ran inside the jail (safe call)"
	r=$(content toolu_sbx_02)
	like "$r" "sbx: approved by [^ ]+ and ALREADY EXECUTED outside the agent" \
		"in sbx jail: git push was escalated, approved outside and executed by sbxd"
	is "$(git -C "$T/remote.git" rev-parse jailed 2>/dev/null)" "$(git -C "$FOLDER" rev-parse HEAD)" \
		"in sbx jail: the remote has the branch sbxd pushed"
	r=$(content toolu_sbx_04)
	like "$r" "no approver.key: " "in sbx jail: project code cannot read the approver key"
	like "$r" "no daemon.key: " "in sbx jail: nor the daemon's key"
	like "$r" "cannot add an approver: " "in sbx jail: nor add an approver key"
	# the secret half of the key, as it is written in the file
	key_head=$(sed -n 's/^secret \([0-9a-f]\{32\}\).*/\1/p' "$SBX_CONFIG_DIR/approver.key" 2>/dev/null)
	unlike "$r" "LEAKED|WROTE" "in sbx jail: nothing leaked to the model"
	[ -n "$key_head" ] && ! grep -qF "$key_head" "$T/requests2.jsonl"
	ok $? "in sbx jail: the key's bytes never reached the model API"
	[ ! -e "$SBX_CONFIG_DIR/approvers/evil.pub" ]
	ok $? "in sbx jail: no approver key was added (checked outside)"
	is "$(cut -f2 "$T/approved" | tr '\n' ';')" "git push origin main:jailed;" \
		"in sbx jail: the human was asked once, for git push (the listed API host was never asked)"
	wait_for 10 sh -c "[ -z \"\$(ls -A '$FOLDER/.sandbox/proxy/events')\" ]"
	local n
	n=$("$SBX" -C "$FOLDER" audit show --json | jq "[.[] | select(.event == \"network_connection\"
		and .data.host == \"127.0.0.1\" and .data.port == $port2 and .data.verdict == \"allowed\")] | length")
	ok $(( n >= 1 ? 0 : 1 )) "in sbx jail: the model API connections went through sbx-proxy ($n audit records)"
}
jail_run

# --- Summary -------------------------------------------------------------------
if [ "$_failed" -ne 0 ]; then
	echo "# --- for a look: the last request's messages, claude's stderr, sbxd"
	printf '%s' "$LAST" | jq -c '.body.messages[]?' 2>/dev/null | cut -c1-300 | diag
	tail -20 "$T/claude.err" | diag
	tail -20 "$T/sbxd.log" | diag
	[ "${SBX_KEEP:-}" ] || echo "# run with SBX_KEEP=1 to keep $T"
fi
echo "# test-claude: $_n tests, $_failed failed, with ${CLAUDE_VERSION:-claude} in" \
	"$(( $(date +%s) - START ))s (claude -p: ${CLAUDE_MS} ms; in sbx jail: ${JAIL_MS:-?} ms)"
[ -n "$todo" ] && echo "# test-claude: the PostToolUse checks marked TODO do not count until sbx-hook post exists"
[ "$_failed" -eq 0 ] && echo "# test-claude: PASS" || echo "# test-claude: FAIL"
done_testing
