#!/usr/bin/env bash
# sbx jail's start-up: every setup failure is exit 125 before COMMAND
# runs, with the command that fixes it; otherwise the exit status is
# COMMAND's (126/127 like env); protected symlinks are refused; the
# placeholders and the staging dir are gone afterwards; the terminal is
# kept (no new session), and the seccomp filter refuses what it should.
. "$(dirname "$0")/lib.sh"

command -v bwrap >/dev/null || { echo "1..0 # SKIP bubblewrap is not installed"; exit 0; }

export HOME="$T/home"
mkdir -p "$HOME"
J() { "$SBX" -C "$FOLDER" jail --offline "$@"; }

out=$("$SBX" jail --help)
is "$?" 0 "--help exits 0"
like "$out" "^usage: sbx jail" "--help prints the usage on stdout"

J -- true >"$T/o" 2>&1
is "$?" 125 "no .sandbox: exit 125"
like "$(cat "$T/o")" "sbx init" "and the message says to run sbx init"

init_folder
J -- touch "$FOLDER/ran" >"$T/o" 2>&1
is "$?" 125 "sbxd not serving the folder: exit 125"
like "$(cat "$T/o")" "sbxd is not serving .*Start it: \`sbxd " "the message says how to start sbxd"
[ ! -e "$FOLDER/ran" ]
ok $? "COMMAND did not run"

start_daemon
echo '{}' >>"$FOLDER/.sandbox/policy.json"
J -- true >"$T/o" 2>&1
is "$?" 125 "a policy that is not accepted: exit 125"
like "$(cat "$T/o")" "policy" "the message names the policy problem"
# Restore a valid, accepted policy.
printf '{"version": 1}\n' >"$FOLDER/.sandbox/policy.json"
accept_policy

PATH=/nonexistent "$SBX" -C "$FOLDER" jail --offline -- /bin/true >"$T/o" 2>&1
is "$?" 125 "no bwrap on PATH: exit 125"
like "$(cat "$T/o")" "apt-get install bubblewrap" "the message says how to install it"

J -- sh -c 'exit 7'
is "$?" 7 "COMMAND's exit status is passed through"
J -- sh -c 'kill -TERM $$'
is "$?" 143 "a signal N is 128+N"
J -- no-such-command-xyz 2>/dev/null
is "$?" 127 "a command that is not found: 127"
printf 'x' >"$FOLDER/notexec"
J -- "$FOLDER/notexec" 2>/dev/null
is "$?" 126 "a command that cannot run: 126"

out=$(J -- sh -c 'ls -d .envrc .vscode .husky .idea .mcp.json; echo "tmpdir=$TMPDIR cache=$XDG_CACHE_HOME"' 2>&1)
like "$out" "tmpdir=/tmp cache=/tmp/.cache" "TMPDIR is the private /tmp, and caches go there"
like "$out" "\\.envrc" "inside, .envrc is a read-only placeholder"
[ ! -e "$FOLDER/.envrc" ] && [ ! -e "$FOLDER/.vscode" ]
ok $? "outside, after the jail, the placeholders are gone"
ln -s elsewhere "$FOLDER/.envrc"
J -- touch "$FOLDER/ran" >"$T/o" 2>&1
is "$?" 125 "a protected path that is a symlink: exit 125"
like "$(cat "$T/o")" "\\.envrc is a symlink" "the message names it"
rm -f "$FOLDER/.envrc"

# Two jails of one folder: the placeholders stay until the last one ends,
# whichever made them (removing one on the host would detach the mount
# in the other jail). held NAME: a jail command that says it runs (file
# NAME.up) and holds until the test releases it (NAME.go): no sleeps.
held() { printf 'touch %s.up; i=0; while [ ! -e %s.go ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done' "$FOLDER/.$1" "$FOLDER/.$1"; }
up() { [ -e "$FOLDER/.$1.up" ]; }
release() { touch "$FOLDER/.$1.go"; }
J -- sh -c "$(held h1)" &
j1=$!
wait_for 60 up h1
ok $? "a first jail runs"
J -- true
[ -d "$FOLDER/.envrc" ]
ok $? "a jail that ends leaves the placeholders of another running jail"
J -- sh -c 'echo x > .envrc' 2>/dev/null
[ -d "$FOLDER/.envrc" ] && [ ! -f "$FOLDER/.envrc" ]
ok $? "and .envrc stays read-only in a jail started meanwhile"
release h1
wait "$j1"
[ ! -e "$FOLDER/.envrc" ]
ok $? "the last jail to end removes them"
J -- sh -c "$(held h2)" &
j1=$!
wait_for 60 up h2
J -- sh -c "$(held h3)" &
j2=$!
wait_for 60 up h3
ok $? "two jails run"
release h2
wait "$j1"
[ -d "$FOLDER/.envrc" ]
ok $? "the first jail ends while a later one runs: placeholders kept"
release h3
wait "$j2"
[ ! -e "$FOLDER/.envrc" ] && [ ! -e "$FOLDER/.vscode" ]
ok $? "the later jail, last to end, removes those the first one made"

