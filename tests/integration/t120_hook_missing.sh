#!/usr/bin/env bash
# Hooks fail closed when sbx-hook is gone (make clean, a moved clone, an
# uninstall). A client runs the registered command through a shell; a
# bare path would exit 127, which Claude Code treats as a non-blocking
# error and runs the tool unguarded. The command sbx init registers must
# instead block (exit 2, a message saying what to do), pass the hook's own
# status through, and never let its path become shell code. sbx doctor
# must not say ok while the binary is missing; init replaces a stale
# registration instead of adding a second one; from a build tree it
# prefers an installed sbx-hook on PATH and warns when there is none.
. "$(dirname "$0")/lib.sh"

# The hooks live in a directory whose name a shell would trip on: a space,
# a single quote, and a command substitution that must never run.
HB="$T/hook dir's \$(touch $T/pwned)"
mkdir -p "$HB"
cp "$SBX_BIN/sbx-hook" "$SBX_BIN/sbx-mcp" "$HB/"
SBX_HOOK_DIR="$HB" "$SBX" init --claude --codex --cursor "$FOLDER" >"$T/init.out" 2>&1
ok $? "sbx init registers hooks from a directory with a space, a quote and \$( )"

S="$FOLDER/.claude/settings.json"
pre=$(jq -r '.hooks.PreToolUse[0].hooks[0].command' "$S")
post=$(jq -r '.hooks.PostToolUse[0].hooks[0].command' "$S")
sess=$(jq -r '.hooks.SessionStart[0].hooks[0].command' "$S")
codex=$(jq -r '.hooks.PreToolUse[0].hooks[0].command' "$FOLDER/.codex/hooks.json")
cursor=$(jq -r '.hooks.beforeShellExecution[0].command' "$FOLDER/.cursor/hooks.json")

payload() {	# payload COMMAND: what Claude Code (and Codex) send for Bash
	jq -cn --arg c "$1" --arg cwd "$FOLDER" '{session_id: "s1", transcript_path: "/dev/null",
	  cwd: $cwd, hook_event_name: "PreToolUse", tool_name: "Bash",
	  tool_input: {command: $c}, tool_use_id: "toolu_1"}'
}
cursor_payload() {
	jq -cn --arg c "$1" --arg cwd "$FOLDER" '{hook_event_name: "beforeShellExecution",
	  command: $c, cwd: $cwd, workspace_roots: [$cwd], conversation_id: "c1",
	  generation_id: "g1"}'
}
# run SHELL CMD STDIN: runs a registered command as a client does; sets
# rc, out, err.
run() {
	printf '%s' "$3" | (cd "$FOLDER" && CLAUDE_PROJECT_DIR="$FOLDER" "$1" -c "$2") \
		>"$T/out" 2>"$T/err"
	rc=$?
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}

# --- With the binary in place: the hook answers, its status passes through.
for sh in sh bash; do
	run "$sh" "$pre" "$(payload ls)"
	is "$rc $(printf '%s' "$out" | jq -r .hookSpecificOutput.permissionDecision)" "0 allow" \
		"$sh: pre allows ls through the wrapper, exit 0"
	run "$sh" "$pre" "$(payload 'rm -rf /')"
	is "$rc $(printf '%s' "$out" | jq -r .hookSpecificOutput.permissionDecision)" "0 deny" \
		"$sh: pre denies rm -rf / through the wrapper"
done
run sh "$codex" "$(payload ls)"
is "$rc" "0" "codex mode: an allowed call exits 0"
run sh "$cursor" "$(cursor_payload ls)"
is "$rc $(printf '%s' "$out" | jq -r .permission)" "0 allow" "cursor mode answers allow"
run sh "$sess" '{"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup"}'
is "$rc" "0" "session-start runs through the wrapper"
[ ! -e "$T/pwned" ]
ok $? "the \$( ) in the hook's path never ran"

# The hook's own exit status passes through unchanged (2 is its block).
mv "$HB/sbx-hook" "$T/real-hook"
printf '#!/bin/sh\ncat >/dev/null\necho "own message" >&2\nexit %s\n' 2 >"$HB/sbx-hook"
chmod 755 "$HB/sbx-hook"
run sh "$pre" "$(payload ls)"
is "$rc|$err" "2|own message" "the hook's own exit 2 and message pass through"
printf '#!/bin/sh\ncat >/dev/null\nexit 3\n' >"$HB/sbx-hook"
run sh "$pre" "$(payload ls)"
is "$rc" "3" "any status the hook itself exits with passes through (3)"

# --- Broken or gone: every mode blocks with exit 2 and says what to do.
printf '#!/bin/sh\nkill -SEGV $$\n' >"$HB/sbx-hook"
run sh "$pre" "$(payload ls)"
is "$rc" "2" "a hook killed by a signal blocks (exit 2), not 139"
like "$err" "could not run \\(exit status 139\\).*blocked.*sbx init again" "and says why and what to do"
printf '\177ELF not really' >"$HB/sbx-hook"
run sh "$pre" "$(payload ls)"
is "$rc" "2" "a binary that cannot execute (126) blocks"
chmod 644 "$HB/sbx-hook"
run sh "$pre" "$(payload ls)"
is "$rc" "2" "a hook that is not executable blocks"
like "$err" "missing or not executable" "and says so"
rm "$HB/sbx-hook"
for sh in sh bash; do
	for c in "$pre" "$post" "$sess" "$codex"; do
		run "$sh" "$c" "$(payload ls)"
		is "$rc" "2" "$sh: $(hook_of "$c" | sed 's/.* //') with sbx-hook gone exits 2 (blocks)"
	done
