#!/usr/bin/env bash
# A remote approver over SSH: a real sshd on 127.0.0.1 with a throwaway
# host key; the approver's key may only run `sbx ssh-command`.
. "$(dirname "$0")/lib.sh"

SSHD=/usr/sbin/sshd
if [ ! -x "$SSHD" ] || ! command -v ssh >/dev/null; then
	echo "not ok 1 - openssh-server and openssh-client are needed (contrib/install-deps.sh installs them)"
	echo "1..1"
	exit 1
fi

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1}'
start_daemon

# A second approver, alice, with her own key, trusted by sbxd.
mkdir -p "$T/alice-proj"
SBX_CONFIG_DIR="$T/alice" "$SBX" init --name alice "$T/alice-proj" >/dev/null
pub=$(SBX_CONFIG_DIR="$T/alice" "$SBX" approvers self | cut -d' ' -f2)
"$SBX" approvers add alice "$pub" >/dev/null
ok $? "sbx approvers add trusts alice's key"
like "$("$SBX" approvers list)" "^alice " "sbx approvers list shows her"
"$SBX" approvers add alice "$pub" 2>/dev/null
is "$?" "1" "adding the same name twice is refused"
"$SBX" approvers add bob nothex 2>/dev/null
is "$?" "2" "a malformed public key is refused"

# sshd: throwaway host key and config, loopback only.
mkdir -p "$T/ssh" /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$T/ssh/host" >/dev/null
ssh-keygen -q -t ed25519 -N '' -f "$T/ssh/client" >/dev/null
printf 'restrict,pty,command="env SBX_CONFIG_DIR=%s %s ssh-command -C %s" %s\n' \
	"$T/alice" "$SBX" "$FOLDER" "$(cat "$T/ssh/client.pub")" >"$T/ssh/authorized_keys"
chmod 600 "$T/ssh/authorized_keys"
# A random port may be taken (another test's server): then sshd cannot
# bind, writes no pid file, and another port is tried.
for _ in 1 2 3 4 5; do
port=$(( 20000 + RANDOM % 20000 ))
cat >"$T/ssh/sshd_config" <<CONF
Port $port
ListenAddress 127.0.0.1
HostKey $T/ssh/host
AuthorizedKeysFile $T/ssh/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PidFile $T/ssh/sshd.pid
CONF
rm -f "$T/ssh/sshd.log"
"$SSHD" -f "$T/ssh/sshd_config" -E "$T/ssh/sshd.log"
wait_for 10 sh -c '[ -s "$1" ] || grep -q "Cannot bind" "$2"' sh "$T/ssh/sshd.pid" "$T/ssh/sshd.log"
[ -s "$T/ssh/sshd.pid" ] && break
done
test -s "$T/ssh/sshd.pid"
ok $? "a real sshd listens on 127.0.0.1:$port"
SPID=$(cat "$T/ssh/sshd.pid")
trap 'kill $SPID 2>/dev/null; cleanup' EXIT

rssh() {
	ssh -q -p "$port" -i "$T/ssh/client" -o BatchMode=yes -o StrictHostKeyChecking=no \
		-o UserKnownHostsFile=/dev/null "$(id -un)@127.0.0.1" "$@"
}

out=$(hook_bash "./task.sh remote")
id=$(echo "$out" | reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
wait_for 10 has_pending
is "$(rssh sbx pending --json | jq -r '.[0].id')" "$id" "sbx pending --json works over SSH"
like "$(rssh sbx show "$id")" "task.sh remote" "sbx show works over SSH"
rssh sbx approve "$id" >"$T/approve.out" 2>&1
ok $? "sbx approve works over SSH"
wait_for 10 test -f "$FOLDER/.sandbox/results/$id.json"
is "$(jq -r '.status + " " + .approver' "$FOLDER/.sandbox/results/$id.json")" "done alice" \
	"the request ran, approved by alice's own key"
is "$(runs)" "1" "once"

out=$(hook_bash "./task.sh remote-deny")
id=$(echo "$out" | reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
wait_for 10 has_pending
rssh "sbx deny $id --reason 'not from here'" >/dev/null 2>&1
wait_for 10 test -f "$FOLDER/.sandbox/results/$id.json"
is "$(jq -r '.status + ": " + .reason' "$FOLDER/.sandbox/results/$id.json")" "denied: not from here" \
	"sbx deny with a quoted reason works over SSH"

out=$(printf 'l\nq\n' | rssh sbx watch 2>&1)
like "$out" "commands: l, a ID" "sbx watch without a terminal runs in line mode over SSH"

# Everything else is refused.
for bad in "ls /" "sbx init /tmp" "sbx remove $FOLDER" "sbx approve x; touch $T/pwned" \
	"sbx pending \$(touch $T/pwned)" "sbx -C /tmp pending" "bash -i" "sbx watch --all" \
	"sbx approvers add eve 00"; do
	rssh "$bad" >/dev/null 2>"$T/refused"
	rc=$?
	[ $rc -ne 0 ] && grep -q "refused over SSH" "$T/refused"
	ok $? "refused over SSH: $bad"
done
! test -e "$T/pwned"
ok $? "no refused command ran anything"

"$SBX" approvers rm alice >/dev/null
ok $? "sbx approvers rm alice"
out=$(hook_bash "./task.sh after-rm")
id=$(echo "$out" | reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
wait_for 10 has_pending
rssh sbx approve "$id" >/dev/null 2>&1
wait_for 10 bash -c "ls $FOLDER/.sandbox/rejected | grep -q '$id.*why'"
ok $? "after rm, alice's decisions are rejected"
grep -q "not a trusted approver key" "$FOLDER"/.sandbox/rejected/*"$id"*.why
ok $? "as signed by an untrusted key"

done_testing
