#!/usr/bin/env bash
# demo.sh - the whole sbx loop in a temporary folder, told as it happens:
# an agent's tool call arrives, is escalated, a human approves it, sbxd
# runs it outside the agent, and the model receives the output.
#
# Run it with `make demo`. Nothing outside the temporary folder is
# touched: the approver key lives in its own config dir there too.
set -eu

BIN=${SBX_BIN:-$(cd "$(dirname "$0")/../bin" && pwd)}
command -v git >/dev/null || { echo "demo: needs git (apt-get install git)"; exit 1; }
command -v jq >/dev/null || { echo "demo: needs jq (apt-get install jq)"; exit 1; }

DEMO=$(mktemp -d "${TMPDIR:-/tmp}/sbx-demo.XXXXXX")
export SBX_CONFIG_DIR="$DEMO/config"
PROJ="$DEMO/project"
DPID=""
trap '[ -n "$DPID" ] && kill $DPID 2>/dev/null; wait 2>/dev/null; rm -rf "$DEMO"' EXIT

b=""; n=""
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then b=$(tput bold 2>/dev/null || true); n=$(tput sgr0 2>/dev/null || true); fi
say() { printf '\n%s== %s%s\n' "$b" "$*" "$n"; }
show() { sed 's/^/   | /'; }

# What Claude Code sends to a PreToolUse hook.
payload() {
	jq -cn --arg c "$1" --arg cwd "$PROJ" '{session_id: "demo-session",
	  transcript_path: "/dev/null", cwd: $cwd, hook_event_name: "PreToolUse",
	  tool_name: "Bash", tool_input: {command: $c}, tool_use_id: "toolu_demo"}'
}
agent_calls() {	# agent_calls CMD: runs the hook as Claude Code would
	echo "   agent wants to run:  $1" >&2
	payload "$1" | (cd "$PROJ" && CLAUDE_PROJECT_DIR="$PROJ" "$BIN/sbx-hook" pre)
}
verdict() {
	jq -r '.hookSpecificOutput | "   hook answers:        \(.permissionDecision)" +
	  (if .permissionDecisionReason then "\n   reason:              \(.permissionDecisionReason | split("\n")[0])" else "" end)'
}

say "A project with a git remote, prepared with sbx init"
git init -q --bare "$DEMO/remote.git"
mkdir -p "$PROJ"
git -C "$PROJ" init -q -b main
git -C "$PROJ" -c user.name=dev -c user.email=dev@example.com commit -q --allow-empty -m "first commit"
git -C "$PROJ" remote add origin "$DEMO/remote.git"
"$BIN/sbx" init "$PROJ" | show
# A short wait so the demo does not sit for minutes if something is off.
jq '.limits.hook_wait_seconds = 30' "$PROJ/.sandbox/policy.json" >"$DEMO/p" &&
	mv "$DEMO/p" "$PROJ/.sandbox/policy.json"
"$BIN/sbx" -C "$PROJ" policy accept | show

say "The human starts sbxd, which will run approved commands outside the agent"
"$BIN/sbxd" "$PROJ" 2>"$DEMO/sbxd.log" &
DPID=$!
for _ in $(seq 100); do grep -q serving "$DEMO/sbxd.log" && break; sleep 0.05; done
show <"$DEMO/sbxd.log"

say "Ordinary work passes at once"
agent_calls "git status --short" | verdict

say "Catastrophes are denied outright, with a reason the model can act on"
agent_calls "rm -rf /" | verdict

say "A privileged call is escalated: the hook queues it and waits"
agent_calls "git push origin main" >"$DEMO/answer.json" &
HOOK=$!
for _ in $(seq 200); do
	id=$("$BIN/sbx" -C "$PROJ" pending --json 2>/dev/null | jq -r '.[0].id // empty')
	[ -n "$id" ] && break
	sleep 0.05
done
echo "   the approver's terminal (sbx pending) shows:"
"$BIN/sbx" -C "$PROJ" pending | show

say "The human approves it; the decision is signed with their key"
echo "   \$ sbx approve $id"
"$BIN/sbx" -C "$PROJ" approve "$id" | show

wait "$HOOK"
say "sbxd verified the signature and ran the command outside the agent"
show <"$DEMO/sbxd.log"

say "What the model receives (the hook denies the tool call, so it never runs twice)"
jq -r '.hookSpecificOutput.permissionDecisionReason' "$DEMO/answer.json" | show

say "The push really happened, done by sbxd, not by the agent"
git -C "$DEMO/remote.git" log --oneline main | show

say "The audit log tells the request's story, hash-chained and signed by sbxd"
echo "   \$ sbx audit show --request $id"
"$BIN/sbx" -C "$PROJ" audit show --request "$id" | cut -c 12- | show
echo "   \$ sbx audit verify"
"$BIN/sbx" -C "$PROJ" audit verify | show
echo
echo "Done. State, queue and results were in $PROJ/.sandbox (removed now)."