done
like "$err" "sbx: $T/hook dir's .*sbx-hook is missing or not executable; every call is blocked\\. Reinstall sbx \\(make install\\), or run sbx init again" \
	"the message names the binary and what to do"
run sh "$cursor" "$(cursor_payload ls)"
is "$rc $(printf '%s' "$out" | jq -r .permission)" "2 deny" "cursor: exit 2 and a deny answer on stdout"
[ ! -e "$T/pwned" ]
ok $? "the \$( ) in the hook's path never ran, on any path"

# --- sbx doctor does not call missing hooks ok.
"$SBX" -C "$FOLDER" doctor >"$T/doctor.out" 2>&1
is "$?" "1" "sbx doctor fails while the hooks' binary is missing"
unlike "$(cat "$T/doctor.out")" "^ok +Claude Code hooks" "doctor does not print ok for the hooks"
like "$(cat "$T/doctor.out")" "FAIL.*PreToolUse hook runs $T/hook dir.*sbx-hook, which is missing" \
	"doctor names the missing binary"
"$SBX" -C "$FOLDER" doctor --json >"$T/doctor.json" 2>&1
is "$?" "1" "sbx doctor --json: the same exit status"
is "$(jq -r '"\(.ok) \(.folder) \(.problems == ([.checks[] | select(.level == "fail")] | length))"' \
	"$T/doctor.json" 2>&1)" "false $FOLDER true" "one JSON object: ok false, the folder, problems counted"
is "$(jq -r '[.checks[] | select(.level == "ok" and (.message | test("Claude Code hooks")))] | length' \
	"$T/doctor.json")" "0" "no ok check for the hooks"
like "$(jq -r '.checks[] | select(.level == "fail") | .message' "$T/doctor.json")" \
	"PreToolUse hook runs .*sbx-hook, which is missing" "a fail check names the missing binary"

# --- The clone moved: init again replaces the stale hook, never adds one.
mkdir -p "$T/moved"
cp "$T/real-hook" "$T/moved/sbx-hook"
cp "$SBX_BIN/sbx-mcp" "$T/moved/"
SBX_HOOK_DIR="$T/moved" "$SBX" init --claude --codex --cursor "$FOLDER" >"$T/init2.out" 2>&1
ok $? "sbx init again from the new place"
is "$(jq -r '[.hooks.PreToolUse[].hooks[].command] | length' "$S")" "1" \
	"one PreToolUse hook, not the stale one beside the new"
is "$(hook_of "$(jq -r '.hooks.PreToolUse[0].hooks[0].command' "$S")")" "$T/moved/sbx-hook pre" \
	"it runs the new path"
is "$(jq -r '[.hooks.beforeShellExecution[].command] | length' "$FOLDER/.cursor/hooks.json")" "1" \
	"Cursor: one hook per event"
is "$(jq -r '.mcpServers.sbx.command' "$FOLDER/.cursor/mcp.json")" "$T/moved/sbx-mcp" \
	"Cursor's MCP server moved too"
"$SBX" -C "$FOLDER" doctor >"$T/doctor2.out" 2>&1
like "$(cat "$T/doctor2.out")" "^ok +Claude Code hooks: PreToolUse, PostToolUse, SessionStart" \
	"doctor is content again"
is "$("$SBX" -C "$FOLDER" doctor --json | jq -r '[.checks[] | select(.message |
	test("Claude Code hooks")) | .level] | join(",")')" "ok" "doctor --json too"
"$SBX" remove "$FOLDER" >/dev/null 2>&1
ok $? "sbx remove"
[ ! -e "$S" ] && [ ! -e "$FOLDER/.cursor/hooks.json" ]
ok $? "and it takes out what init wrote, across the move"

# --- From a build tree: an installed sbx-hook on PATH wins, else a warning.
if [ -e "$SBX_BIN/../hook/sbx_hook.c" ] || [ -e "$SBX_BIN/../../../hook/sbx_hook.c" ]; then
	mkdir -p "$T/inst/bin" "$T/p2"
	cp "$SBX_BIN/sbx-hook" "$SBX_BIN/sbx-mcp" "$T/inst/bin/"
	(unset SBX_HOOK_DIR; PATH="$T/inst/bin:$PATH" "$SBX" init --claude "$T/p2") >"$T/init3.out" 2>&1
	like "$(cat "$T/init3.out")" "registering the installed $T/inst/bin/sbx-hook" \
		"from a build tree, init says it registers the installed sbx-hook"
	is "$(hook_of "$(jq -r '.hooks.PreToolUse[0].hooks[0].command' "$T/p2/.claude/settings.json")")" \
		"$T/inst/bin/sbx-hook pre" "and registers it"
	mkdir -p "$T/p3"
	(unset SBX_HOOK_DIR; PATH=/usr/bin:/bin "$SBX" init --claude "$T/p3") >"$T/init4.out" 2>&1
	if command -v sbx-hook >/dev/null 2>&1; then
		ok 0 "skipped: an sbx-hook is installed on this machine # SKIP installed sbx-hook present"
	else
		like "$(cat "$T/init4.out")" "warning: registering $SBX_BIN/sbx-hook from a build tree.*make install" \
			"without an installed one, init warns that the build tree's hook breaks with make clean"
	fi
fi

done_testing
