#!/usr/bin/env bash
# bench.sh - whole-process benchmarks of the hook and the approval loop,
# side by side in one run. `make bench`; BENCH_N sets the runs (default 1000).
set -eu
: "${SBX_BIN:?}" "${SBX_BENCH_BIN:?}"
N=${BENCH_N:-1000}
SPAWN="$SBX_BENCH_BIN/spawn"
T=$(mktemp -d "${TMPDIR:-/tmp}/sbx-bench.XXXXXX")
T=$(cd "$T" && pwd -P)
export SBX_CONFIG_DIR="$T/config"
F="$T/proj"
DPID=""
trap '[ -n "$DPID" ] && kill $DPID 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
mkdir -p "$F"
"$SBX_BIN/sbx" init "$F" >/dev/null

payload() {
	jq -cn --arg c "$1" --arg cwd "$F" '{session_id: "bench", transcript_path: "/dev/null",
	  cwd: $cwd, permission_mode: "default", hook_event_name: "PreToolUse",
	  tool_name: "Bash", tool_input: {command: $c, description: "bench"},
	  tool_use_id: "toolu_bench"}'
}
payload "git status --short" >"$T/allow.json"
[ "$("$SBX_BIN/sbx-hook" pre <"$T/allow.json" | jq -r .hookSpecificOutput.permissionDecision)" = allow ] ||
	{ echo "bench: the allow payload is not allowed" >&2; exit 1; }
cat >"$T/parse.py" <<'PY'
import json, sys
json.load(sys.stdin)
print('{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}')
PY

echo "sbx benchmarks, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, N=$N"
echo "$(uname -sr); $(cc --version | head -1)"
echo
printf '%-44s %6s  %8s  %8s  %8s  %8s\n' "whole process, per call (ms)" runs median p99 min max
"$SPAWN" "floor: cat > /dev/null (same payload)" "$N" "$T/allow.json" -- cat
"$SPAWN" "sbx-hook pre, allow path (git status)" "$N" "$T/allow.json" -- "$SBX_BIN/sbx-hook" pre
# PostToolUse, after every tool call: the event dropped into queue/events
# (no sbxd yet: the files are removed after, not recorded).
jq -cn --arg cwd "$F" '{session_id: "bench", cwd: $cwd, hook_event_name: "PostToolUse",
  tool_name: "Bash", tool_input: {command: "git status --short"}, tool_response: {},
  tool_use_id: "toolu_bench"}' >"$T/post.json"
"$SPAWN" "sbx-hook post (PostToolUse event)" "$N" "$T/post.json" -- "$SBX_BIN/sbx-hook" post
rm -f "$F"/.sandbox/queue/events/*.json
# A 1 MB payload (a Write of a new file of C-like lines: an escaped quote
# and newline every ~45 bytes): reading, the NUL check, the strict parse
# and cJSON dominate (issue 16 item 6).
yes 'printf("hello, \"world\"\n"); /* a line of C */' | head -c 1000000 >"$T/big.txt"
jq -cn --rawfile c "$T/big.txt" --arg cwd "$F" '{session_id: "bench", cwd: $cwd,
  hook_event_name: "PreToolUse", tool_name: "Write", tool_input: {file_path:
  ($cwd + "/new-big.txt"), content: $c}, tool_use_id: "toolu_bench"}' >"$T/big.json"
[ "$("$SBX_BIN/sbx-hook" pre <"$T/big.json" | jq -r .hookSpecificOutput.permissionDecision)" = allow ] ||
	{ echo "bench: the 1 MB Write payload is not allowed" >&2; exit 1; }
"$SPAWN" "floor: cat > /dev/null (1 MB Write payload)" "$N" "$T/big.json" -- cat
"$SPAWN" "sbx-hook pre, allow path, 1 MB Write" "$N" "$T/big.json" -- "$SBX_BIN/sbx-hook" pre
# The reference most hooks are written in. Prefer the system python3: a
# version manager's shim adds a shell script to every start.
PY=$(command -v /usr/bin/python3 || command -v python3 || true)
if [ -n "$PY" ]; then
	"$SPAWN" "python3 hook that only parses the JSON" "$N" "$T/allow.json" -- "$PY" "$T/parse.py"
fi

# No sbxd serves the folder: the hook queues (then attaches) and answers
# at once instead of waiting hook_wait_seconds (issue 13).
payload "git push origin main" >"$T/nod.json"
"$SBX_BIN/sbx-hook" pre <"$T/nod.json" | jq -r .hookSpecificOutput.permissionDecisionReason |
	grep -q "No sbxd is running" ||
	{ echo "bench: the hook did not answer 'no sbxd' at once" >&2; exit 1; }
