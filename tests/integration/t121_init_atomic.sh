#!/usr/bin/env bash
# sbx init on a client file it cannot parse writes NOTHING: no .sandbox/,
# no approver key, no accepted policy, no registry entry, the file itself
# byte for byte as it was. The message names the file, the line and
# column, and the real problem (comments and trailing commas are not
# JSON). Checked for every client file init edits; then, with the file
# fixed, init succeeds and keeps the user's content.
. "$(dirname "$0")/lib.sh"

# nothing_written DESC: the folder holds only what the test put there, and
# the config dir (key, folders registry) was never created.
nothing_written() {
	[ ! -e "$FOLDER/.sandbox" ] && [ ! -e "$SBX_CONFIG_DIR" ] &&
		[ "$(find "$FOLDER" -newer "$T/stamp" | wc -l)" -eq 0 ]
	ok $? "$1: nothing was written (no .sandbox/, no key, no registry entry)"
}

# attempt FILE CONTENT FLAGS WANT-REGEX DESC
attempt() {
	local file=$1 content=$2 flags=$3 want=$4 desc=$5
	rm -rf "$FOLDER" "$SBX_CONFIG_DIR"
	mkdir -p "$FOLDER/$(dirname "$file")"
	printf '%b' "$content" >"$FOLDER/$file"
	cp "$FOLDER/$file" "$T/before"
	sleep 0.01
	touch "$T/stamp"
	sleep 0.01
	# shellcheck disable=SC2086
	"$SBX" init $flags "$FOLDER" >"$T/out" 2>"$T/err"
	is "$?" "1" "$desc: init fails"
	like "$(cat "$T/err")" "$want" "$desc: the message says where and why"
	like "$(cat "$T/err")" "nothing was written" "$desc: and that nothing was written"
	cmp -s "$T/before" "$FOLDER/$file"
	ok $? "$desc: the file is as it was"
	nothing_written "$desc"
}

S=.claude/settings.json
attempt "$S" '{\n  // my hooks\n  "model": "opus"\n}\n' --claude \
	"$S line 2, column 3: a comment: JSON has no comments" "a // comment"
attempt "$S" '{\n  "model": "opus" /* mine */\n}\n' --claude \
	"$S line 2, column 19: a comment: JSON has no comments" "a /* */ comment"
attempt "$S" '{\n  "permissions": {\n    "allow": [\n      "Bash(ls)",\n    ]\n  }\n}\n' --claude \
	"$S line 5, column 5: a trailing comma: JSON allows no comma before \\} or \\]" \
	"a trailing comma in an array"
attempt "$S" '{"model": "opus",}' --claude \
	"$S line 1, column 18: a trailing comma" "a trailing comma in an object"
attempt "$S" "{'model': 'opus'}" --claude "$S line 1, column 2: single quotes" "single quotes"
attempt "$S" '{"hooks": {' --claude "$S line 1, column 11: the file ends early" "a cut-short file"
attempt "$S" '' --claude "$S is empty, which is not JSON" "an empty file"
attempt "$S" '["not", "an", "object"]' --claude "$S line 1, column 1: JSON, but not an object" \
	"an array"
attempt "$S" '{} {}' --claude "$S line 1, column 4: text after the end of the JSON object" \
	"two objects"
attempt .claude/settings.local.json '{,}' "--claude --local" \
	"settings.local.json line 1, column 3" "settings.local.json"
attempt .codex/hooks.json '{"hooks": [}' --codex ".codex/hooks.json line 1" "Codex's hooks.json"
attempt .cursor/hooks.json '{"version": 1,\n}' --cursor \
	".cursor/hooks.json line 2, column 1: a trailing comma" "Cursor's hooks.json"
attempt .cursor/mcp.json '// servers\n{}' --cursor \
	".cursor/mcp.json line 1, column 1: a comment" "Cursor's mcp.json (checked before hooks.json is written)"
attempt .mcp.json '{"mcpServers": {"sbx": {"command": "/other"}}}' --mcp \
	'an MCP server named "sbx" exists already' "an .mcp.json whose sbx server is someone else's"

# A valid file, with a second client file broken: still nothing at all.
rm -rf "$FOLDER" "$SBX_CONFIG_DIR"
mkdir -p "$FOLDER/.claude" "$FOLDER/.cursor"
echo '{"model": "opus"}' >"$FOLDER/$S"
echo '{"hooks": {},}' >"$FOLDER/.cursor/hooks.json"
touch "$T/stamp"
sleep 0.01
"$SBX" init --claude --cursor "$FOLDER" >"$T/out" 2>"$T/err"
is "$?" "1" "one good and one broken client file: init fails"
is "$(cat "$FOLDER/$S")" '{"model": "opus"}' "the good file was not edited either"
nothing_written "one good and one broken client file"

# Fixed: init succeeds and keeps what the user had.
echo '{"hooks": {}}' >"$FOLDER/.cursor/hooks.json"
"$SBX" init --claude --cursor "$FOLDER" >"$T/out" 2>&1
ok $? "with the files fixed, init succeeds"
is "$(jq -r .model "$FOLDER/$S")" "opus" "and keeps the user's settings"
[ -d "$FOLDER/.sandbox" ] && grep -qx "$FOLDER" "$SBX_CONFIG_DIR/folders"
ok $? "and prepares and registers the folder"

done_testing
