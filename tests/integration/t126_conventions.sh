#!/usr/bin/env bash
# One argument parser (getopt_long) everywhere, and what users expect of it:
# --help prints the usage on stdout and exits 0, for every program and
# subcommand; -C DIR works before the subcommand and among its options;
# --opt=value is the same as --opt value; a bad option is a usage error
# (2) with the usage on stderr; `sbxd help` is a usage error, not a
# missing file. And the attacker's side: getopt_long accepts "-C/x",
# "--dir=/x" and abbreviations ("--al", "--noti"), so the SSH forced
# command must still keep the folder and --notify fixed by the key.
. "$(dirname "$0")/lib.sh"

# help_ok DESC CMD...: usage on stdout, nothing on stderr, exit 0
help_ok() {
	local d=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	local rc=$?
	[ "$rc" -eq 0 ] && grep -qi '^usage' "$T/out" && [ ! -s "$T/err" ]
	ok $? "$d --help: usage on stdout, exit 0 (got $rc)"
}
# usage_err DESC CMD...: usage on stderr, nothing on stdout, exit 2
usage_err() {
	local d=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	local rc=$?
	[ "$rc" -eq 2 ] && grep -qi 'usage' "$T/err" && [ ! -s "$T/out" ]
	ok $? "$d: a usage error, exit 2 with the usage on stderr (got $rc)"
}

help_ok "sbx" "$SBX" --help
help_ok "sbx -h" "$SBX" -h
help_ok "sbxd" "$SBXD" --help
help_ok "sbx-hook" "$HOOK" --help
help_ok "sbx-mcp" "$SBX_BIN/sbx-mcp" --help
for sub in init remove doctor watch pending show approve deny rules policy approvers audit \
	history restore ssh-command; do
	help_ok "sbx $sub" "$SBX" "$sub" --help
done
help_ok "sbx policy check" "$SBX" policy check --help
help_ok "sbx audit verify" "$SBX" audit verify --help
help_ok "sbx audit show" "$SBX" audit show --help
help_ok "sbx audit export" "$SBX" audit export --help

usage_err "sbxd help" "$SBXD" help
unlike "$(cat "$T/err")" "No such file" "sbxd help does not talk of a missing file"
like "$(cat "$T/err")" "sbxd: help is not a folder" "it says help is not a folder"
usage_err "sbx --bogus" "$SBX" --bogus
usage_err "sbx pending --bogus" "$SBX" pending --bogus
usage_err "sbx approve (no id)" "$SBX" approve
usage_err "sbxd --bogus" "$SBXD" --bogus
usage_err "sbx-hook --bogus" "$HOOK" --bogus
usage_err "sbx-mcp --bogus" "$SBX_BIN/sbx-mcp" --bogus
usage_err "sbx doctor extra" "$SBX" doctor extra

# -C DIR in the same places everywhere.
init_folder
setup_task
set_limits '{"hook_wait_seconds": 30}'
start_daemon
cd "$T" || exit 1
is "$("$SBX" pending -C "$FOLDER" 2>&1)" "$("$SBX" -C "$FOLDER" pending 2>&1)" \
	"sbx pending -C DIR is sbx -C DIR pending"
is "$("$SBX" doctor --dir="$FOLDER" --json | jq -r .folder)" "$FOLDER" "sbx doctor --dir=DIR --json"
is "$("$SBX" audit verify -C "$FOLDER" >/dev/null 2>&1; echo $?)" "0" "sbx audit verify -C DIR"
is "$("$SBX" audit -C "$FOLDER" verify >/dev/null 2>&1; echo $?)" "0" "sbx audit -C DIR verify"
is "$("$SBX" policy -C "$FOLDER" show | jq -r .folder)" "$FOLDER" "sbx policy -C DIR show"
is "$("$SBX" rules list --json -C "$FOLDER")" "[]" "sbx rules list --json -C DIR"
is "$("$SBX" approvers list --json | jq -r '.[0].name')" "$(id -un)" "sbx approvers list --json"

# --opt=value, and options after operands.
hook_bash "./task.sh eq" >"$T/h1" &
hp=$!
wait_for 10 has_pending
id=$(pending_ids | head -1)
"$SBX" deny "$id" --reason="because of = signs" --ttl=60 -C "$FOLDER" >/dev/null 2>"$T/deny.err"
ok $? "sbx deny ID --reason=TEXT --ttl=60 -C DIR"
wait "$hp"
like "$(reason <"$T/h1")" "DENIED by [^ ]+: because of = signs" "the reason given with = reached the model"
is "$("$SBX" audit show --since=1h -C "$FOLDER" --json | jq -r 'length > 0')" "true" \
	"sbx audit show --since=1h --json"
"$SBXD" --config="$SBX_CONFIG_DIR" --pass-env=TZ -C "$FOLDER" 2>"$T/second.log"
is "$?" "2" "sbxd --config=DIR --pass-env=NAME -C DIR: parsed (refused: the folder is served)"
like "$(cat "$T/second.log")" "already served by another sbxd" "it got as far as the folder"
out=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' |
	(cd / && "$SBX_BIN/sbx-mcp" --folder="$FOLDER" 2>/dev/null))
like "$out" '"serverInfo"' "sbx-mcp --folder=DIR starts (outside the folder)"
out=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' |
	(cd / && "$SBX_BIN/sbx-mcp" -C "$FOLDER" 2>/dev/null))
like "$out" '"serverInfo"' "sbx-mcp -C DIR too"

# The SSH forced command: options that would move the folder or set
# --notify are refused however they are spelt; full-length options pass.
mkdir -p "$T/other"
"$SBX" init "$T/other" >/dev/null 2>&1
for bad in "sbx pending --dir=$T/other" "sbx pending --dir $T/other" "sbx pending -C$T/other" \
	"sbx pending --di=$T/other" "sbx watch --al" "sbx watch --all" "sbx watch --noti=touch $T/pwned" \
	"sbx watch --notify=touch" "sbx show $id -jC$T/other" "sbx approve $id --rem" "sbx pending -h -C x"; do
	SSH_ORIGINAL_COMMAND=$bad "$SBX" ssh-command -C "$FOLDER" </dev/null >/dev/null 2>"$T/refused"
	rc=$?
	[ "$rc" -ne 0 ] && grep -q "refused over SSH" "$T/refused"
	ok $? "ssh-command refuses: $bad"
done
[ ! -e "$T/pwned" ]
ok $? "nothing a refused command named ran"
SSH_ORIGINAL_COMMAND="sbx pending --json" "$SBX" ssh-command -C "$FOLDER" </dev/null >"$T/ssh.out" 2>&1
ok $? "ssh-command allows sbx pending --json"
is "$(jq -r 'type' "$T/ssh.out")" "array" "and it ran"

done_testing
