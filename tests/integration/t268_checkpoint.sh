#!/usr/bin/env bash
# state.db's WAL is checkpointed when sbxd is about to sleep, never inside
# a commit (common/store/db.h, db_wal_watch): SQLite's default ran one in
# the commit that took the WAL past 1,000 pages, every 60 round trips or
# so, often the claim's: the copy and two more syncs on the way of a
# request (its p99). Counted from outside with strace over 150 round
# trips through a remembered rule: state.db itself is synced (a
# checkpoint ran) and never between a request's claim and its hand-over
# to the executor; the WAL stays about its 1,000 pages.
. "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || skip_all "strace is not installed"
N=150
init_folder
set_limits '{"hook_wait_seconds": 30, "max_per_minute": 100000}'
add_rule escalate 'Bash(true)'
start_daemon
(hook_bash "true" >/dev/null) &
HP=$!
wait_for 10 has_pending
"$SBX" -C "$FOLDER" approve "$(pending_ids | head -1)" --remember >/dev/null
wait $HP
sleep 1
dbfd=$(for l in /proc/"$DPID"/fd/*; do [ "$(readlink "$l")" = "$FOLDER/.sandbox/state.db" ] && basename "$l"; done | head -1)
[ -n "$dbfd" ]
ok $? "sbxd holds state.db open (fd $dbfd)"
strace -qq -o "$T/d.st" -e trace=renameat2,fsync,fdatasync,sendmsg,clone -p "$DPID" &
SP=$!
wait_traced "$SP" "$DPID" || skip_all "strace cannot attach to sbxd here"
bash_payload "true" >"$T/p.json"
fails=0
for _ in $(seq $N); do
	(cd "$FOLDER" && "$HOOK" pre <"$T/p.json" >"$T/out.json") || fails=$((fails + 1))
done
sleep 1
kill "$SP"
wait "$SP" 2>/dev/null
is "$fails" "0" "$N round trips"
like "$(reason <"$T/out.json")" "remembered approval" "through the remembered rule"
ck=$(grep -cE "^f(data)?sync\\($dbfd\\)" "$T/d.st")
[ "$ck" -ge 1 ]
ok $? "state.db was checkpointed ($ck times)"
# A request's claim is the first rename that names it; its window ends
# at the hand-over (sendmsg to the spare, or clone).
inwin=$(awk -v fd="$dbfd" '
	/^renameat2\(/ { if (match($0, /"[0-9a-f]+\.json"/)) { id = substr($0, RSTART, RLENGTH);
		if (!(id in seen)) { seen[id] = 1; w = 1 } } }
	/^(sendmsg|clone)\(/ { w = 0 }
	w && $0 ~ "^f(data)?sync\\(" fd "\\)" { n++ }
	END { print n + 0 }' "$T/d.st")
is "$inwin" "0" "never between a claim and its hand-over"
wal=$(stat -c %s "$FOLDER/.sandbox/state.db-wal")
[ "$wal" -lt $((1400 * 4120)) ]
ok $? "the WAL stays about its 1,000 pages ($wal bytes)"

done_testing
