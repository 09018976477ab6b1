#!/usr/bin/env bash
# chaos.sh - `make chaos`: a bounded kill-and-restart campaign against the
# real programs. Hook clients escalate calls and repeat them until they
# get a final answer, an approver approves or denies what is pending, and
# sbxd is killed with SIGKILL at random moments (and sometimes started as
# the fault build, which kills itself at a named step). Then it checks:
#   - every request ends in exactly one terminal state, with a result file
#     that says the same;
#   - nothing runs twice; nothing runs unapproved;
#   - every hook call gets an answer;
#   - the audit log verifies, with request_received for every request and
#     decision + approval_consumed for every approved one.
# CHAOS_SECONDS (default 60) bounds the campaign; CHAOS_CLIENTS (4) hook
# clients run at once. Prints TAP and the campaign's figures.
. "$(dirname "$0")/../integration/lib.sh"

SECS=${CHAOS_SECONDS:-60}
CLIENTS=${CHAOS_CLIENTS:-4}
FAULTY="$TOOLS/sbxd-faults"
FAULTS="request-committed decision-committed before-start reaped"
SB="$FOLDER/.sandbox"
DB="$SB/state.db"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1, "max_pending": 200, "max_per_minute": 100000, "request_ttl_seconds": 15, "exec_timeout_seconds": 30}'

start_any() {	# start_any [FAULT]: sbxd, or the fault build armed at FAULT
	if [ -n "${1:-}" ] && [ -x "$FAULTY" ]; then
		SBX_FAULT=$1 "$FAULTY" "$FOLDER" 2>>"$T/sbxd.log" &
	else
		"$SBXD" "$FOLDER" 2>>"$T/sbxd.log" &
	fi
	DPID=$!
	echo "$DPID" >"$T/dpid"
}

client() {	# client N: escalates unique calls until told to stop
	local n=$1 j=0 tok out d r tries
	while [ ! -e "$T/stop" ]; do
		j=$((j + 1))
		tok="w${n}n${j}"
		tries=0
		while :; do
			out=$(hook_bash "./task.sh $tok" 2>/dev/null)
			d=$(echo "$out" | decision)
			r=$(echo "$out" | reason | head -1)
			printf '%s\t%s\t%s\n' "$tok" "${d:-NONE}" "$r" >>"$T/hooks.log"
			tries=$((tries + 1))
			case $r in
			*"pending as request"*) ;;
			*) break ;;
			esac
			[ -e "$T/stop" ] && [ $tries -gt 3 ] && break
			[ $tries -ge 60 ] && break
			sleep 0.2
		done
	done
}

approver() {	# approves about 3 in 4 pending requests, denies some, skips others
	local id
	while [ ! -e "$T/stop" ]; do
		for id in $(pending_ids); do
			case $((RANDOM % 8)) in
			0) "$SBX" -C "$FOLDER" deny "$id" --reason chaos >/dev/null 2>&1 &&
				echo "$id" >>"$T/denied.log" ;;
			1) ;;	# left to expire
			*) "$SBX" -C "$FOLDER" approve "$id" >/dev/null 2>&1 &&
				echo "$id" >>"$T/approved.log" ;;
			esac
		done
		sleep 0.3
	done
}

: >"$T/sbxd.log"; : >"$T/hooks.log"; : >"$T/approved.log"; : >"$T/denied.log"
start_any
wait_for 10 grep -q serving "$T/sbxd.log"
ok $? "sbxd starts"
pids=()
for n in $(seq 1 "$CLIENTS"); do client "$n" & pids+=($!); done
approver & pids+=($!)

