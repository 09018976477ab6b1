# dep3lib.sh - deployment 3 with real users (sourced after lib.sh): the
# agent's user A owns the project, sbxd's user B owns .sandbox/ and
# holds a secret A cannot read. Both users are made here with useradd,
# with names of this test's own, and removed at the end. Needs root.
[ "$(id -u)" -eq 0 ] || skip_all "needs root to make users (useradd) and run as them"
for t in useradd userdel setpriv; do
	command -v "$t" >/dev/null 2>&1 || skip_all "$t is missing (apt-get install passwd util-linux)"
done

# Names of this run only: removed by the trap, whatever happens.
UA="sbx3a$$"
UB="sbx3b$$"
_users=""
dep3_cleanup() {
	stop_daemon
	[ -n "${APID:-}" ] && kill "$APID" 2>/dev/null
	for u in $_users; do
		pkill_owned "$u"
		wait_for 10 sh -c "[ -z \"\$(ps -o pid= -u $u 2>/dev/null)\" ]"
		userdel "$u" >/dev/null 2>&1 || userdel -f "$u" >/dev/null 2>&1
		getent group "$u" >/dev/null && groupdel "$u" >/dev/null 2>&1
	done
	[ "${SBX_KEEP:-}" ] || rm -rf "$T"
}
# pkill_owned USER: ends what this test left running as its own user
# (by the user's uid, which exists only for this test).
pkill_owned() {
	local pids
	pids=$(ps -o pid= -u "$1" 2>/dev/null) || return 0
	[ -n "$pids" ] && kill $pids 2>/dev/null
	return 0
}
trap dep3_cleanup EXIT

chmod 0755 "$T"
mkdir -p "$T/home-a" "$T/home-b" "$T/bin"
useradd -M -U -d "$T/home-a" -s /bin/sh "$UA" || skip_all "useradd $UA failed"
_users="$UA"
useradd -M -U -d "$T/home-b" -s /bin/sh "$UB" || skip_all "useradd $UB failed"
_users="$UA $UB"
chown "$UA:" "$T/home-a"
chown "$UB:" "$T/home-b"
chmod 0700 "$T/home-a" "$T/home-b"
# The programs, where both users can run them.
cp "$SBX_BIN"/sbx "$SBX_BIN"/sbx-hook "$SBX_BIN"/sbx-mcp "$SBX_BIN"/sbxd "$SBX_BIN"/sbx-proxy \
	"$SBX_BIN"/sbx-jail-init "$T/bin/"
chmod 0755 "$T/bin" "$T/bin"/*
SBX_BIN="$T/bin"
SBX="$SBX_BIN/sbx"
HOOK="$SBX_BIN/sbx-hook"
SBXD="$SBX_BIN/sbxd"
export SBX_HOOK_DIR="$SBX_BIN"
CONF_A="$T/home-a/.config/sbx"
CONF_B="$T/home-b/.config/sbx"
# The project is A's; B may enter it (its approved commands run there).
chown "$UA:" "$FOLDER"
chmod 0755 "$FOLDER"
# B's secret: what the privileged path holds and the agent must not.
echo "treasure-of-b-$$" >"$T/home-b/secret"
chown "$UB:" "$T/home-b/secret"
chmod 0600 "$T/home-b/secret"

# as USER CMD...: runs CMD as USER, with its groups, its HOME and its
# config dir, nothing of root's.
as() {
	local u=$1 h
	shift
	h=$(getent passwd "$u" | cut -d: -f6)
	setpriv --reuid="$u" --regid="$u" --init-groups -- env -i PATH=/usr/bin:/bin \
		HOME="$h" USER="$u" SBX_HOOK_DIR="$SBX_BIN" "$@"
}
# as_exec USER CMD...: the same, replacing this (sub)shell, so that $! of
# `as_exec ... &` is the pid of CMD itself.
as_exec() {
	local u=$1 h
	shift
	h=$(getent passwd "$u" | cut -d: -f6)
	exec setpriv --reuid="$u" --regid="$u" --init-groups -- env -i PATH=/usr/bin:/bin \
		HOME="$h" USER="$u" SBX_HOOK_DIR="$SBX_BIN" "$@"
}
as_a() { as "$UA" "$@"; }
as_b() { as "$UB" "$@"; }

# The agent's side sets the folder up as usual, then root hands it over.
dep3_setup() {
	as_a "$SBX" init --claude "$FOLDER" >"$T/init.out" 2>&1 &&
		"$SBX" handover --daemon-user "$UB" "$FOLDER" >"$T/handover.out" 2>&1
}

# B edits its policy: escalate ./task.sh, which says who ran it and reads
# B's secret; B accepts it.
dep3_task() {
	cat >"$FOLDER/task.sh" <<'SH'
#!/bin/sh
echo "ran-as $(id -un)"
cat "$HOME/secret" 2>&1
echo "run $*" >>"$HOME/runs.log"
SH
	chown "$UA:" "$FOLDER/task.sh"
	chmod 0755 "$FOLDER/task.sh"
	as_b sh -c 'p="$1/.sandbox/policy.json"
		jq ".escalate = ((.escalate // []) + [\"Bash(./task.sh:*)\"])" "$p" >"$HOME/p.new" &&
		cat "$HOME/p.new" >"$p" && "$2" -C "$1" policy accept' sh "$FOLDER" "$SBX" >/dev/null
}

# B's sbxd; DPID is its pid (started by this shell, ended by the trap).
start_daemon_b() {
	: >"$T/sbxd.log"
	chmod 0666 "$T/sbxd.log"
	as_exec "$UB" "$SBXD" "$FOLDER" 2>>"$T/sbxd.log" &
	DPID=$!
	wait_for 10 grep -q serving "$T/sbxd.log"
}

# hook_a CMD: A's hook for a Bash call, as Claude Code runs it.
hook_a() {
	bash_payload "$1" | as_a env CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre
}
runs_b() { [ -f "$T/home-b/runs.log" ] && wc -l <"$T/home-b/runs.log" | tr -d ' ' || echo 0; }
pending_b() { as_b "$SBX" -C "$FOLDER" pending --json 2>/dev/null | jq -r '.[].id'; }
has_pending_b() { [ -n "$(pending_b)" ]; }