# sbx jail killed with SIGKILL: the jail dies with it, and the next jail
# of the folder removes the placeholders it left.
# (a duration of this run's own: pgrep sees every test's processes, and
# another run of this test may sleep at the same time)
S1="4321.$$"
"$SBX" -C "$FOLDER" jail --offline -- sleep "$S1" &
jk=$!
disown "$jk"    # no "Killed" notice from bash
wait_for 30 pgrep -f "^sleep $S1\$"
kill -KILL "$jk" 2>/dev/null
wait_for 20 sh -c '! pgrep -f "^sleep $1\$"' sh "$S1"
ok $? "the jail dies with sbx jail (even by SIGKILL)"
[ -d "$FOLDER/.envrc" ]
ok $? "its placeholders are left behind"
stage=$(sed -n 's/^s //p' "$SBX_CONFIG_DIR"/jail-locks/*.lock | head -1)
[ -n "$stage" ] && [ -d "$stage" ]
ok $? "and its staging dir ($stage)"
J -- true
[ ! -e "$FOLDER/.envrc" ] && [ ! -e "$FOLDER/.idea" ]
ok $? "the next jail of the folder removes them"
[ ! -e "$stage" ]
ok $? "and the staging dir"

# A protected file replaced on the host while the jail runs (git config
# renames over .git/config): the mount on it would be gone inside, so
# the jail is stopped, with a message.
git -C "$FOLDER" init -q 2>/dev/null
# (Nothing releases h4: the jail must be stopped while it holds; were it
# not, it would write after 60 s and the test fail.)
J -- sh -c "$(held h4); echo '[core]' > .git/config && echo WROTE" >"$T/o" 2>&1 &
jw=$!
wait_for 60 up h4
git -C "$FOLDER" config sbx.test 1
wait "$jw"
is "$?" 125 "git config on the host stops the jail (exit 125)"
like "$(cat "$T/o")" "\.git/config was removed or replaced outside the jail" "and says why"
unlike "$(cat "$T/o")" "WROTE" "the agent never wrote .git/config"
is "$(git -C "$FOLDER" config sbx.test)" "1" "the host's change stands"

# Settings files not made yet: read-only "{}" files in the jail (Claude
# Code refuses to start when settings.json is a directory), gone after.
mkdir -p "$HOME/.claude"
rm -f "$HOME/.claude/settings.json"
out=$(J -- sh -c 'cat ~/.claude/settings.json; echo "{\"hooks\":1}" > ~/.claude/settings.json; echo "rc=$?"' 2>&1)
like "$out" "^\{\}" "~/.claude/settings.json reads as {} in the jail"
like "$out" "rc=[1-9]" "and cannot be written"
[ ! -e "$HOME/.claude/settings.json" ]
ok $? "and is gone after the jail"

# The agent's own login: hidden, unless --login.
echo '{"oauthAccount":"LOGIN-STATE"}' >"$HOME/.claude.json"
mkdir -p "$HOME/.claude" && echo '{"token":"CREDENTIAL"}' >"$HOME/.claude/.credentials.json"
out=$(J -- sh -c 'cat ~/.claude.json ~/.claude/.credentials.json' 2>&1)
unlike "$out" "LOGIN-STATE|CREDENTIAL" "without --login the agent's login files are empty in the jail"
out=$(J --login -- sh -c 'cat ~/.claude.json ~/.claude/.credentials.json; echo "{\"n\":1}" > ~/.claude.json' 2>&1)
like "$(echo $out)" "LOGIN-STATE.*CREDENTIAL" "with --login the agent reads its own login"
is "$(cat "$HOME/.claude.json")" '{"n":1}' "and can refresh it"
out=$(J --login -- sh -c 'ls ~/.ssh 2>&1; cat "$SBX_CONFIG_DIR/approver.key" 2>&1' 2>&1)
unlike "$out" "^[0-9a-f]{20}" "--login opens nothing else"

out=$(cd "$FOLDER" && "$SBX" doctor 2>&1)
like "$out" "bubblewrap .* can build a jail here" "sbx doctor checks that bubblewrap can build a jail"

# The seccomp filter, seen from inside: Unix sockets refused, socketpair
# allowed, io_uring absent, no new namespaces.
out=$(J -- python3 -c '
import socket, ctypes, os
try:
    socket.socket(socket.AF_UNIX); print("unix allowed")
except PermissionError: print("unix refused")
a, b = socket.socketpair(); a.send(b"x"); print("socketpair", b.recv(1).decode())
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(425, 1, ctypes.c_void_p(0)); print("io_uring_setup", r, os.strerror(ctypes.get_errno()))
r = libc.unshare(0x10000000); print("unshare", r, os.strerror(ctypes.get_errno()))
r = libc.ptrace(16, 1, 0, 0); print("ptrace-pid1", r, os.strerror(ctypes.get_errno()))
print("nnp", [l.split()[1] for l in open("/proc/self/status") if l.startswith("NoNewPrivs")][0])
print("capeff", [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0])
' 2>&1)
like "$out" "unix refused" "socket(AF_UNIX) is refused"
like "$out" "socketpair x" "socketpair still works"
like "$out" "io_uring_setup -1 Function not implemented" "io_uring is refused"
like "$out" "unshare -1 Operation not permitted" "new namespaces are refused"
like "$out" "ptrace-pid1 -1 Operation not permitted" "pid 1 (the forwarder, which may use Unix sockets) cannot be ptraced"
like "$out" "nnp 1" "no_new_privs is set"
like "$out" "capeff 0000000000000000" "no capabilities"

# The terminal: no new session, so job control, raw mode and resize work.
if command -v tmux >/dev/null; then
	sock="$T/tmux.sock"
	tmux -S "$sock" new-session -d -x 100 -y 30 "cd '$FOLDER'; HOME='$HOME' SBX_CONFIG_DIR='$SBX_CONFIG_DIR' '$SBX' jail --offline -- bash --norc -i; echo JAIL-ENDED-\$?; sleep 30"
	# Each step waits for what the last one did, never for a fixed time.
	tmux -S "$sock" send-keys "stty -a | head -1 > tty1.txt; [ -t 0 ] && [ -t 1 ] && echo tty-yes > tty2.txt" Enter
	wait_for 60 test -s "$FOLDER/tty2.txt"
	tmux -S "$sock" resize-window -x 120 -y 40 2>/dev/null || tmux -S "$sock" resize-pane -x 120 -y 40
	tmux -S "$sock" send-keys "stty size > tty3.txt" Enter
	wait_for 20 test -s "$FOLDER/tty3.txt"
	S2="1037.$$"
	tmux -S "$sock" send-keys "sleep $S2" Enter
	wait_for 20 pgrep -f "^sleep $S2\$"
	tmux -S "$sock" send-keys C-c
	wait_for 20 sh -c '! pgrep -f "^sleep $1\$"' sh "$S2"
	tmux -S "$sock" send-keys "echo after-ctrl-c > tty4.txt; exit 5" Enter
	wait_for 10 sh -c "tmux -S '$sock' capture-pane -p | grep -q JAIL-ENDED"
	is "$(cat "$FOLDER/tty2.txt" 2>/dev/null)" "tty-yes" "bash in the jail keeps the terminal"
	is "$(cat "$FOLDER/tty3.txt" 2>/dev/null)" "40 120" "a resize reaches the jail"
	is "$(cat "$FOLDER/tty4.txt" 2>/dev/null)" "after-ctrl-c" "Ctrl-C stops the foreground job, not the jail"
	like "$(tmux -S "$sock" capture-pane -p)" "JAIL-ENDED-5" "the shell's exit status comes back"
	tmux -S "$sock" kill-server 2>/dev/null
else
	echo "# tmux is missing: terminal checks skipped"
fi
done_testing