kills=0 faults=0 selfkills=0
end=$(( $(date +%s) + SECS ))
while [ "$(date +%s)" -lt "$end" ]; do
	sleep "0.$((RANDOM % 10))"
	sleep $((RANDOM % 3))
	if kill -0 "$DPID" 2>/dev/null; then
		kill -9 "$DPID" 2>/dev/null
		kills=$((kills + 1))
	else
		selfkills=$((selfkills + 1))	# the fault build reached its step
	fi
	wait "$DPID" 2>/dev/null
	if [ $((RANDOM % 3)) -eq 0 ]; then
		set -- $FAULTS
		shift $((RANDOM % $#))
		start_any "$1"
		faults=$((faults + 1))
	else
		start_any
	fi
done
touch "$T/stop"
wait "${pids[@]}" 2>/dev/null
kill -9 "$DPID" 2>/dev/null
wait "$DPID" 2>/dev/null
start_any
wait_for 10 kill -0 "$DPID"

# Drain: deny what is still pending; wait for what was approved to finish.
settled() {
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM requests WHERE status IN ('pending','running')")" = 0 ] &&
	[ -z "$(ls "$SB/queue/new")" ]
}
for i in $(seq 1 120); do
	settled && break
	for id in $(pending_ids); do "$SBX" -C "$FOLDER" deny "$id" --reason drain >/dev/null 2>&1; done
	sleep 0.5
done
settled
ok $? "everything settles after the campaign"
sleep 6	# one more pass: missing results are written, receipts swept
stop_daemon

# ---- invariants -------------------------------------------------------------
nreq=$(sqlite3 "$DB" "SELECT count(*) FROM requests")
bad=$(sqlite3 "$DB" "SELECT id || ' ' || status FROM requests WHERE status NOT IN
	('done','denied','expired','interrupted','rejected')")
is "$bad" "" "every request is in a terminal state"
mismatch=0
while IFS='|' read -r id st; do
	r=$(jq -r .status "$SB/results/$id.json" 2>/dev/null)
	[ "$r" = "$st" ] || { mismatch=$((mismatch + 1)); echo "#   $id: db $st, result ${r:-none}"; }
done < <(sqlite3 "$DB" "SELECT id, status FROM requests")
is "$mismatch" "0" "each has exactly one result, which agrees with the database"

twice=$(awk '{print $2}' "$FOLDER/runs.log" 2>/dev/null | sort | uniq -d | head -5)
is "$twice" "" "no call ran twice"
# Every run belongs to a request that was approved and started.
unapproved=0
for tok in $(awk '{print $2}' "$FOLDER/runs.log" 2>/dev/null | sort -u); do
	n=$(sqlite3 "$DB" "SELECT count(*) FROM requests WHERE command = './task.sh $tok'
		AND approver IS NOT NULL AND approver != '' AND started > 0")
	[ "$n" -ge 1 ] || { unapproved=$((unapproved + 1)); echo "#   $tok ran without an approved, started request"; }
done
is "$unapproved" "0" "nothing ran unapproved"
started=$(cat "$SB"/audit*.jsonl | jq -r 'select(.event == "exec_started") | .request' | sort | uniq -d | head -3)
is "$started" "" "no request was started twice (audit log)"

noanswer=$(awk -F'\t' '$2 != "allow" && $2 != "deny"' "$T/hooks.log" | wc -l | tr -d ' ')
is "$noanswer" "0" "every hook call got an answer"

"$SBX" -C "$FOLDER" audit verify >"$T/verify.out" 2>&1
ok $? "sbx audit verify: $(head -c 200 "$T/verify.out")"
cat "$SB"/audit*.jsonl | jq -r 'select(.request != null) | "\(.request) \(.event)"' | sort -u >"$T/ev"
missing=0
for id in $(sqlite3 "$DB" "SELECT id FROM requests"); do
	grep -q "^$id request_received$" "$T/ev" || { missing=$((missing + 1)); echo "#   $id: no request_received"; }
done
for id in $(sqlite3 "$DB" "SELECT id FROM requests WHERE started > 0 OR (status = 'rejected' AND approver IS NOT NULL AND approver != '')"); do
	for e in decision approval_consumed; do
		grep -q "^$id $e$" "$T/ev" || { missing=$((missing + 1)); echo "#   $id: no $e"; }
	done
done
for id in $(sqlite3 "$DB" "SELECT id FROM requests WHERE status = 'denied'"); do
	grep -q "^$id decision$" "$T/ev" || { missing=$((missing + 1)); echo "#   $id: denied, no decision"; }
done
is "$missing" "0" "the audit log has every request_received, decision and approval_consumed"

# ---- figures ----------------------------------------------------------------
echo "# chaos: ${SECS}s, $CLIENTS hook clients, $kills kill -9 of sbxd, $faults fault-build starts ($selfkills stopped themselves at their step)"
echo "# chaos: $(wc -l <"$T/hooks.log" | tr -d ' ') hook calls, $nreq requests, $(wc -l <"$T/approved.log" | tr -d ' ') approvals, $(wc -l <"$T/denied.log" | tr -d ' ') denials, $(wc -l <"$FOLDER/runs.log" 2>/dev/null | tr -d ' ') runs"
echo "# chaos: terminal states: $(sqlite3 "$DB" "SELECT status || '=' || count(*) FROM requests GROUP BY status" | tr '\n' ' ')"
echo "# chaos: audit log: $(cat "$SB"/audit*.jsonl | wc -l | tr -d ' ') records, $(cat "$SB"/audit*.jsonl | grep -c '"replayed":true') replayed from intents, $(grep -c audit_recovered "$SB"/audit*.jsonl | awk -F: '{s+=$NF} END {print s}') torn tails cut"
done_testing
