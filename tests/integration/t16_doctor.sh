#!/usr/bin/env bash
# sbx doctor: every check passes on a good setup, and each broken part is
# reported with the command that fixes it.
. "$(dirname "$0")/lib.sh"

"$SBX" init --claude "$FOLDER" >/dev/null
start_daemon
out=$("$SBX" -C "$FOLDER" doctor)
rc=$?
is "$rc" "0" "doctor passes on a good setup"
unlike "$out" "FAIL" "with no failed check"
like "$out" "sbxd is running for this folder \\(pid $DPID\\)" "it sees the daemon"

stop_daemon
out=$("$SBX" -C "$FOLDER" doctor)
is "$?" "1" "doctor fails when sbxd is not running"
like "$out" "FAIL .*sbxd is not running.*sbxd $FOLDER" "and says how to start it"

chmod 644 "$SBX_CONFIG_DIR/approver.key"
out=$("$SBX" -C "$FOLDER" doctor)
like "$out" "FAIL .*mode 0600.*chmod 600" "a readable secret key is reported with the chmod to run"
chmod 600 "$SBX_CONFIG_DIR/approver.key"

S="$FOLDER/.claude/settings.json"
jq '.hooks.PreToolUse[0].hooks[0].timeout = 60' "$S" >"$T/s" && mv "$T/s" "$S"
out=$("$SBX" -C "$FOLDER" doctor)
like "$out" "FAIL .*timeout \\(60 s\\) is not longer than the hook's wait" "a hook timeout below the hook's wait is reported"

echo '{"allowWirte": []}' >"$FOLDER/.sandbox/policy.json"
out=$("$SBX" -C "$FOLDER" doctor)
like "$out" "FAIL +policy: .*allowWirte" "an invalid policy is reported"

jq 'del(.hooks)' "$S" >"$T/s" && mv "$T/s" "$S"
out=$("$SBX" -C "$FOLDER" doctor)
like "$out" "FAIL .*no sbx PreToolUse hook.*sbx init --claude" "missing hooks are reported with the fix"

done_testing
