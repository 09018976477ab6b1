#!/usr/bin/env bash
# A git repository the agent prepares runs code: git obeys the config of
# the repository it opens (core.fsmonitor runs on "git status"), and the
# policy protects that config only in directories named .git. The chain
# (docs/POLICY.md, "What the policy cannot see"): git init --bare evil;
# write core.fsmonitor = CMD and bare = false into evil/config; write the
# gitfile sub/.git ("gitdir: ../evil"); git -C sub status runs CMD.
#
# First the chain is run for real, outside sbx, to show it runs CMD with
# this git. Then every step the agent would need is judged by sbx policy
# check and by the real hook (sbx-hook pre, the payload Claude Code
# sends): none may be allowed, whatever order, tool or spelling.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null 2>&1 || skip_all "git is not installed"
export GIT_CONFIG_NOSYSTEM=1 HOME="$T/home"
mkdir -p "$HOME"
git config --global user.email t@example.com
git config --global user.name t

# --- The chain works with this git (no sbx involved).
D="$T/demo"
mkdir -p "$D"
(cd "$D" && git init -q --bare evil &&
	printf '[core]\n\tfsmonitor = "touch %s/pwned"\n\tbare = false\n' "$D" >>evil/config &&
	mkdir sub && printf 'gitdir: ../evil' >sub/.git &&
	git -C sub status) >/dev/null 2>&1
test -e "$D/pwned"
ok $? "without sbx, the chain runs core.fsmonitor (git $(git --version | cut -d' ' -f3))"

# --- The project: a git repository, sbx's policy, the hook.
init_folder
ok $? "sbx init"
git -C "$FOLDER" init -q
mkdir -p "$FOLDER/sub" "$FOLDER/src"
set_limits '{"hook_wait_seconds": 1}'

verdict() {	# verdict CMD: what sbx policy check says of CMD in the project
	"$SBX" -C "$FOLDER" policy check --json -- "$1" 2>/dev/null | jq -r .verdict
}
refused() {	# refused CMD DESCRIPTION: not allowed by sbx policy check
	local v
	v=$(verdict "$1")
	[ -n "$v" ] && [ "$v" != allow ]
	ok $? "$2: $1 -> ${v:-nothing}"
}
allowed() {
	is "$(verdict "$1")" allow "$2: $1"
}

# Step 1: a repository whose git dir is not named .git.
refused "git init --bare evil" "a bare repository"
refused "git init --bare" "a bare repository here"
refused "git clone --mirror https://example.com/r.git evil" "a mirror clone"
allowed "git init lib" "a repository with its .git"

# A human approved it (or it was there): its files are now the target.
git init -q --bare "$FOLDER/evil"
refused "printf '[core]\\n\\tfsmonitor = \"touch x\"\\n\\tbare = false\\n' >> evil/config" \
	"the bare repository's config"
refused "git config --file evil/config core.fsmonitor 'touch x'" "git config --file"
refused "sed -i s/true/false/ evil/config" "sed -i on it"
refused "cp /tmp/cfg evil/config" "cp over it"
refused "echo 'touch x' > evil/hooks/post-checkout" "a hook in it"

# Step 2: the gitfile, by every tool that writes.
refused "printf 'gitdir: ../evil' > sub/.git" "a redirection"
refused "echo 'gitdir: ../evil' | tee sub/.git" "tee"
refused "cp /tmp/gitfile sub/.git" "cp"
refused "mv /tmp/gitfile sub/.git" "mv"
refused "ln -s ../evil sub/.git" "a link"
refused "mkdir -p sub/.git" "a .git directory made by hand"
refused "echo ../evil > .git/commondir" "commondir"

# Step 3: git opening it, however it is named.
refused "git -C evil status" "git -C into the bare repository"
refused "cd evil && git log" "cd into it"
refused "git --git-dir=evil log" "--git-dir"
refused "cd \"\$(cat where)\" && git status" "a directory only known at run time"
allowed "git status" "the project's own repository"
allowed "git -C src log" "a subdirectory of it"

# The temp dir is the agent's too (writes there are allowed): a bare
# repository there is judged as one in the project. One the agent could
# not have written (outside both) is a human's, and passes.
mkdir -p "$T/tmp" "$T/human"
git init -q --bare "$T/tmp/bare"
git init -q --bare "$T/human/r.git"
v=$(TMPDIR="$T/tmp" "$SBX" -C "$FOLDER" policy check --json -- "git -C $T/tmp/bare log" 2>/dev/null |
	jq -r .verdict)
is "$v" escalate "a bare repository in the temp dir escalates"
v=$(TMPDIR="$T/tmp" "$SBX" -C "$FOLDER" policy check --json -- \
	"printf '[core]\\n\\tpager = x\\n' >> $T/tmp/bare/config" 2>/dev/null | jq -r .verdict)
is "$v" escalate "... and so does a write to its config"
allowed "git -C $T/human/r.git log" "a human's bare repository outside"
allowed "git --git-dir=$T/human/r.git log" "... named by --git-dir"

# Through the real hook: what Claude Code asks before the Write tool and
# the Bash tool (escalated: no sbxd here, so the hook answers after its
# wait, never with allow).
out=$(payload Write "$(jq -cn '{file_path: "sub/.git", content: "gitdir: ../evil"}')" |
	CLAUDE_PROJECT_DIR="$FOLDER" "$HOOK" pre 2>/dev/null)
d=$(printf '%s' "$out" | decision)
[ -n "$d" ] && [ "$d" != allow ]
ok $? "sbx-hook: Write sub/.git is not allowed (${d:-no answer})"
out=$(hook_bash "git -C evil status" 2>/dev/null)
d=$(printf '%s' "$out" | decision)
[ -n "$d" ] && [ "$d" != allow ]
ok $? "sbx-hook: git -C evil status is not allowed (${d:-no answer})"
out=$(hook_bash "git status" 2>/dev/null)
is "$(printf '%s' "$out" | decision)" allow "sbx-hook: git status in the project is allowed"

# And nothing ran: the project holds no gitfile, no marker.
test ! -e "$FOLDER/sub/.git" && test ! -e "$FOLDER/sub/x"
ok $? "nothing was written by the judgements"

done_testing
