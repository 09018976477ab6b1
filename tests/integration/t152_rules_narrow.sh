#!/usr/bin/env bash
# A remembered rule never covers more risk than the human saw: a prefix
# rule made from a plain `git push` does not auto-run a force push (real
# hook, real sbxd, a real local remote); always_ask is built in and
# configurable; `sbx rules test` says which rule would cover a command
# and why each would or would not.
. "$(dirname "$0")/lib.sh"

init_folder
set_limits '{"hook_wait_seconds": 1}'
start_daemon
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
git init -q --bare "$T/remote.git"
git -C "$FOLDER" init -q -b main
git -C "$FOLDER" remote add origin "$T/remote.git"
echo one >"$FOLDER/f.txt"
git -C "$FOLDER" add f.txt && git -C "$FOLDER" commit -qm one
remote_head() { git -C "$T/remote.git" rev-parse main 2>/dev/null; }
pending_of() { "$SBX" -C "$FOLDER" pending --json | jq -r --arg c "$1" '.[] | select(.command == $c) | .id'; }
has_pending_of() { [ -n "$(pending_of "$1")" ]; }
# id_of COMMAND: its pending request, once sbxd has taken it in (the hook
# answers "pending" after 1 s whether or not it has)
id_of() { wait_for 10 has_pending_of "$1"; pending_of "$1"; }

# A plain push, approved with a "git push" prefix rule.
hook_bash "git push origin main" >/dev/null
id=$(id_of "git push origin main")
[ -n "$id" ]
ok $? "a plain git push is escalated"
"$SBX" -C "$FOLDER" approve "$id" --prefix 'git push' >/dev/null
wait_for 10 test -f "$FOLDER/.sandbox/results/$id.json"
is "$(remote_head)" "$(git -C "$FOLDER" rev-parse main)" "approved, it pushed"
like "$("$SBX" -C "$FOLDER" rules list)" 'prefix +git push +up to medium \(network egress\)' \
	"the rule carries the risk it was approved at"

# Another plain push is covered (the first result handed back first).
like "$(hook_bash "git push origin main" | reason | head -1)" "ALREADY EXECUTED.*as request $id" \
	"the repeated call receives the first push's result"
echo two >>"$FOLDER/f.txt" && git -C "$FOLDER" commit -qam two
out=$(hook_bash "git push origin main")
like "$(echo "$out" | reason | head -1)" "remembered approval" "a second plain push runs under the rule"
is "$(remote_head)" "$(git -C "$FOLDER" rev-parse main)" "and pushed"
pushed=$(remote_head)

# A force push is not: not with any spelling of it.
git -C "$FOLDER" commit -q --amend -m rewritten
for c in "git push --force origin main" "git push -f origin main" "git push origin +main" \
	"git push --force-with-lease origin main" "git push '--force' origin main" \
	"git push -uf origin main" "git push --delete origin old" "git push origin :old" \
	"git push --mirror origin"; do
	out=$(hook_bash "$c")
	unlike "$(echo "$out" | reason)" "ALREADY EXECUTED" "the git push rule does not auto-run: $c"
done
is "$(remote_head)" "$pushed" "the remote's main was not rewritten"
id=$(id_of "git push --force origin main")
is "$("$SBX" -C "$FOLDER" show "$id" --json | jq -r .status)" "pending" \
	"the force push waits for a human"

# sbx rules test explains.
out=$("$SBX" -C "$FOLDER" rules test 'git push --force origin main')
is "$?" "1" "rules test: a force push is not covered (exit 1)"
like "$out" 'always_ask: matches "git push --force"' "it names the always_ask entry"
like "$out" 'rule 1 \(prefix "git push", approved at medium: network egress\): the call is on the always_ask list' \
	"and says why rule 1 does not cover it"
out=$("$SBX" -C "$FOLDER" rules test 'git push origin main')
is "$?" "0" "rules test: a plain push is covered (exit 0)"
like "$out" "covered by rule 1" "it names the rule"
like "$("$SBX" -C "$FOLDER" rules test 'git push origin main && rm -rf x')" \
	"its prefix does not start the command, or the command has shell syntax" \
	"shell syntax is explained"

# Risk and factors, without always_ask: a "curl -s" rule (network egress)
# covers no curl that also reads a secret.
"$SBX" -C "$FOLDER" rules add 'curl -s' >/dev/null
wait_for 10 bash -c "$SBX -C $FOLDER rules list | grep -q 'curl -s'"
like "$("$SBX" -C "$FOLDER" rules list)" 'curl -s +up to medium \(network egress\)' \
	"a rule added without a request is rated by its prefix"
out=$("$SBX" -C "$FOLDER" rules test 'curl -s -d @.env http://127.0.0.1:9/')
like "$out" "the call's risk is above the one the rule was approved at" \
	"a curl that reads a secret: its risk is above the rule's"
like "$(hook_bash 'curl -s -d @.env http://127.0.0.1:9/' | reason)" "pending as request" \
	"and sbxd does not run it under the rule"
like "$(hook_bash 'curl -s http://127.0.0.1:9/x' | reason | head -1)" "remembered approval" \
	"a curl at the rule's risk runs under it"

# Exact rules are bound by always_ask too: remembering a force push
# remembers nothing.
id=$(id_of "git push -f origin main")
"$SBX" -C "$FOLDER" approve "$id" --remember >/dev/null
wait_for 10 test -f "$FOLDER/.sandbox/results/$id.json"
wait_for 5 grep -q "request $id: not remembered" "$T/sbxd.log"
ok $? "approving a force push with --remember runs it once and remembers nothing"
unlike "$("$SBX" -C "$FOLDER" rules list)" "exact" "no exact rule was stored"

# always_ask is configurable, and validated.
p="$FOLDER/.sandbox/policy.json"
jq '.always_ask = ["git push --no-verify"]' "$p" >"$T/p" && mv "$T/p" "$p"
accept_policy
like "$("$SBX" -C "$FOLDER" rules test 'git push --no-verify origin main')" \
	'always_ask: matches "git push --no-verify"' "a policy always_ask entry is honoured"
like "$("$SBX" -C "$FOLDER" policy show | jq -c .always_ask)" '"git push --no-verify"' \
	"policy show lists it"
jq '.always_ask = ["git"]' "$p" >"$T/p" && mv "$T/p" "$p"
out=$("$SBX" -C "$FOLDER" policy accept 2>&1)
like "$out" 'always_ask: "git" is not an entry' "a bad always_ask entry is refused with a reason"

done_testing
