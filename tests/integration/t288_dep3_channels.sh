#!/usr/bin/env bash
# Deployment 3: the other channels between the agent's user A and sbxd's
# user B. The wake FIFO A's hook makes is poked by B's sbxd (held open
# from outside as the hook holds it, and what arrives read from outside);
# A's PostToolUse events reach B's audit log; the originals A's hook
# keeps are listed by B's sbx history; A's sbx-mcp gets B's result for
# run_privileged; and A's hook delivers a result
# only when it verifies with B's public key, which handover copied into
# A's config (with another key there, the same result is not delivered).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dep3lib.sh"

dep3_setup || { sed 's/^/#   /' "$T/init.out" "$T/handover.out"; exit 1; }
dep3_task
start_daemon_b
S="$FOLDER/.sandbox"
W="$S/queue/wake"
hook_a "./task.sh wake" >"$T/hook.out" &
HPID=$!
wait_for 20 has_pending_b
id=$(pending_b | head -1)
wait_for 10 test -p "$W/$id"
is "$(stat -c '%U %a' "$W/$id" 2>/dev/null)" "$UA 602" \
	"A's wake FIFO is A's, writable (not readable) by B, in a dir nobody else enters"
exec 7<>"$W/$id"
as_b "$SBX" -C "$FOLDER" approve "$id" >/dev/null 2>&1
wait "$HPID"
like "$(reason <"$T/hook.out")" "ran-as $UB" "the result reached A"
got=$(python3 -c 'import os
os.set_blocking(7, False)
try:
    print(len(os.read(7, 100)))
except BlockingIOError:
    print(0)')
exec 7<&-
[ "$got" -ge 1 ]
ok $? "B's sbxd poked A's FIFO (bytes read from outside: $got)"
test ! -e "$W/$id"
ok $? "and A's hook took its name away (sbxd leaves it)"
is "$(stat -c '%F %U %a %h' "$W/.free.00" 2>/dev/null)" "fifo $UA 602 1" \
	"A's hook gave its FIFO back to the pool in B's sticky queue/wake (A's, 0602, one link)"

# PostToolUse: A's event file, B's audit record.
jq -cn --arg cwd "$FOLDER" '{session_id: "s-dep3", cwd: $cwd, hook_event_name: "PostToolUse",
	tool_name: "Bash", tool_input: {command: "true"}, tool_response: {}, tool_use_id: "t-dep3"}' |
	as_a env CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" post >/dev/null
wait_for 10 grep -q '"t-dep3"' "$S/audit.jsonl"
ok $? "A's PostToolUse event is in B's audit log"

# Originals: A's hook keeps the file an allowed Write replaces; B lists it.
printf 'v1\n' >"$FOLDER/notes.txt"
chown "$UA:" "$FOLDER/notes.txt"
d=$(payload Write "$(jq -cn --arg p "$FOLDER/notes.txt" '{file_path: $p, content: "v2"}')" |
	as_a env CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre | decision)
is "$d" "allow" "A's Write inside the project is allowed"
idx=$(ls "$S/queue/originals/index" | head -1)
is "$(stat -c '%U %a' "$S/queue/originals/index/$idx" 2>/dev/null)" "$UA 644" \
	"its original is kept as A's file B can read"
is "$(as_b "$SBX" -C "$FOLDER" history "$FOLDER/notes.txt" --json 2>/dev/null | jq length)" 1 \
	"B's sbx history lists it"

# sbx-mcp as A: run_privileged through the same drop box, B's result back.
mkfifo -m 0666 "$T/mcp.in"
: >"$T/mcp.out"
chown "$UA:" "$T/mcp.out"
(cd "$FOLDER" && as_exec "$UA" "$SBX_BIN/sbx-mcp" --folder "$FOLDER" <"$T/mcp.in" \
	>"$T/mcp.out" 2>/dev/null) &
MPID=$!
exec 8>"$T/mcp.in"
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_privileged","arguments":{"command":"./task.sh mcp","reason":"test"}}}' >&8
wait_for 20 has_pending_b
as_b "$SBX" -C "$FOLDER" approve "$(pending_b | head -1)" >/dev/null 2>&1
mcp_reply() { jq -c 'select(.id == 1)' "$T/mcp.out" 2>/dev/null; }
has_mcp_reply() { [ -n "$(mcp_reply)" ]; }
wait_for 30 has_mcp_reply
like "$(mcp_reply | jq -r '.result.content[0].text')" "ran-as $UB" \
	"A's sbx-mcp run_privileged gets B's result"
exec 8>&-
wait "$MPID" 2>/dev/null

# A one-time allowance: A's Write outside the project, approved by B. The
# receipt A's hook makes holds a nonce B's sbxd must read to confirm it.
mkdir -p "$T/out-a"
chown "$UA:" "$T/out-a"
payload Write "$(jq -cn --arg p "$T/out-a/w.txt" '{file_path: $p, content: "w"}')" |
	as_a env CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre >"$T/write.out" &
HPID=$!
wait_for 20 has_pending_b
id=$(pending_b | head -1)
as_b "$SBX" -C "$FOLDER" approve "$id" >/dev/null 2>&1
wait "$HPID"
is "$(decision <"$T/write.out")" "allow" "B's approval of A's Write reaches A as an allow"
is "$(stat -c '%U' "$S/queue/delivered/$id" 2>/dev/null)" "$UA" "through A's receipt"
is "$(jq -r '.receipt | length' "$S/results/$id.json" 2>/dev/null)" 32 \
	"which B's sbxd read and confirmed (its nonce in the signed result)"

# A result is delivered only when it verifies with the key handover gave
# A (B's, daemon.UID.pub): with another key there, the same call is not.
as_b sh -c 'p="$1/.sandbox/policy.json"
	jq ".limits = ((.limits // {}) + {hook_wait_seconds: 3})" "$p" >"$HOME/p.new" &&
	cat "$HOME/p.new" >"$p" && "$2" -C "$1" policy accept' sh "$FOLDER" "$SBX" >/dev/null
KA="$CONF_A/daemon.$(id -u "$UB").pub"
cp "$KA" "$T/daemon.pub.good"
printf '%064d\n' 0 >"$KA"
hook_a "./task.sh twice" >"$T/hook2.out" &
HPID=$!
wait_for 20 has_pending_b
id=$(pending_b | head -1)
as_b "$SBX" -C "$FOLDER" approve "$id" >/dev/null 2>&1
wait "$HPID"
r=$(reason <"$T/hook2.out")
like "$r" "pending" "a result A cannot verify is not delivered: the hook answers pending"
unlike "$r" "ran-as" "(no output of the command in it)"
# (the hook gave up after its 3 s, maybe before sbxd wrote the result)
wait_for 10 test -f "$S/results/$id.json"
ok $? "though B's sbxd wrote the result"
cat "$T/daemon.pub.good" >"$KA"
r=$(hook_a "./task.sh twice" | reason)
like "$r" "ran-as $UB" "with B's key back, the repeated call gets the stored result"
done_testing
