# lib.sh - shared helpers for the integration tests (sourced, bash).
#
# Every test runs the real executables from $SBX_BIN as separate
# processes, in a fresh temporary folder with its own config dir, and
# prints TAP for prove.
set -u

: "${SBX_BIN:?set SBX_BIN to the directory holding sbx, sbx-hook, sbxd}"
SBX="$SBX_BIN/sbx"
HOOK="$SBX_BIN/sbx-hook"
SBXD="$SBX_BIN/sbxd"
# sbx init registers these hooks, not an installed sbx-hook found on PATH.
export SBX_HOOK_DIR="$SBX_BIN"
TOOLS="${SBX_TESTS_BIN:-}/tools"

T=$(mktemp -d "${TMPDIR:-/tmp}/sbx-test.XXXXXX")
T=$(cd "$T" && pwd -P)
export SBX_CONFIG_DIR="$T/config"
# sbx init --codex writes Codex's trust records there, never into ~/.codex.
export CODEX_HOME="$T/codex-home"
# and sbx init --gemini Gemini's folder trust into $GEMINI_CLI_HOME/.gemini.
export GEMINI_CLI_HOME="$T/gemini-home"
FOLDER="$T/proj"
mkdir -p "$FOLDER"
DPID=""
_n=0
_failed=0

# thaw PID: PID, if the test stopped it (SIGSTOP) and did not go on,
# takes the signal just sent (else wait waits for ever). Only then: a
# SIGCONT also cancels the SIGSTOP of a ptrace attach, and an ASan sbxd
# that is exiting is attached by LeakSanitizer's own tracer, which then
# waited for ever (and sbxd with it, spinning).
thaw() {
	[ "$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null)" = T ] &&
		kill -CONT "$1" 2>/dev/null
	return 0
}

