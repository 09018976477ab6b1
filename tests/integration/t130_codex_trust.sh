#!/usr/bin/env bash
# sbx init --codex makes the real Codex run sbx's hook: it writes the
# project and hook trust records into CODEX_HOME/config.toml (Codex skips
# an untrusted hook silently), merged into the user's file byte for byte,
# refused with the exact lines to add when it cannot edit safely, taken
# out exactly by sbx remove, and checked by sbx doctor. The records are
# read back with python3's tomllib (an independent TOML parser) and the
# hash recomputed with sha256sum.
. "$(dirname "$0")/lib.sh"

CFG="$CODEX_HOME/config.toml"
HJ="$FOLDER/.codex/hooks.json"
# toml EXPR: evaluates a Python expression over the parsed config as `c`.
toml() { python3 -c 'import sys, tomllib; c = tomllib.load(open(sys.argv[1], "rb")); print(eval(sys.argv[2]))' "$CFG" "$1" 2>&1; }
key() { printf '%s:pre_tool_use:0:0' "$HJ"; }
# The hash Codex computes: sha256 over the sorted, compact JSON identity.
want_hash() {
	local id
	id=$(jq -cS '{event_name: "pre_tool_use", hooks: [.hooks.PreToolUse[0].hooks[0]
		| {async: false, command, timeout, type}]}' "$HJ")
	printf 'sha256:%s' "$(printf '%s' "$id" | sha256sum | cut -d' ' -f1)"
}
codex_lines() { "$SBX" -C "$FOLDER" doctor 2>&1 | grep -E '^(ok|FAIL|warn|note) +Codex'; }

# ---- a fresh CODEX_HOME: the file is created, and removed again ------------
"$SBX" init --codex "$FOLDER" >"$T/init.out" 2>&1
ok $? "sbx init --codex succeeds"
like "$(cat "$T/init.out")" "Codex trusts this folder and sbx's hook: wrote $CFG" "it says it wrote the trust records"
is "$(toml "c['projects']['$FOLDER']['trust_level']")" "trusted" "config.toml trusts the project (tomllib)"
is "$(toml "c['hooks']['state']['$(key)']['trusted_hash']")" "$(want_hash)" \
	"and the hook, with the hash of its declaration"
is "$(stat -c %a "$CFG")" "600" "a config.toml sbx creates is private"
is "$(jq -r '.entries[] | select(.kind == "codex-trust") | "\(.file) \(.created_file)"' "$FOLDER/.sandbox/setup.json")" \
	"$CFG true" "setup.json records the edit"
codex_lines >"$T/doc1"
like "$(cat "$T/doc1")" "^ok +Codex: .codex/hooks.json runs sbx-hook codex" "doctor: Codex hook found and trusted"
unlike "$(cat "$T/doc1")" "^FAIL" "doctor: no Codex failure"
unlike "$("$SBX" -C "$FOLDER" doctor 2>&1)" "no sbx PreToolUse hook is registered" \
	"doctor: a Codex-only folder is not \"no hook registered\""
cp "$CFG" "$T/cfg.after1"
"$SBX" init --codex "$FOLDER" >"$T/init2.out" 2>&1
ok $? "init --codex again succeeds"
cmp -s "$CFG" "$T/cfg.after1"
ok $? "and changes nothing in config.toml"

# The hook changed (a new timeout): doctor says Codex would skip it; init fixes it.
jq '.hooks.PreToolUse[0].hooks[0].timeout = 400' "$HJ" >"$HJ.new" && mv "$HJ.new" "$HJ"
like "$(codex_lines)" "^FAIL +Codex: .*trusts another version of sbx's hook" "doctor: a changed hook is no longer trusted"
"$SBX" init --codex "$FOLDER" >/dev/null 2>&1
is "$(toml "c['hooks']['state']['$(key)']['trusted_hash']")" "$(want_hash)" "init again trusts the hook as it is now"
is "$(grep -c '^# >>> sbx codex trust' "$CFG")" "1" "with one block, replaced in place"
unlike "$(codex_lines)" "^FAIL" "doctor is green again"