"$SPAWN" "sbx-hook pre, escalation with no sbxd" "$N" "$T/nod.json" -- "$SBX_BIN/sbx-hook" pre
rm -f "$F"/.sandbox/queue/new/*.json

# Escalation round trip with a remembered approval: the hook writes the
# request, sbxd auto-approves and runs `true`, the hook answers.
jq '.escalate = ["Bash(true)"] | .limits.hook_wait_seconds = 30 | .limits.max_per_minute = 100000' \
	"$F/.sandbox/policy.json" >"$T/p" && mv "$T/p" "$F/.sandbox/policy.json"
"$SBX_BIN/sbx" -C "$F" policy accept >/dev/null
"$SBX_BIN/sbxd" "$F" 2>"$T/sbxd.log" &
DPID=$!
for _ in $(seq 100); do grep -q serving "$T/sbxd.log" && break; sleep 0.05; done
payload "true" >"$T/esc.json"
(cd "$F" && "$SBX_BIN/sbx-hook" pre <"$T/esc.json" >"$T/first.json") &
for _ in $(seq 200); do
	id=$("$SBX_BIN/sbx" -C "$F" pending --json | jq -r '.[0].id // empty')
	[ -n "$id" ] && break
	sleep 0.05
done
"$SBX_BIN/sbx" -C "$F" approve "$id" --remember >/dev/null
wait %2 2>/dev/null || true
"$SPAWN" "escalation round trip, remembered (true)" "$N" "$T/esc.json" -- "$SBX_BIN/sbx-hook" pre
"$SBX_BIN/sbx-hook" pre <"$T/esc.json" | jq -r .hookSpecificOutput.permissionDecisionReason |
	head -1 | grep -q "remembered approval" ||
	{ echo "bench: the round trip did not go through a remembered approval" >&2; exit 1; }
echo "requests recorded by sbxd: $(sqlite3 "$F/.sandbox/state.db" "select count(*) from requests where status='done'")"

# What the round trip no longer waits for (issue 16 item 1): a child
# moved into its pids cgroup waits for a kernel grace period; sbxd's
# spare executor pays it ahead, and cgroup v2 can clone into the cgroup.
echo
"$SBX_BENCH_BIN/cgmove" 20

# The jail (issue 10): start-up next to a bare bwrap, and the hook's allow
# path inside a running jail next to the same outside.
BWRAP=$(command -v bwrap || true)
if [ -n "$BWRAP" ] && [ -x "$SBX_BIN/sbx-jail-init" ]; then
	NJ=$(( N / 5 > 20 ? N / 5 : 20 ))
	echo
	printf '%-44s %6s  %8s  %8s  %8s  %8s\n' "the jail, whole process (ms)" runs median p99 min max
	"$SPAWN" "bare bwrap --ro-bind / / true" "$NJ" /dev/null -- "$BWRAP" --ro-bind / / true
	"$SPAWN" "bwrap, the same namespaces, true" "$NJ" /dev/null -- "$BWRAP" --ro-bind / / \
		--dev /dev --proc /proc --unshare-all --die-with-parent --as-pid-1 true
	(cd "$F" && "$SPAWN" "sbx jail --offline -- true" "$NJ" /dev/null -- \
		"$SBX_BIN/sbx" jail --offline -- true)
	if [ -x "$SBX_BIN/sbx-proxy" ]; then
		(cd "$F" && "$SPAWN" "sbx jail -- true (with sbx-proxy)" "$NJ" /dev/null -- \
			"$SBX_BIN/sbx" jail -- true)
	fi
	cp "$T/allow.json" "$F/.bench-allow.json"
	"$SPAWN" "sbx-hook pre, allow path, outside" "$N" "$F/.bench-allow.json" -- \
		"$SBX_BIN/sbx-hook" pre
	(cd "$F" && "$SBX_BIN/sbx" jail --offline -- "$SPAWN" "sbx-hook pre, allow path, in the jail" \
		"$N" "$F/.bench-allow.json" -- "$SBX_BIN/sbx-hook" pre)
	rm -f "$F/.bench-allow.json"
fi
# sbx-proxy (issue 10): what it adds per connection on loopback, and bulk
# throughput through a CONNECT tunnel (tests/bench/proxybench). sbxd is
# still running, so every connection's audit event is recorded as usual.
if [ -x "$SBX_BIN/sbx-proxy" ]; then
	jq '.network.allowedDomains = ["127.0.0.1"]' "$F/.sandbox/policy.json" >"$T/p" &&
		mv "$T/p" "$F/.sandbox/policy.json"
	"$SBX_BIN/sbx" -C "$F" policy accept >/dev/null
	"$SBX_BIN/sbx-proxy" -C "$F" --socket "$T/proxy.sock" --session bench --ready-fd 3 \
		3>"$T/proxy.ready" 2>"$T/proxy.log" &
	PXPID=$!
	for _ in $(seq 100); do grep -q ready "$T/proxy.ready" && break; sleep 0.05; done
	echo
	echo "sbx-proxy, $N connections each way, 200 MB each direction (tests/bench/proxybench)"
	"$SBX_BENCH_BIN/proxybench" "$T/proxy.sock" "$N" 200
	kill "$PXPID" 2>/dev/null; wait "$PXPID" 2>/dev/null
fi
echo
echo "policy engine, one core (tests/bench/policy_bench):"
"$SBX_BENCH_BIN/policy_bench" "${SBX_CORPUS:-$(cd "$(dirname "$0")/../.." && pwd)/tests/corpus}" 3

# The audit log (issue 4): appends with durability, and verification speed
# next to raw BLAKE2b over the same bytes, measured in this run.
echo
echo "audit log, $((N * 2)) records of a request's size (tests/bench/auditbench)"
mkdir "$T/audit"
"$SBX_BENCH_BIN/auditbench" "$T/audit" "$N"
kill "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null; DPID=""
"$SBX_BIN/sbx" -C "$F" audit verify >/dev/null ||
	{ echo "bench: the round trip's audit log does not verify" >&2; exit 1; }
echo "the round trip's audit log: $(wc -l <"$F/.sandbox/audit.jsonl") records, verified"

# Ingest through an inotify overflow (issue 14): INGEST_N requests at once.
echo
SBX_BENCH_BIN="$SBX_BENCH_BIN" INGEST_N="${INGEST_N:-20000}" bash "$(dirname "$0")/ingest.sh"