cleanup() {
	local j
	stop_daemon
	# whatever else the test left running in the background (another
	# sbxd, a hook, a server), also when it ended half-way: it must not
	# disturb the tests that run after it
	for j in $(jobs -pr); do	# (running: a reaped one's pid may be another's now)
		kill "$j" 2>/dev/null
		thaw "$j"
	done
	[ "${SBX_KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

ok() {	# ok COND-EXIT-STATUS DESCRIPTION
	_n=$((_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_n - $2"
	else
		_failed=$((_failed + 1))
		echo "not ok $_n - $2"
		[ -f "$T/sbxd.log" ] && sed 's/^/#   sbxd: /' "$T/sbxd.log" | tail -15
	fi
}

check() {	# check DESCRIPTION CMD... : passes when CMD succeeds
	local d=$1
	shift
	"$@" >/dev/null 2>&1
	ok $? "$d"
}

is() {	# is GOT WANT DESCRIPTION
	[ "$1" = "$2" ]
	local r=$?
	ok $r "$3"
	[ $r -eq 0 ] || printf '#   got:  %s\n#   want: %s\n' "$1" "$2"
}

like() {	# like GOT REGEX DESCRIPTION
	printf '%s' "$1" | grep -Eq -- "$2"
	local r=$?
	ok $r "$3"
	[ $r -eq 0 ] || printf '#   got:  %.400s\n#   want: /%s/\n' "$1" "$2"
}

unlike() {
	printf '%s' "$1" | grep -Eq -- "$2"
	local r=$?
	[ $r -ne 0 ]
	ok $? "$3"
	[ $r -ne 0 ] || printf '#   got:  %.400s\n#   must not match: /%s/\n' "$1" "$2"
}

done_testing() {
	echo "1..$_n"
	[ "$_failed" -eq 0 ]
	exit $?
}

# hook_of COMMAND: "EXE MODE" of a hook command sbx init registered (the
# wrapper that blocks when sbx-hook is gone runs "$0" MODE with $0 = EXE).
hook_of() {
	printf '%s' "$1" | sed -nE "s/^sh -c 'if \[ -x \"\\\$0\" \]; then \"\\\$0\" ([a-z-]+);.*' (.*)\$/\2 \1/p"
}

# skip_all REASON: the whole file is skipped, and prove shows why. Only for
# what the machine lacks (no npm registry), never for a failure of ours.
skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

# npm_unusable PACKAGE: prints why npm cannot fetch PACKAGE here (no node,
# no npm, the registry does not answer), or nothing when it can.
npm_unusable() {
	command -v node >/dev/null 2>&1 || { echo "node is not installed (apt-get install nodejs)"; return; }
	command -v npm >/dev/null 2>&1 || { echo "npm is not installed (apt-get install npm)"; return; }
	timeout 30 npm view --fetch-retries=0 "$1" version >/dev/null 2>&1 ||
		echo "the npm registry ($(npm config get registry 2>/dev/null)) does not answer"
}

# Sanitizer builds (make asan) run 2-5 times slower, and more so on a
# loaded machine: every wait_for gives them SBX_TEST_SLOW (default 3)
# times its limit. A wait is for a condition that holds once the work is
# done, so a longer limit only delays the report of a real hang.
if [ -z "${SBX_TEST_SLOW:-}" ]; then
	SBX_TEST_SLOW=1
	grep -q __asan_init "$SBXD" 2>/dev/null && SBX_TEST_SLOW=3
fi

# wait_for SECONDS CMD...: polls CMD every 50 ms, for up to SECONDS
# (times SBX_TEST_SLOW).
wait_for() {
	local limit=$(( $1 * 20 * SBX_TEST_SLOW )) i=0
	shift
	while ! "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -ge $limit ] && return 1
		sleep 0.05
	done
	return 0
}

# running PID: PID has not ended (nor is a zombie).
running() {
	local st
	st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}

# traced STRACE-PID PID...: strace STRACE-PID has attached to every PID
# that still runs (its TracerPid).
traced() {
	local s=$1 p
	shift
	for p; do
		[ "$(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$p/status" 2>/dev/null)" = "$s" ] ||
			! running "$p" || return 1
	done
}

# wait_traced STRACE-PID PID...: waits until the strace started in the
# background as STRACE-PID traces every PID, so that what they do next
# is in its output (a fixed sleep lost the first calls on a loaded
# machine). Fails at once when strace has ended: it could not attach
# (ptrace is restricted here).
wait_traced() {
	local i=0 limit=$((20 * 20 * SBX_TEST_SLOW))
	while ! traced "$@"; do
		running "$1" || return 1
		i=$((i + 1))
		[ $i -ge $limit ] && return 1
		sleep 0.05
	done
}

init_folder() {
	"$SBX" init "$FOLDER" >"$T/init.out" 2>&1
}

# set_limits JSON-OBJECT: merges into the policy's "limits".
set_limits() {
	local p="$FOLDER/.sandbox/policy.json"
	jq --argjson l "$1" '.limits = ((.limits // {}) + $l)' "$p" >"$p.new" && mv "$p.new" "$p"
	accept_policy
}

# accept_policy: the human accepts the edited policy (sbx policy accept).
accept_policy() {
	"$SBX" -C "$FOLDER" policy accept >/dev/null
}

# add_rule LIST RULE: appends RULE to the policy's LIST (allow/escalate/deny).
add_rule() {
	local p="$FOLDER/.sandbox/policy.json"
	jq --arg l "$1" --arg r "$2" '.[$l] = ((.[$l] // []) + [$r])' "$p" >"$p.new" &&
		mv "$p.new" "$p"
	accept_policy
}

start_daemon() {
	: >"$T/sbxd.log"
	"$SBXD" "$FOLDER" 2>>"$T/sbxd.log" &
	DPID=$!
	# serving, or gone (it refused to start: its log says why); an ASan
	# sbxd next to a heavy test (t141 starts 72 runs at once) on a
	# loaded machine may take long to start.
	wait_for 30 sh -c 'grep -q serving "$1" || ! kill -0 "$2" 2>/dev/null' sh \
		"$T/sbxd.log" "$DPID"
	grep -q serving "$T/sbxd.log"
}

stop_daemon() {
	if [ -n "$DPID" ]; then
		kill "$DPID" 2>/dev/null
		thaw "$DPID"
		wait "$DPID" 2>/dev/null
		DPID=""
	fi
}

# payload TOOL INPUT-JSON [CWD]: a Claude Code PreToolUse payload.
payload() {
	jq -cn --arg tool "$1" --argjson input "$2" --arg cwd "${3:-$FOLDER}" \
		'{session_id: "sess-1", transcript_path: "/dev/null", cwd: $cwd,
		  permission_mode: "default", hook_event_name: "PreToolUse",
		  tool_name: $tool, tool_input: $input, tool_use_id: "toolu_1"}'
}

bash_payload() {
	payload Bash "$(jq -cn --arg c "$1" '{command: $c, description: "test"}')" "${2:-$FOLDER}"
}

# hook_bash CMD: runs the hook for a Bash call; prints its stdout.
hook_bash() {
	bash_payload "$1" | CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre
}

decision() { jq -r '.hookSpecificOutput.permissionDecision' 2>/dev/null; }
reason() { jq -r '.hookSpecificOutput.permissionDecisionReason' 2>/dev/null; }

pending_ids() { "$SBX" -C "$FOLDER" pending --json 2>/dev/null | jq -r '.[].id'; }
has_pending() { [ -n "$(pending_ids)" ]; }
# own_oldest PATTERN: the oldest process matching PATTERN (pgrep -f)
# that runs in this test's folder: pgrep sees every test's processes, and
# another run of the same test may run the same command at the same time.
own_oldest() {
	local p l=""
	for p in $(pgrep -f "$1"); do
		[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$FOLDER" ] && l="$l,$p"
	done
	[ -n "$l" ] && ps -o pid= --sort=start_time -p "${l#,}" | head -1 | tr -d ' ' | grep .
}

# known ID: sbxd has taken request ID in (sbx show knows it). A hook
# answers "pending as request ID" after hook_wait_seconds whether or not
# sbxd has recorded it yet, and sbx approve refuses an id it does not know.
known() { "$SBX" -C "$FOLDER" show "$1" >/dev/null 2>&1; }

# setup_task: a script in the folder that the policy escalates; every run
# is counted in $FOLDER/runs.log.
setup_task() {
	cat >"$FOLDER/task.sh" <<'SH'
#!/bin/sh
echo "run $*" >>"$(dirname "$0")/runs.log"
echo "out: $*"
echo "err: $*" >&2
case "$1" in
sleep) sleep "$2" ;;
fail) exit 3 ;;
big) head -c "$2" /dev/zero | tr '\0' x ;;
esac
exit 0
SH
	chmod +x "$FOLDER/task.sh"
	add_rule escalate 'Bash(./task.sh:*)'
}

runs() { [ -f "$FOLDER/runs.log" ] && wc -l <"$FOLDER/runs.log" | tr -d ' ' || echo 0; }
