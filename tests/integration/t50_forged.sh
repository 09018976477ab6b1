#!/usr/bin/env bash
# Decisions sbxd must reject: every way to approve without the human.
. "$(dirname "$0")/lib.sh"

FORGE="$TOOLS/forge"
init_folder
setup_task
set_limits '{"hook_wait_seconds": 1}'
start_daemon

queue() {	# queue CMD: escalates CMD, prints its id once pending
	local out id
	out=$(hook_bash "$1")
	id=$(echo "$out" | reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
	wait_for 10 bash -c "$SBX -C $FOLDER pending --json | jq -e '.[] | select(.id == \"$id\")'"
	echo "$id"
}
hash_of() { "$SBX" -C "$FOLDER" show "$1" --json | jq -r .hash; }
status_of() { "$SBX" -C "$FOLDER" show "$1" --json | jq -r .status; }
rejected_for() {	# rejected_for NAME REGEX: NAME was moved aside with that reason
	wait_for 10 bash -c "ls $FOLDER/.sandbox/rejected/ | grep -q -- '-$1.why\$'" &&
		grep -Eq -- "$2" "$FOLDER"/.sandbox/rejected/*-"$1".why
}

a=$(queue "./task.sh a")
b=$(queue "./task.sh b")
ha=$(hash_of "$a")
hb=$(hash_of "$b")

# A second, untrusted approver key.
mkdir -p "$T/mallory-proj"
SBX_CONFIG_DIR="$T/mallory" "$SBX" init --name mallory "$T/mallory-proj" >/dev/null

n=$("$FORGE" "$SBX_CONFIG_DIR" "$FOLDER" "$a" "$ha" approve badsig=1)
check "a decision with a broken signature is rejected" rejected_for "$n" "bad signature"
n=$("$FORGE" "$T/mallory" "$FOLDER" "$a" "$ha" approve)
check "a decision signed by an unknown key is rejected" rejected_for "$n" "not a trusted approver key"
n=$("$FORGE" "$SBX_CONFIG_DIR" "$FOLDER" "$a" "$hb" approve)
check "a decision bound to another request's hash is rejected" rejected_for "$n" "bound to another request"
n=$("$FORGE" "$SBX_CONFIG_DIR" "$FOLDER" "$a" "$ha" approve expires=-5)
check "an expired decision is rejected" rejected_for "$n" "expired"
n=$("$FORGE" "$SBX_CONFIG_DIR" "$FOLDER" "$a" "$ha" approve approver=mallory)
check "a decision claiming another approver's name is rejected" rejected_for "$n" "does not match the key"
n=$("$FORGE" "$SBX_CONFIG_DIR" "$FOLDER" "0123456789abcdef" "$ha" approve)
check "a decision for a request that does not exist is rejected" rejected_for "$n" "no such request"
n=$("$FORGE" "$SBX_CONFIG_DIR" "$FOLDER" "$a" "$ha" approve name=$b.0123456789abcdef0123456789abcdef.json)
check "a decision whose file name names another request is rejected" rejected_for "$n" "does not match"

# Unsigned and malformed decision files.
printf '{"v":1,"request":"%s","verdict":"approve"}' "$a" >"$T/d.json"
mv "$T/d.json" "$FOLDER/.sandbox/decisions/new/$a.00000000000000000000000000000001.json"
check "an unsigned decision is rejected" rejected_for "$a.00000000000000000000000000000001.json" "missing"
printf 'not json' >"$T/d.json"
mv "$T/d.json" "$FOLDER/.sandbox/decisions/new/$a.00000000000000000000000000000002.json"
check "a decision that is not JSON is rejected" rejected_for "$a.00000000000000000000000000000002.json" "not a JSON object"
ln -s /etc/passwd "$FOLDER/.sandbox/decisions/new/$a.00000000000000000000000000000003.json"
check "a symlinked decision is rejected" rejected_for "$a.00000000000000000000000000000003.json" "symlink"
head -c 100000 /dev/zero >"$FOLDER/.sandbox/decisions/new/$a.00000000000000000000000000000004.json"
check "an oversize decision is rejected" rejected_for "$a.00000000000000000000000000000004.json" "too large"
echo x >"$FOLDER/.sandbox/decisions/new/approve-everything.json"
check "a wrongly named decision file is rejected" rejected_for "approve-everything.json" "not a decision file name"
is "$(status_of "$a")" "pending" "after all that, request a is still pending"
is "$(runs)" "0" "and nothing ran"

# The real approval works once; its replay is rejected.
n=$("$FORGE" "$SBX_CONFIG_DIR" "$FOLDER" "$a" "$ha" approve nonce=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa)
wait_for 10 test -f "$FOLDER/.sandbox/results/$a.json"
ok $? "a correctly signed approval runs the request"
is "$(runs)" "1" "once"
n=$("$FORGE" "$SBX_CONFIG_DIR" "$FOLDER" "$a" "$ha" approve nonce=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa)
check "replaying the same decision is rejected" rejected_for "$n" "replayed"
n=$("$FORGE" "$SBX_CONFIG_DIR" "$FOLDER" "$a" "$ha" approve)
check "a second approval for a finished request is rejected" rejected_for "$n" "not pending"
sleep 0.5
is "$(runs)" "1" "the command never ran twice"
is "$(status_of "$b")" "pending" "request b was never touched"
kill -0 "$DPID"
ok $? "sbxd is still running"

done_testing
