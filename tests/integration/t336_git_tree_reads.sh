#!/usr/bin/env bash
# git reads the files it tracks without naming them: in a real repository
# whose tracked .env holds a key, git grep KEY, git ls-files | xargs cat
# and git diff --no-index print it (the reads are real), and sbx policy
# check and the real hook (sbx-hook pre) do not allow them; over a clean
# subtree they pass.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || skip_all "git is not installed"
init_folder
ok $? "sbx init"
set_limits '{"hook_wait_seconds": 1}'
mkdir -p "$FOLDER/src"
echo 'int main(void) { return 0; }' >"$FOLDER/src/a.c"
echo 'API_KEY=s3cret-t336' >"$FOLDER/.env"
(cd "$FOLDER" && git init -q . && git add src/a.c .env &&
	git -c user.name=t -c user.email=t@t commit -qm t) >/dev/null 2>&1
ok $? "a repository tracking .env"

verdict() {
	(cd "$FOLDER" && "$SBX" -C "$FOLDER" policy check --json -- "$1" 2>/dev/null) |
		jq -r .verdict
}

# The attack is real: these lines print the key.
for c in "git grep API_KEY" "git ls-files | xargs cat" "git ls-files -z | xargs -0 cat" \
	"git grep -e API_KEY HEAD" "git diff --no-index /dev/null .env"; do
	(cd "$FOLDER" && eval "$c" 2>/dev/null) | grep -q s3cret-t336
	ok $? "$c prints the key (the read is real)"
	is "$(verdict "$c")" escalate "escalated: $c"
	d=$(hook_bash "$c" 2>/dev/null | decision)
	[ -n "$d" ] && [ "$d" != allow ]
	ok $? "sbx-hook: $c is not allowed (${d:-no answer})"
done
for c in "git grep main src" "git ls-files src | xargs cat" "git grep main -- '*.c'" \
	"git -C src grep main"; do
	is "$(verdict "$c")" allow "allowed: $c"
	is "$(hook_bash "$c" 2>/dev/null | decision)" allow "sbx-hook: $c is allowed"
done

done_testing
