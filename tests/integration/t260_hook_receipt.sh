#!/usr/bin/env bash
# The hook's share of the round trip (docs/BENCHMARKS.md, "The hook's
# share"): it drops its request before it makes its wake FIFO, and makes
# its delivery receipt ahead, as an unnamed file in queue/delivered
# (O_TMPFILE), while sbxd works; between the wake and the answer it only
# reads and checks the result and links the receipt to its name (as
# exclusive as O_EXCL). Checked from outside with strace, and attacked:
# a receipt planted while the hook waits means the result is not this
# hook's; queue/delivered swapped for a symlink gets no receipt outside
# the folder and no delivery; without /proc the receipt is made by name;
# a one-time allowance's receipt is made ahead too, its nonce written in
# before the link; a hook that answers "pending" leaves no receipt behind.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 30}'
add_rule escalate 'Bash(sleep 0.5)'
start_daemon
Q="$FOLDER/.sandbox/queue"
# waiting ID: prints the pid of the hook process that holds request ID's
# wake FIFO open (it waits on it)
waiting() {
	local p
	for p in $(pgrep -x sbx-hook); do
		ls -l "/proc/$p/fd" 2>/dev/null | grep -q "queue/wake/$1\$" && { echo "$p"; return 0; }
	done
	return 1
}
# prepared PID: the hook PID holds its receipt made ahead (an unnamed file
# in queue/delivered)
prepared() { ls -l "/proc/$1/fd" 2>/dev/null | grep -q "queue/delivered/#"; }
# hook_bg CMD: the hook for CMD in the background (pid in HP, answer in $T/bg.out)
hook_bg() {
	(hook_bash "$1" >"$T/bg.out") &
	HP=$!
}
# queued CMD: waits for CMD's pending request and its waiting hook; sets ID
queued() {
	wait_for 10 has_pending || return 1
	ID=$("$SBX" -C "$FOLDER" pending --json | jq -r --arg c "$1" '.[] | select(.command == $c) | .id')
	[ -n "$ID" ] && wait_for 10 waiting "$ID"
}
delivered_records() { "$SBX" -C "$FOLDER" audit show --request "$1" | grep -c result_delivered; }
delivered_any() { [ "$(delivered_records "$1")" -ge 1 ]; }

# A remembered approval for `sleep 0.5`: its round trips need no human,
# and the hook surely waits for the result (with `true` a loaded machine
# could let sbxd finish before the hook polls: then nothing is traced
# between a wake and the answer).
hook_bg "sleep 0.5"
queued "sleep 0.5"
"$SBX" -C "$FOLDER" approve "$ID" --remember >/dev/null
wait $HP

