#!/usr/bin/env bash
# The docs and the code agree, checked from the docs' own text:
# - the environment README promises to commands sbxd executes is exactly
#   what a real executed command gets: the listed variables, --pass-env
#   names, and SBX_REQUEST_ID (this request's id, which --pass-env and the
#   environment cannot forge); nothing else of sbxd's environment;
# - a real decision file written by `sbx approve` has exactly the signed
#   fields docs/QUEUE.md lists (plus "v" and "sig"); the order and the
#   signature itself are checked by tests/unit/test_docs.c;
# - every SBX_* variable the programs read is documented, and every one
#   the docs name exists somewhere in the code, scripts or Makefile.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

# --- The documented environment of executed commands ----------------------
doc_env=$(tr '\n' ' ' <"$ROOT/README.md" |
	sed -nE 's/.*Commands run by `sbxd` get only `([A-Z_ ]+)` \(plus `--pass-env` names\) and `(SBX_[A-Z_]+)`.*/\1 \2/p')
like "$doc_env" "^PATH .* SBX_REQUEST_ID$" "README lists the variables executed commands get"

init_folder
cat >"$FOLDER/envdump.sh" <<'SH'
#!/bin/sh
env >"$(dirname "$0")/env.out"
SH
chmod +x "$FOLDER/envdump.sh"
add_rule escalate 'Bash(./envdump.sh:*)'
set_limits '{"hook_wait_seconds": 20}'
: >"$T/sbxd.log"
FOO_PASSED=yes FOO_DROPPED=no SBX_REQUEST_ID=forged TZ=UTC SSH_AUTH_SOCK=/tmp/agent.sock \
	"$SBXD" --pass-env FOO_PASSED --pass-env SBX_REQUEST_ID "$FOLDER" 2>>"$T/sbxd.log" &
DPID=$!
wait_for 10 grep -q serving "$T/sbxd.log"
ok $? "sbxd starts with --pass-env FOO_PASSED --pass-env SBX_REQUEST_ID"
hook_bash "./envdump.sh" >"$T/hook.out" &
hp=$!
wait_for 10 has_pending
id=$(pending_ids | head -1)
"$SBX" -C "$FOLDER" approve "$id" >/dev/null 2>&1
ok $? "the env dump is approved"
wait "$hp"
wait_for 10 test -s "$FOLDER/env.out"
ok $? "sbxd ran it"
got=$(cut -d= -f1 "$FOLDER/env.out" | grep -vxE 'PWD|OLDPWD|SHLVL|_' | sort | tr '\n' ' ')
want=""
for v in $doc_env FOO_PASSED; do
	# a documented variable is passed only when sbxd itself has it
	if [ "$v" = SBX_REQUEST_ID ] || [ "$v" = FOO_PASSED ] || [ "$v" = TZ ] ||
		[ "$v" = SSH_AUTH_SOCK ] || printenv "$v" >/dev/null; then
		want="$want$v"$'\n'
	fi
done
want=$(printf '%s' "$want" | sort | tr '\n' ' ')
is "$got" "$want" "the command got exactly the documented variables (the shell's own PWD aside)"
is "$(grep '^SBX_REQUEST_ID=' "$FOLDER/env.out")" "SBX_REQUEST_ID=$id" \
	"SBX_REQUEST_ID is this request's id, not the forged one sbxd was given"
unlike "$(cat "$FOLDER/env.out")" "FOO_DROPPED" "a variable not named is dropped"
# a second request, left pending while sbxd stops: its decision file stays
hook_bash "./envdump.sh again" >/dev/null &
hp=$!
wait_for 10 has_pending
id=$(pending_ids | head -1)
stop_daemon

# --- The signed decision fields, from a real decision file ---------------
doc_fields=$(sed -n '/<!-- signed-decision-fields: begin -->/,/<!-- signed-decision-fields: end -->/p' \
	"$ROOT/docs/QUEUE.md" | sed -nE 's/^[0-9]+\. `([a-z_]+)`.*/\1/p' | sort | tr '\n' ' ')
like "$doc_fields" "request " "docs/QUEUE.md lists the signed decision fields"
"$SBX" -C "$FOLDER" approve "$id" >/dev/null 2>&1
dec=$(find "$FOLDER/.sandbox/decisions/new" -name "$id.*.json" | head -1)
[ -n "$dec" ]
ok $? "sbx approve wrote a decision file (sbxd is stopped, so it stays)"
is "$(jq -r 'keys[] | select(. != "v" and . != "sig")' "$dec" 2>/dev/null | sort | tr '\n' ' ')" \
	"$doc_fields" "its fields are exactly the documented signed ones (and v, sig)"
# sbxd again: it takes the decision, runs the command, and the hook returns.
start_daemon
wait "$hp"
stop_daemon

# --- SBX_* variables: read => documented, documented => exists ----------
docs=$(cat "$ROOT/README.md" "$ROOT"/docs/*.md "$ROOT"/docs/man/* 2>/dev/null)
for v in $(grep -rhoE 'getenv\("SBX_[A-Z_]+"\)' "$ROOT"/common "$ROOT"/policy "$ROOT"/hook \
	"$ROOT"/daemon "$ROOT"/approver | sed -E 's/getenv\("(.*)"\)/\1/' | sort -u); do
	printf '%s' "$docs" | grep -q "\\b$v\\b"
	ok $? "$v, read by the programs, is documented"
done
for v in $(printf '%s' "$docs" | grep -oE '\bSBX_[A-Z][A-Z_]+' | sort -u); do
	grep -rqw "$v" "$ROOT"/common "$ROOT"/policy "$ROOT"/hook "$ROOT"/daemon "$ROOT"/approver \
		"$ROOT"/tests "$ROOT"/contrib "$ROOT"/Makefile "$ROOT"/.ci
	ok $? "$v, named in the docs, exists in the code"
done

done_testing
