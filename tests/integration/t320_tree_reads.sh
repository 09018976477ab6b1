#!/usr/bin/env bash
# Tree walkers read the denyRead files of the trees they walk, and the
# policy looks at the tree when the call is judged: in a project whose
# .env holds a key, grep -r, rg -uu, find -exec cat and find | xargs cat
# over the project are escalated by sbx policy check and by the real hook
# (sbx-hook pre, the payload Claude Code sends), the same over a clean
# subtree pass, and once the .env is gone the same line passes (each call
# looks again). The commands are also run for real, to show they do read
# the key. Also: xargs -a LIST and cat $(cat LIST) (names from a file).
. "$(dirname "$0")/lib.sh"

init_folder
ok $? "sbx init"
set_limits '{"hook_wait_seconds": 1}'
mkdir -p "$FOLDER/src" "$T/secret"
echo 'int main(void) { return 0; }' >"$FOLDER/src/a.c"
echo 'API_KEY=s3cret-t320' >"$FOLDER/.env"
echo 'ssh key t320' >"$T/secret/id_rsa"
printf '.env\n' >"$FOLDER/list.txt"

verdict() {	# verdict CMD: what sbx policy check says of CMD in the project
	(cd "$FOLDER" && "$SBX" -C "$FOLDER" policy check --json -- "$1" 2>/dev/null) |
		jq -r .verdict
}

# The attack is real: these lines print the key.
(cd "$FOLDER" && grep -r API_KEY . 2>/dev/null) | grep -q s3cret-t320
ok $? "grep -r API_KEY . prints the key of .env (the read is real)"
(cd "$FOLDER" && find . -type f | xargs cat 2>/dev/null) | grep -q s3cret-t320
ok $? "find . -type f | xargs cat prints it too"
(cd "$FOLDER" && xargs -a list.txt cat 2>/dev/null) | grep -q s3cret-t320
ok $? "xargs -a list.txt cat prints it too"

for c in "grep -r API_KEY ." "grep -rn API_KEY" "grep --directories=recurse API_KEY ." \
	"rg -uu API_KEY" "rg --hidden API_KEY ." "find . -type f -exec cat {} +" \
	"find . -type f | xargs cat" "cat \$(find . -type f)" "ls -a | xargs cat" \
	"env grep -r API_KEY ." "timeout 5 rg -uu API_KEY" \
	"xargs -a list.txt cat" "xargs --arg-file=list.txt cat" "cat \$(cat list.txt)"; do
	is "$(verdict "$c")" escalate "escalated: $c"
done
for c in "grep -rn main src" "rg main src" "find src -type f -exec cat {} +" \
	"find src -type f | xargs cat" "rg API_KEY" "grep -r --include='*.c' main ."; do
	is "$(verdict "$c")" allow "allowed: $c"
done

# A link inside src to a key outside: grep -r does not follow it, -R does.
ln -s "$T/secret/id_rsa" "$FOLDER/src/key"
is "$(verdict "grep -r x src")" allow "grep -r x src: the link inside is not followed"
is "$(verdict "grep -R x src")" escalate "grep -R x src: the link is followed to $T/secret/id_rsa"
rm -f "$FOLDER/src/key"

# Through the real hook: escalated (no sbxd here: the hook answers after
# its wait, never with allow), and the clean subtree allowed.
d=$(hook_bash "grep -r API_KEY ." 2>/dev/null | decision)
[ -n "$d" ] && [ "$d" != allow ]
ok $? "sbx-hook: grep -r API_KEY . is not allowed (${d:-no answer})"
d=$(hook_bash "find . | xargs cat" 2>/dev/null | decision)
[ -n "$d" ] && [ "$d" != allow ]
ok $? "sbx-hook: find . | xargs cat is not allowed (${d:-no answer})"
is "$(hook_bash "grep -rn main src" 2>/dev/null | decision)" allow \
	"sbx-hook: grep -rn main src is allowed"

# Each call looks again: without the .env the same line passes.
rm -f "$FOLDER/.env"
is "$(verdict "grep -r API_KEY .")" allow "without .env: grep -r API_KEY . passes"
is "$(hook_bash "grep -r API_KEY ." 2>/dev/null | decision)" allow \
	"sbx-hook: without .env, grep -r API_KEY . is allowed"
echo 'X=1' >"$FOLDER/src/.env.local"
is "$(verdict "grep -r API_KEY .")" escalate "a new src/.env.local: escalated again"

done_testing