"$SBX" remove "$FOLDER" >"$T/remove.out" 2>&1
ok $? "sbx remove succeeds"
! test -e "$CFG"
ok $? "the config.toml sbx created is gone"

# ---- the user's own config.toml: merged byte for byte -------------------------
mkdir -p "$CODEX_HOME"
printf '%s\n' '# my codex config' 'model = "o3"  # comment' '' '[projects."/elsewhere"]' \
	'trust_level = "trusted"' '[mcp_servers.other]' 'command = "x"' 'args = [' '  "a", # c' \
	'  "[projects.\"'"$FOLDER"'\"]",' ']' 'notes = """' "[projects.\"$FOLDER\"]" '"""' \
	"lit = '''" 'x = 1' "'''" '[hooks]' 'PreToolUse = []' >"$CFG"
printf 'when = 1979-05-27 07:32:00Z' >>"$CFG"     # no final newline
chmod 640 "$CFG"
cp "$CFG" "$T/user.toml"
"$SBX" init --codex "$FOLDER" >"$T/init3.out" 2>&1
ok $? "init --codex merges into the user's config.toml"
is "$(head -c "$(stat -c %s "$T/user.toml")" "$CFG" | cmp - "$T/user.toml" && echo same)" "same" \
	"the user's bytes come first, unchanged"
is "$(toml "(c['model'], c['projects']['/elsewhere']['trust_level'], c['mcp_servers']['other']['args'][0])")" \
	"('o3', 'trusted', 'a')" "the user's keys still parse"
is "$(toml "c['projects']['$FOLDER']['trust_level']")" "trusted" "the folder is trusted"
is "$(stat -c %a "$CFG")" "640" "the file's mode is kept"
"$SBX" remove "$FOLDER" >/dev/null 2>&1
cmp -s "$CFG" "$T/user.toml"
ok $? "sbx remove gives back the user's file exactly (final newline included)"

# ---- the user trusts the project already: sbx adds only the hook -------------
printf '[projects."%s"]\ntrust_level = "trusted"\n' "$FOLDER" >"$CFG"
cp "$CFG" "$T/user2.toml"
"$SBX" init --codex "$FOLDER" >/dev/null 2>&1
ok $? "init --codex with the project already trusted"
is "$(grep -c '^\[projects\.' "$CFG")" "1" "the project's table is not written twice"
is "$(toml "c['hooks']['state']['$(key)']['trusted_hash']")" "$(want_hash)" "the hook is trusted"
"$SBX" remove "$FOLDER" >/dev/null 2>&1
cmp -s "$CFG" "$T/user2.toml"
ok $? "remove leaves the user's own trust record"

# ---- refusals: nothing written, the exact lines printed, exit 1 ---------------
refuse() {	# refuse DESCRIPTION: init must fail and leave CFG alone
	cp "$CFG" "$T/before.toml" 2>/dev/null
	"$SBX" init --codex "$FOLDER" >"$T/r.out" 2>"$T/r.err"
	is "$?" "1" "$1: init --codex fails"
	cmp -s "$CFG" "$T/before.toml"
	ok $? "$1: config.toml is unchanged"
	like "$(cat "$T/r.err")" "will NOT run sbx's hook" "$1: it says Codex will not run the hook"
	like "$(tr '\n' ' ' <"$T/r.err")" "\\[projects\\.\"$FOLDER\"\\] trust_level = \"trusted\" \\[hooks\\.state\\.\"$(key)\"\\] trusted_hash = \"sha256:[0-9a-f]{64}\"" \
		"$1: and prints the exact lines to add"
	unlike "$(cat "$T/r.out")" "Codex trusts this folder" "$1: no claim of success"
}
printf '[projects."%s"]\ntrust_level = "untrusted"\n' "$FOLDER" >"$CFG"
refuse "the user marked the project untrusted"
like "$(cat "$T/r.err")" 'trust_level = "untrusted"; sbx will not override' "it names the user's decision"
printf 'projects = { "%s" = { trust_level = "trusted" } }\n' "$FOLDER" >"$CFG"
refuse "an inline projects table"
printf '[hooks.state."%s"]\nenabled = false\n' "$(key)" >"$CFG"
refuse "the user disabled the hook"
printf 'model = "o3"\nnotes = """\nnever closed\n' >"$CFG"
refuse "an unclosed multi-line string"
like "$(cat "$T/r.err")" "line [0-9]+: a multi-line string is not closed" "it says where the file could not be read"
printf 'x = [1, 2\n' >"$CFG"
refuse "an unclosed array"
printf '[[projects]]\nname = "x"\n' >"$CFG"
refuse "projects as an array of tables"
printf 'model = "o3"\n' >"$T/real.toml"
rm -f "$CFG"
ln -s "$T/real.toml" "$CFG"
refuse "a symlinked config.toml"
is "$(cat "$T/real.toml")" 'model = "o3"' "the symlink's target is untouched"
rm -f "$CFG"

