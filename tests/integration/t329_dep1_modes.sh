#!/usr/bin/env bash
# Deployment 1 with a .sandbox/ someone opened by a chmod: what the hook
# drops there for sbxd stays its owner's only (0600). Only a root-owned
# users file (deployment 3) opens files to the other user; group or other
# bits on a .sandbox of one user do not. Checked from outside, with the
# hook's umask 022 (which would leave a 0644 file 0644).
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
S="$FOLDER/.sandbox"
chmod 0755 "$S"
chmod 0755 "$S/queue" "$S/queue/new"
out=$( (umask 022; hook_bash "./task.sh one") )
like "$(echo "$out" | reason)" "queued as request" "the hook queues the request (no sbxd serves a .sandbox others may enter)"
f=$(ls "$S/queue/new/"*.json 2>/dev/null | head -1)
test -n "$f"
ok $? "(the request is in queue/new)"
is "$(stat -c %a "$f" 2>/dev/null)" 600 "and is mode 0600, not 0644, though .sandbox is 0755"
# A users file that is not a valid one of root's naming us opens nothing
# either (here ours; as root, root's naming two other users).
printf 'agent 4201\ndaemon 4202\ngroup 4201\n' >"$S/users"
out=$( (umask 022; hook_bash "./task.sh two") )
like "$(echo "$out" | reason)" "queued as request" "with a users file not naming us, the next request is queued too"
is "$(find "$S/queue/new" -name '*.json' | wc -l)" 2 "(two requests in queue/new)"
is "$(find "$S/queue/new" -name '*.json' -perm /044 | wc -l)" 0 "and neither is readable by others"
done_testing
