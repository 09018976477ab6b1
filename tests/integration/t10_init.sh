#!/usr/bin/env bash
# sbx init: the folder layout, the approver key, idempotence.
. "$(dirname "$0")/lib.sh"

"$SBX" init "$FOLDER" >"$T/init1.out" 2>&1
ok $? "sbx init succeeds"
is "$(stat -c %a "$FOLDER/.sandbox")" "700" ".sandbox is mode 0700"
for d in queue/tmp queue/new queue/delivered decisions/tmp decisions/new pending done results rejected work; do
	test -d "$FOLDER/.sandbox/$d" || echo "# missing $d"
done
test -d "$FOLDER/.sandbox/queue/new" && test -d "$FOLDER/.sandbox/decisions/new" && test -d "$FOLDER/.sandbox/results"
ok $? "the queue directories exist"
jq -e . "$FOLDER/.sandbox/policy.json" >/dev/null
ok $? "a default policy.json is written, valid JSON"
is "$(stat -c %a "$SBX_CONFIG_DIR/approver.key")" "600" "the secret key is mode 0600"
is "$(stat -c %a "$SBX_CONFIG_DIR")" "700" "the config dir is mode 0700"
pub=$(ls "$SBX_CONFIG_DIR/approvers/")
is "$pub" "$(id -un).pub" "the approver's public key is trusted under its name"
like "$(cat "$SBX_CONFIG_DIR/approvers/$pub")" '^[0-9a-f]{64}$' "the public key is 64 hex digits"
like "$(cat "$T/init1.out")" "sbxd $FOLDER" "init says what to run next"

sums() { find "$FOLDER/.sandbox" "$SBX_CONFIG_DIR" -type f -exec sha256sum {} + | sort; }
before=$(sums)
echo '{"version": 1, "allow": ["Bash(make:*)"]}' >"$FOLDER/.sandbox/policy.json"
edited=$(sums)
"$SBX" init "$FOLDER" >/dev/null 2>&1
ok $? "sbx init runs again"
is "$(sums)" "$edited" "a second init changes nothing (keeps the edited policy and the key)"
[ "$before" != "$edited" ]
ok $? "(the policy edit was real)"

# Config dir resolution: XDG_CONFIG_HOME, then HOME.
mkdir -p "$T/p2" "$T/xdg"
env -u SBX_CONFIG_DIR XDG_CONFIG_HOME="$T/xdg" "$SBX" init "$T/p2" >/dev/null 2>&1
test -f "$T/xdg/sbx/approver.key"
ok $? "without SBX_CONFIG_DIR the key goes to \$XDG_CONFIG_HOME/sbx"
mkdir -p "$T/home"
env -u SBX_CONFIG_DIR -u XDG_CONFIG_HOME HOME="$T/home" "$SBX" init "$T/p2" >/dev/null 2>&1
test -f "$T/home/.config/sbx/approver.key"
ok $? "else to ~/.config/sbx"

# Errors.
"$SBX" init "$T/does-not-exist" 2>"$T/err"
is "$?" "1" "init of a missing folder fails"
like "$(cat "$T/err")" "does-not-exist" "and names it"
touch "$T/p3"; mkdir -p "$T/p4"; touch "$T/p4/.sandbox"
"$SBX" init "$T/p4" 2>"$T/err"
is "$?" "1" "init refuses a .sandbox that is not a directory"
"$SBX" bogus 2>/dev/null
is "$?" "2" "an unknown command is a usage error (2)"
"$SBX" --help | grep -q approve
ok $? "sbx --help lists the commands"

done_testing