# ---- the agent cannot take the trust records away --------------------------------
"$SBX" init --codex "$FOLDER" >/dev/null 2>&1
codex_call() {	# codex_call COMMAND: sbx-hook codex's answer for a Bash call
	jq -cn --arg c "$1" --arg cwd "$FOLDER" '{session_id: "s", turn_id: "t", cwd: $cwd,
	  hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: {command: $c},
	  tool_use_id: "c"}' | "$HOOK" codex >"$T/cc.out"
	# Codex's allow is no output at all
	if [ -s "$T/cc.out" ]; then jq -r '.hookSpecificOutput.permissionDecisionReason' "$T/cc.out"
	else echo allowed; fi
}
like "$(codex_call "sed -i '/trusted_hash/d' $CFG")" "self-protection" \
	"an agent's edit of \$CODEX_HOME/config.toml is denied (self-protection)"
inside="$FOLDER/codex-home"
mkdir -p "$inside"
like "$(CODEX_HOME=$inside codex_call "echo > codex-home/config.toml")" "self-protection" \
	"also when CODEX_HOME is inside the project"
is "$(codex_call "echo > codex-home/config.toml")" "allowed" "(the same path is ordinary project space otherwise)"
rmdir "$inside"
"$SBX" remove "$FOLDER" >/dev/null 2>&1

# ---- two folders: two blocks, each removed on its own ----------------------------
two="$T/second"
mkdir -p "$two"
"$SBX" init --codex "$FOLDER" >/dev/null 2>&1 && "$SBX" init --codex "$two" >/dev/null 2>&1
ok $? "init --codex in two folders"
is "$(toml "sorted(c['projects'])")" "['$FOLDER', '$two']" "config.toml trusts both"
"$SBX" remove "$FOLDER" >/dev/null 2>&1
is "$(toml "(sorted(c['projects']), len(c['hooks']['state']))")" "(['$two'], 1)" \
	"removing one folder leaves the other's records, still valid TOML"
"$SBX" remove "$two" >/dev/null 2>&1
! test -e "$CFG"
ok $? "removing the second one deletes the file init created"

# ---- a hostile folder name: quotes and backslashes stay inside the key --------
odd="$T/we\"ird\\dir [x]"
mkdir -p "$odd"
"$SBX" init --codex "$odd" >"$T/odd.out" 2>&1
ok $? "init --codex in a folder whose name holds a quote, a backslash and brackets"
is "$(python3 -c 'import sys, tomllib; c = tomllib.load(open(sys.argv[1], "rb")); print(c["projects"][sys.argv[2]]["trust_level"], len(c["projects"]))' "$CFG" "$odd")" \
	"trusted 1" "tomllib reads back exactly that folder, and only it"
"$SBX" remove "$odd" >/dev/null 2>&1
! test -e "$CFG"
ok $? "and remove takes it out"

done_testing