# 1. A round trip, traced: the request is in before the FIFO is made, and
# nothing is created between the wake and the answer.
if command -v strace >/dev/null; then
	bash_payload "sleep 0.5" >"$T/p.json"
	(cd "$FOLDER" && strace -qq -o "$T/h.st" -e trace=renameat2,mknodat,openat,linkat,poll,write \
		"$HOOK" pre <"$T/p.json" >"$T/out.json")
	like "$(reason <"$T/out.json")" "remembered approval\\) and ALREADY EXECUTED" \
		"a round trip through a remembered approval"
	id=$(reason <"$T/out.json" | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
	line() { grep -nE "$1" "$T/h.st" | head -1 | cut -d: -f1; }
	drop=$(line "renameat2\\(.*\"$id.json\"")
	fifo=$(line "(mknodat\\(.*\"$id\", S_IFIFO|renameat2\\(.*\"\\.free\\.[0-9]+\", [0-9]+, \"$id\")")
	[ -n "$drop" ] && [ -n "$fifo" ] && [ "$drop" -lt "$fifo" ]
	ok $? "the request is dropped before the wake FIFO is made or taken from the pool"
	woken=$(grep -nE '^poll\(.*= 1 ' "$T/h.st" | tail -1 | cut -d: -f1)
	answer=$(line '^write\(1,')
	prep=$(line 'O_TMPFILE')
	[ -n "$prep" ] && [ -n "$woken" ] && [ "$prep" -lt "$woken" ]
	ok $? "the receipt is made while the hook waits (O_TMPFILE in queue/delivered)"
	[ -n "$woken" ] && [ -n "$answer" ] &&
		! sed -n "${woken},${answer}p" "$T/h.st" | grep -qE 'O_CREAT|O_TMPFILE|mknodat'
	ok $? "no file is created between the wake and the answer"
	sed -n "${woken:-1},${answer:-1}p" "$T/h.st" | grep -qE "^linkat\\(.*\"$id\", AT_SYMLINK_FOLLOW\\) = 0"
	ok $? "the receipt is claimed by linking it to queue/delivered/ID"
	r="$Q/delivered/$id"
	is "$(stat -c '%F %h %a %U' "$r")" "regular empty file 1 600 $(id -un)" \
		"the receipt is an empty regular file of one link, mode 0600, the hook's"
	wait_for 10 test -e "$FOLDER/.sandbox/done/$id.json"
	ok $? "sbxd saw the linked receipt and filed the request in done/"
	wait_for 10 delivered_any "$id"
	is "$(delivered_records "$id")" "1" "one result_delivered record"
else
	for _ in 1 2 3 4 5 6 7 8; do ok 0 "# SKIP strace is not installed"; done
fi

# 2. A receipt planted while the hook waits (by the agent, or another
# identical call): the link fails (EEXIST) and the hook does not deliver.
hook_bg "./task.sh planted"
queued "./task.sh planted"
: >"$Q/delivered/$ID"
"$SBX" -C "$FOLDER" approve "$ID" >/dev/null
wait $HP
r=$(reason <"$T/bg.out")
like "$r" "handed to another identical call" "a planted receipt: the waiting hook does not deliver"
unlike "$r" "out: planted" "... and hands back no output"
is "$(runs)" "1" "the command ran once"

# 3. queue/delivered swapped for a symlink to a directory outside after
# the result came (the hook stopped meanwhile, its receipt made): no
# receipt is made outside the folder and nothing is delivered.
mkdir "$T/outside"
hook_bg "./task.sh swapped"
queued "./task.sh swapped"
hp=$(waiting "$ID")
wait_for 10 prepared "$hp"
ok $? "the waiting hook holds its receipt made ahead (O_TMPFILE)"
kill -STOP "$hp"
"$SBX" -C "$FOLDER" approve "$ID" >/dev/null
wait_for 10 test -e "$FOLDER/.sandbox/results/$ID.json"
mv "$Q/delivered" "$Q/delivered.real" && ln -s "$T/outside" "$Q/delivered"
kill -CONT "$hp"
wait $HP
r=$(reason <"$T/bg.out")
unlike "$r" "out: swapped" "a symlinked queue/delivered: the result is not handed back"
like "$r" "its delivery cannot be recorded in $Q/delivered" \
	"... the answer says its delivery cannot be recorded"
is "$(ls -A "$T/outside" | wc -l | tr -d ' ')" "0" "no receipt was made through the symlink"
stop_daemon
rm "$Q/delivered" && mv "$Q/delivered.real" "$Q/delivered"
start_daemon

# 4. Without /proc (a mount namespace where it is unmounted) the receipt
# cannot be linked: it is created by name, once, and the result delivered.
if unshare -m true 2>/dev/null; then
	bash_payload "./task.sh noproc" >"$T/np.json"
	(cd "$FOLDER" && unshare -m sh -c 'umount -l /proc && exec "$0" pre' "$HOOK" \
		<"$T/np.json" >"$T/np.out") &
	HP=$!
	wait_for 10 has_pending
	ID=$("$SBX" -C "$FOLDER" pending --json | jq -r '.[] | select(.command == "./task.sh noproc") | .id')
	sleep 0.3
	"$SBX" -C "$FOLDER" approve "$ID" >/dev/null
	wait $HP
	like "$(reason <"$T/np.out")" "out: noproc" "without /proc the result is still delivered"
	test -f "$Q/delivered/$ID"
	ok $? "... with a receipt created by name"
else
	ok 0 "# SKIP unshare -m is not permitted here"
	ok 0 "# SKIP unshare -m is not permitted here"
fi

# 6. A one-time allowance (a Write outside the project, approved while
# the hook waits): its receipt is the one made ahead too, with the nonce
# sbxd confirms written into it before the link (no temporary name), and
# the call is allowed once.
mkdir -p "$T/notes"
payload Write "$(jq -cn --arg p "$T/notes/n.txt" '{file_path: $p, content: "hi"}')" >"$T/w.json"
if command -v strace >/dev/null; then
	(cd "$FOLDER" && env -u TMPDIR CLAUDE_PROJECT_DIR="$FOLDER" strace -qq -o "$T/w.st" \
		-e trace=openat,linkat,pwrite64 "$HOOK" pre <"$T/w.json" >"$T/w.out") &
else
	(cd "$FOLDER" && env -u TMPDIR CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre <"$T/w.json" >"$T/w.out") &
fi
HP=$!
wait_for 10 has_pending
ID=$("$SBX" -C "$FOLDER" pending --json | jq -r '.[] | select(.tool == "Write") | .id')
wait_for 10 waiting "$ID" >/dev/null
"$SBX" -C "$FOLDER" approve "$ID" >/dev/null
wait $HP
is "$(decision <"$T/w.out")" "allow" "an approved Write the hook waited for is allowed"
is "$(stat -c '%F %h %s' "$Q/delivered/$ID")" "regular file 1 32" "its receipt is one link holding a nonce"
grep -qxE '[0-9a-f]{32}' "$Q/delivered/$ID"
ok $? "... of 32 hex digits"
if command -v strace >/dev/null; then
	grep -qE "^linkat\(AT_FDCWD, \"/proc/self/fd/[0-9]+\", [0-9]+, \"$ID\", AT_SYMLINK_FOLLOW\) = 0" "$T/w.st" &&
		! grep -q '\.receipt\.' "$T/w.st"
	ok $? "the receipt made ahead was linked, with no temporary name in queue/tmp"
else
	ok 0 "# SKIP strace is not installed"
fi

# 5. A hook that answers "pending" leaves no receipt (its unnamed file
# goes with it) and nothing in queue/tmp.
set_limits '{"hook_wait_seconds": 1}'
r=$(hook_bash "./task.sh later" | reason)
like "$r" "pending as request" "a call nobody approves in time is pending"
id=$(echo "$r" | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
test ! -e "$Q/delivered/$id"
ok $? "... and has no receipt"
is "$(ls -A "$Q/tmp" | wc -l | tr -d ' ')" "0" "queue/tmp holds nothing the hooks left"

done_testing
