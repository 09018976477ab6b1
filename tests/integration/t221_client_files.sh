#!/usr/bin/env bash
# The clients' own files that sbx init edits (.claude/settings.json,
# Gemini's trustedFolders.json, Codex's config.toml) are read by one
# reader (file_read_nofollow): a symlink planted in their place is
# refused and its target left alone, a FIFO is refused at once instead of
# hanging init, and a file that is not JSON is named with its line and
# column, for every client alike.
. "$(dirname "$0")/lib.sh"

S="$FOLDER/.claude/settings.json"
TF="$GEMINI_CLI_HOME/.gemini/trustedFolders.json"
CFG="$CODEX_HOME/config.toml"
mkdir -p "$FOLDER/.claude" "$(dirname "$TF")" "$CODEX_HOME"

# init_fails DESC FILE ARGS...: init exits 1 within 20 s and names FILE.
init_fails() {
	local d=$1 f=$2
	shift 2
	timeout 20 "$SBX" init "$@" "$FOLDER" >"$T/out" 2>&1
	is "$?" "1" "$d: init fails (and does not hang)"
	like "$(cat "$T/out")" "$(basename "$f")" "$d: the message names the file"
}

# --- a symlink in place of the file: refused, its target unchanged ------------
echo '{"user": "outside"}' >"$T/outside.json"
cp "$T/outside.json" "$T/outside.before"
ln -s "$T/outside.json" "$S"
init_fails "a symlinked .claude/settings.json" "$S" --claude
like "$(cat "$T/out")" "is a symlink" "it says it is a symlink"
cmp -s "$T/outside.json" "$T/outside.before"
ok $? "the symlink's target is unchanged"
test -L "$S"
ok $? "the symlink is still there"
rm -f "$S"

ln -s "$T/outside.json" "$TF"
init_fails "a symlinked Gemini trustedFolders.json" "$TF" --gemini
like "$(cat "$T/out")" "is a symlink" "it says it is a symlink"
cmp -s "$T/outside.json" "$T/outside.before"
ok $? "the symlink's target is unchanged"
rm -f "$TF"
"$SBX" remove "$FOLDER" >/dev/null 2>&1

# --- a FIFO in place of the file: refused at once -----------------------------
mkfifo "$S"
init_fails "a FIFO as .claude/settings.json" "$S" --claude
like "$(cat "$T/out")" "not a regular file" "it says it is not a regular file"
rm -f "$S"
"$SBX" remove "$FOLDER" >/dev/null 2>&1

mkfifo "$TF"
init_fails "a FIFO as Gemini's trustedFolders.json" "$TF" --gemini
like "$(cat "$T/out")" "not a regular file" "it says it is not a regular file"
rm -f "$TF"
"$SBX" remove "$FOLDER" >/dev/null 2>&1

mkfifo "$CFG"
timeout 20 "$SBX" init --codex "$FOLDER" >"$T/out" 2>&1
r=$?
[ "$r" -ne 124 ]
ok $? "a FIFO as Codex's config.toml: init --codex does not hang"
like "$(cat "$T/out")" "config.toml is not a regular file" "it says the file is not a regular file"
test -p "$CFG"
ok $? "the FIFO is left alone"
rm -f "$CFG"
"$SBX" remove "$FOLDER" >/dev/null 2>&1

# --- not JSON: the same message, with line and column, for each client ---------
printf '{\n  "a": 1,\n  // a note\n  "b": 2\n}\n' >"$S"
init_fails "a comment in .claude/settings.json" "$S" --claude
like "$(cat "$T/out")" "settings.json line 3, column [0-9]+: a comment" \
	"it names the line, the column and the mistake"
rm -f "$S"
"$SBX" remove "$FOLDER" >/dev/null 2>&1

printf '{\n  "%s": "TRUST_FOLDER",\n  // a note\n  "/x": "TRUST_PARENT"\n}\n' /elsewhere >"$TF"
cp "$TF" "$T/tf.before"
init_fails "a comment in Gemini's trustedFolders.json" "$TF" --gemini
like "$(cat "$T/out")" "trustedFolders.json line 3, column [0-9]+: a comment" \
	"it names the line, the column and the mistake there too"
cmp -s "$TF" "$T/tf.before"
ok $? "and leaves the file as it was"

done_testing
