#!/usr/bin/env bash
# Junk dropped into the queue costs one sync per file, not two: each
# rejected file gets its .why note as before (none lost, each with its
# reason), written without a sync of its own; at the end of the pass
# sbxd syncs each note's data, then rejected/ once (the moves and the
# names), with the pass's audit sync. Counted from outside with strace.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip_all "strace is not installed"
command -v python3 >/dev/null || skip_all "python3 is needed to drop the junk"

N=200
init_folder
start_daemon
strace -f -qq -o "$T/st" -e trace=fsync,fdatasync,syncfs,sync,sync_file_range,msync -p "$DPID" &
SP=$!
wait_traced "$SP" "$DPID" || skip_all "strace cannot attach to sbxd here"
python3 - "$FOLDER/.sandbox/queue/new" "$N" <<'PY'
import os, sys
d = sys.argv[1]
for i in range(int(sys.argv[2])):
    with open(os.path.join(d, "junk-%d.json" % i), "w") as f:
        f.write("{not json")
PY
notes() { ls "$FOLDER/.sandbox/rejected" | grep -c '\.why$'; }
all_noted() { [ "$(notes)" -ge "$N" ]; }
wait_for 60 all_noted
ok $? "every junk file is moved to rejected/ with a note"
sleep 1.5
kill "$SP"
wait "$SP" 2>/dev/null
is "$(notes)" "$N" "one note per file, none lost"
is "$(ls "$FOLDER/.sandbox/rejected" | grep -v '\.why$' | grep -c 'junk-')" "$N" "and the $N files"
empty=$(find "$FOLDER/.sandbox/rejected" -name '*.why' -empty | wc -l)
is "$empty" 0 "no note is empty"
like "$(cat "$FOLDER"/.sandbox/rejected/*-junk-7.json.why)" "not a request file name|request" \
	"a note says why"
n=$(grep -cE '(fsync|fdatasync|syncfs|sync|sync_file_range|msync)\(' "$T/st")
# before: two per file (the note and rejected/), 2N+; now one per note,
# plus rejected/ and the audit log once a pass
[ "$n" -le $((N + N / 4)) ]
ok $? "sbxd made at most $((N + N / 4)) syncs for $N junk files ($n; two per file before)"
is "$(grep -c 'syncfs(' "$T/st")" 0 "never syncfs"
is "$(grep -c '"file_rejected"' "$FOLDER/.sandbox/audit.jsonl")" "$N" "each rejection is in the audit log"
done_testing
