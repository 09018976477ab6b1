#!/usr/bin/env bash
# The policy a human accepted: the hook and sbxd use policy.json only if
# its exact bytes carry a trusted approver's acceptance.
. "$(dirname "$0")/lib.sh"

P="$FOLDER/.sandbox/policy.json"
init_folder
like "$(cat "$T/init.out")" "accepted the default policy" "sbx init accepts the default policy it writes"
is "$(hook_bash "ls" | decision)" "allow" "an accepted policy is used"

jq '.allow = ["Bash(make:*)"]' "$P" >"$T/p" && mv "$T/p" "$P"
out=$(hook_bash "ls")
is "$(echo "$out" | decision)" "deny" "a changed, unaccepted policy.json denies every call"
like "$(echo "$out" | reason)" "changed since .* accepted it.*sbx -C $FOLDER policy accept" \
	"and says which command to run"
"$SBX" -C "$FOLDER" policy accept >/dev/null
ok $? "sbx policy accept"
is "$(hook_bash "ls" | decision)" "allow" "after accepting, the policy is used"

# An acceptance by a key sbxd does not trust is no acceptance.
cp "$FOLDER/.sandbox/policy.accepted" "$T/accepted.good"
mkdir -p "$T/m"
SBX_CONFIG_DIR="$T/mallory" "$SBX" init --name mallory "$T/m" >/dev/null
SBX_CONFIG_DIR="$T/mallory" "$SBX" -C "$FOLDER" policy accept >/dev/null
like "$(hook_bash "ls" | reason)" "not a trusted approver key" "an acceptance by an untrusted key is refused"
jq -c '.hash = "00" * 32' "$T/accepted.good" >"$FOLDER/.sandbox/policy.accepted"
like "$(hook_bash "ls" | reason)" "bad signature" "an edited acceptance is refused"
rm "$FOLDER/.sandbox/policy.accepted"
like "$(hook_bash "ls" | reason)" "no accepted policy" "a missing acceptance is refused"
cp "$T/accepted.good" "$FOLDER/.sandbox/policy.accepted"
is "$(hook_bash "ls" | decision)" "allow" "the real acceptance works again"

# sbxd fails closed too.
setup_task
set_limits '{"hook_wait_seconds": 1}'
start_daemon
id2=$(hook_bash "./task.sh y" | reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
wait_for 10 has_pending
jq '.comment = "changed behind the human"' "$P" >"$T/p" && mv "$T/p" "$P"
# Drop a request file directly (as agent code could) while the policy is unaccepted.
cp "$FOLDER/.sandbox/pending/$id2.json" "$T/r.json"
nid="${id2:0:8}99999999"
jq -c --arg id "$nid" '.id = $id' "$T/r.json" >"$FOLDER/.sandbox/queue/tmp/x"
mv "$FOLDER/.sandbox/queue/tmp/x" "$FOLDER/.sandbox/queue/new/$nid.json"
wait_for 10 test -f "$FOLDER/.sandbox/results/$nid.json"
ok $? "sbxd answers a request that arrives while the policy is unaccepted"
is "$(jq -r .status "$FOLDER/.sandbox/results/$nid.json")" "rejected" "by rejecting it"
like "$(jq -r .reason "$FOLDER/.sandbox/results/$nid.json")" "policy accept" "saying the policy must be accepted"

# sbx policy edit: like visudo.
cat >"$T/ed-good" <<'SH'
#!/bin/sh
jq '.comment = "edited in the editor"' "$1" >"$1.new" && mv "$1.new" "$1"
SH
cat >"$T/ed-bad" <<'SH'
#!/bin/sh
echo '{"allowWirte": [' >"$1"
SH
chmod +x "$T/ed-good" "$T/ed-bad"
before=$(sha256sum "$P")
EDITOR="$T/ed-bad" "$SBX" -C "$FOLDER" policy edit </dev/null >/dev/null 2>"$T/err"
[ $? -ne 0 ]
ok $? "an edit that does not validate fails"
like "$(cat "$T/err")" "policy.json|unchanged" "and says the policy is unchanged"
is "$(sha256sum "$P")" "$before" "policy.json is untouched"
EDITOR="$T/ed-good" "$SBX" -C "$FOLDER" policy edit >/dev/null
ok $? "a valid edit installs"
is "$(jq -r .comment "$P")" "edited in the editor" "with the edited content"
is "$(hook_bash "ls" | decision)" "allow" "and is accepted at once"

done_testing
