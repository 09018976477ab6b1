#!/usr/bin/env bash
# Group commit: requests that arrive together are recorded together. A
# burst of 40 is claimed in one or a few batches: one state.db commit, one
# audit sync and, for the results, a data sync each and one of results/
# per batch (not syncfs), counted
# from outside with strace: fewer syncs than requests (one by one it took
# about four each). Each still gets its own signed result and records.
. "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || skip_all "strace is not installed"
REQGEN="$TOOLS/reqgen"
[ -x "$REQGEN" ] || { echo "Bail out! $REQGEN is missing (make test builds it)"; exit 1; }
N=40

init_folder
add_rule escalate 'Bash(true:*)'
start_daemon
"$REQGEN" "$FOLDER" "$N" gc
strace -f -qq -o "$T/st" -e trace=fsync,fdatasync,syncfs,sync,sync_file_range,msync -p "$DPID" &
SP=$!
# strace may not attach where ptrace is restricted: that is the machine.
wait_traced "$SP" "$DPID" || skip_all "strace cannot attach to sbxd here"
"$REQGEN" --release "$FOLDER" >/dev/null
count() { sqlite3 -cmd '.timeout 5000' "$FOLDER/.sandbox/state.db" "SELECT count(*) FROM requests"; }
results() { find "$FOLDER/.sandbox/results" -name '*.json' | wc -l | tr -d ' '; }
done_all() { [ "$(count)" -ge "$N" ] && [ "$(results)" -ge $((N - 20)) ]; }
wait_for 60 done_all
ok $? "sbxd records the burst"
sleep 1
kill "$SP" 2>/dev/null
wait "$SP" 2>/dev/null
syncs=$(grep -cE '(fsync|fdatasync|syncfs|sync|sync_file_range|msync)\(' "$T/st")
[ "$syncs" -gt 0 ] && [ "$syncs" -lt "$N" ]
ok $? "with fewer syncs than requests ($syncs for $N)"
# Each rejected result's data and results/ once, never syncfs(2): the
# agent could fill the filesystem with dirty pages and stall sbxd in it.
is "$(grep -c 'syncfs(' "$T/st")" "0" "and never a sync of the whole filesystem"
is "$(count)" "$N" "each recorded once"
# 20 pending (max_pending), the rest rejected by the caps, each with its result.
is "$(sqlite3 -cmd '.timeout 5000' "$FOLDER/.sandbox/state.db" "SELECT count(*) FROM requests WHERE status='rejected'")" \
	"$(results)" "every rejected request has its result"
bad=0
for f in "$FOLDER"/.sandbox/results/*.json; do
	jq -e '(.sig | length) == 128' "$f" >/dev/null || bad=$((bad + 1))
done
is "$bad" "0" "each signed by sbxd"
like "$("$SBX" -C "$FOLDER" audit verify 2>&1)" "audit log OK" "the audit log verifies"
is "$(cat "$FOLDER"/.sandbox/audit*.jsonl | grep -c '"event":"request_received"')" "$N" \
	"with a request_received for each"
is "$(cat "$FOLDER"/.sandbox/audit*.jsonl | grep -c '"event":"request_closed"')" "$(results)" \
	"and a request_closed for each rejected one"

done_testing
