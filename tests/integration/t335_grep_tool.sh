#!/usr/bin/env bash
# Claude Code's Grep tool (ripgrep inside) reads the files below its path
# (default: the working directory), as grep -r does: in a project whose
# .env holds a key, a Grep over the project is not allowed by the real
# hook (sbx-hook pre, the PreToolUse payload Claude Code sends), nor by
# sbx policy check --hook-json; over a clean subtree, or narrowed by a
# glob or type that selects no denyRead name, it passes; a glob that
# selects one, a negation, several globs in one word and an unknown type
# do not narrow. Without the .env the same call passes (each call looks
# again).
. "$(dirname "$0")/lib.sh"

init_folder
ok $? "sbx init"
set_limits '{"hook_wait_seconds": 1}'
mkdir -p "$FOLDER/src" "$FOLDER/hid"
echo 'int main(void) { return 0; }' >"$FOLDER/src/a.c"
echo 'API_KEY=s3cret-t335' >"$FOLDER/.env"
echo 'token' >"$FOLDER/hid/.npmrc"

grep_payload() {	# grep_payload INPUT-JSON: a Grep call in the project
	payload Grep "$1" "$FOLDER"
}
hook_grep() { grep_payload "$1" | CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre; }
check_grep() {
	grep_payload "$1" >"$T/p.json"
	"$SBX" -C "$FOLDER" policy check --hook-json "$T/p.json" 2>/dev/null |
		jq -r .verdict
}

for i in '{"pattern": "API_KEY"}' '{"pattern": "API_KEY", "path": "."}' \
	"{\"pattern\": \"API_KEY\", \"path\": \"$FOLDER\"}" \
	'{"pattern": "x", "path": "hid"}' \
	'{"pattern": "API_KEY", "glob": ".env*"}' \
	'{"pattern": "API_KEY", "glob": "!*.c"}' \
	'{"pattern": "API_KEY", "glob": "*.c *.env"}' \
	'{"pattern": "API_KEY", "glob": "*.c,.env"}' \
	'{"pattern": "API_KEY", "glob": "*.{c,env}"}' \
	'{"pattern": "API_KEY", "type": "nosuchtype"}' \
	'{"pattern": "API_KEY", "output_mode": "files_with_matches"}'; do
	d=$(hook_grep "$i" 2>/dev/null | decision)
	[ -n "$d" ] && [ "$d" != allow ]
	ok $? "sbx-hook: Grep $i is not allowed (${d:-no answer})"
	is "$(check_grep "$i")" escalate "policy check: Grep $i escalates"
done
for i in '{"pattern": "main", "path": "src"}' \
	'{"pattern": "main", "glob": "*.c"}' '{"pattern": "main", "glob": "**/*.c"}' \
	'{"pattern": "main", "glob": "*.{c,h}"}' '{"pattern": "main", "type": "c"}' \
	'{"pattern": "main", "path": "src/a.c"}'; do
	is "$(hook_grep "$i" 2>/dev/null | decision)" allow "sbx-hook: Grep $i is allowed"
done

# Each call looks again: without the .env and the .npmrc, a Grep of the
# whole project passes.
rm -f "$FOLDER/.env" "$FOLDER/hid/.npmrc"
is "$(hook_grep '{"pattern": "API_KEY"}' 2>/dev/null | decision)" allow \
	"sbx-hook: without .env, Grep over the project is allowed"
echo 'X=1' >"$FOLDER/src/.env.local"
d=$(hook_grep '{"pattern": "X"}' 2>/dev/null | decision)
[ -n "$d" ] && [ "$d" != allow ]
ok $? "sbx-hook: a new src/.env.local: not allowed again (${d:-no answer})"

done_testing
