#!/usr/bin/env bash
# sbx init --claude/--mcp/--codex/--cursor, sbx remove, and the
# SessionStart hook: merging into the user's files, idempotent, reversible.
. "$(dirname "$0")/lib.sh"

S="$FOLDER/.claude/settings.json"
mkdir -p "$FOLDER/.claude"
cat >"$S" <<'JSON'
{"permissions": {"allow": ["Bash(npm test)"]},
 "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-own-hook"}]}]},
 "model": "opus"}
JSON
orig=$(jq -S . "$S")

"$SBX" init --claude --mcp --codex --cursor "$FOLDER" >"$T/init.out" 2>&1
ok $? "sbx init --claude --mcp --codex --cursor succeeds"
like "$(cat "$T/init.out")" "registered sbx in .claude/settings.json" "it says what it registered"
is "$(jq -r '.permissions.allow[0]' "$S")" "Bash(npm test)" "the user's permissions stay"
is "$(jq -r '.model' "$S")" "opus" "the user's other keys stay"
is "$(jq -r '.hooks.PreToolUse[0].hooks[0].command' "$S")" "my-own-hook" "the user's own hook stays, first"
is "$(jq -r '[.hooks.PreToolUse[].hooks[].command] | map(select(test("sbx-hook$") and test("\"[$]0\" pre;"))) | length' "$S")" "1" "sbx-hook pre is registered once"
pre=$(jq -r '.hooks.PreToolUse[1].hooks[0].command' "$S")
is "$(hook_of "$pre")" "$SBX_BIN/sbx-hook pre" "with the absolute path of sbx-hook"
timeout=$(jq -r '.hooks.PreToolUse[1].hooks[0].timeout' "$S")
wait=$(jq -r '.limits.hook_wait_seconds' "$FOLDER/.sandbox/policy.json")
[ "$timeout" -gt "$wait" ]
ok $? "the hook timeout ($timeout s) is longer than the hook's own wait ($wait s)"
is "$(hook_of "$(jq -r '.hooks.PostToolUse[0].hooks[0].command' "$S")")" "$SBX_BIN/sbx-hook post" "PostToolUse is registered"
is "$(hook_of "$(jq -r '.hooks.SessionStart[0].hooks[0].command' "$S")")" "$SBX_BIN/sbx-hook session-start" "SessionStart is registered"
is "$(jq -r '.mcpServers.sbx.command' "$FOLDER/.mcp.json")" "$SBX_BIN/sbx-mcp" ".mcp.json names sbx-mcp"
is "$(hook_of "$(jq -r '.hooks.PreToolUse[0].hooks[0].command' "$FOLDER/.codex/hooks.json")")" "$SBX_BIN/sbx-hook codex" "Codex hooks are written"
is "$(jq -r '.mcpServers.sbx.args | join(" ")' "$FOLDER/.cursor/mcp.json")" "--folder $FOLDER" "Cursor's MCP server gets the folder"
is "$(hook_of "$(jq -r '.hooks.beforeShellExecution[0].command' "$FOLDER/.cursor/hooks.json")")" "$SBX_BIN/sbx-hook cursor" "Cursor hooks are written"
is "$(jq -r '.version' "$FOLDER/.cursor/hooks.json")" "1" "with Cursor's version key"
is "$(cat "$FOLDER/.sandbox/.gitignore" | grep -v '^#')" "*" ".sandbox/ is ignored by git"
grep -qx "$FOLDER" "$SBX_CONFIG_DIR/folders"
ok $? "the folder is recorded for sbxd --all"

sums() { find "$FOLDER" -path "$FOLDER/.sandbox" -prune -o -type f -print0 | sort -z | xargs -0 sha256sum; }
before=$(sums)
"$SBX" init --claude --mcp --codex --cursor "$FOLDER" >"$T/init2.out" 2>&1
is "$(sums)" "$before" "running init again changes nothing"
like "$(cat "$T/init2.out")" "already has sbx" "and says so"

# An unparseable settings file is an error naming it; nothing is written.
cp "$S" "$T/settings.saved"
echo '{"hooks": ' >"$FOLDER/.claude/settings.local.json"
"$SBX" init --claude --local "$FOLDER" >/dev/null 2>"$T/err"
is "$?" "1" "init on an unparseable settings file fails"
like "$(cat "$T/err")" "settings.local.json line 1, column 11: the file ends early" "and names the file, the line and why"
is "$(cat "$FOLDER/.claude/settings.local.json")" '{"hooks": ' "the file is left as it was"
rm "$FOLDER/.claude/settings.local.json"
"$SBX" init --claude --local "$FOLDER" >/dev/null 2>&1
is "$(hook_of "$(jq -r '.hooks.PreToolUse[0].hooks[0].command' "$FOLDER/.claude/settings.local.json")")" "$SBX_BIN/sbx-hook pre" "--local writes settings.local.json"

# SessionStart gives the model its context.
out=$(echo "{\"hook_event_name\": \"SessionStart\", \"cwd\": \"$FOLDER\", \"source\": \"startup\"}" | "$HOOK" session-start)
ok $? "session-start exits 0"
like "$(echo "$out" | jq -r .hookSpecificOutput.hookEventName)" "^SessionStart$" "it answers as SessionStart"
ctx=$(echo "$out" | jq -r .hookSpecificOutput.additionalContext)
like "$ctx" "escalated to a human" "it explains escalation"
like "$ctx" "repeat the exact same call" "and how to get a pending result"
like "$ctx" "0 request\\(s\\) waiting" "and what is pending"
out=$(echo 'garbage' | "$HOOK" session-start)
ok $? "session-start never fails on bad input"

# remove takes out exactly what init added.
"$SBX" remove "$FOLDER" >"$T/remove.out" 2>&1
ok $? "sbx remove succeeds"
is "$(jq -S . "$S")" "$orig" "settings.json is back to the user's content"
! test -e "$FOLDER/.mcp.json" && ! test -e "$FOLDER/.codex" && ! test -e "$FOLDER/.cursor" && ! test -e "$FOLDER/.claude/settings.local.json"
ok $? "files and directories init created are gone"
test -d "$FOLDER/.sandbox"
ok $? "without --purge .sandbox/ stays"
! grep -qx "$FOLDER" "$SBX_CONFIG_DIR/folders"
ok $? "the folder is no longer recorded"
"$SBX" remove --purge "$FOLDER" </dev/null >/dev/null 2>"$T/err"
is "$?" "1" "--purge without a terminal and without --yes refuses"
test -d "$FOLDER/.sandbox"
ok $? "and deletes nothing"
"$SBX" remove --purge --yes "$FOLDER" >/dev/null 2>&1
! test -e "$FOLDER/.sandbox"
ok $? "--purge --yes deletes .sandbox/"
is "$(jq -S . "$S")" "$orig" "and still leaves the user's settings alone"

done_testing
