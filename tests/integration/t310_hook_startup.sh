#!/usr/bin/env bash
# The hook's start-up asks the kernel less (the cwd is resolved once, the
# folder's and the config dir's components are looked at once, the queue's
# directories are opened from the .sandbox fd without a dup) and still
# refuses everything a hostile agent can plant on those paths:
# - a cwd reached through a symlink finds the real folder, and a write to
#   .sandbox/policy.json from there is not allowed;
# - a .sandbox that is a symlink is no folder: the hook finds none;
# - a config dir reached through a symlink still loads the accepted
#   policy, and writes into the config dir are not allowed by either path;
# - a symlinked approver key, policy.accepted or policy.json: denied; an
#   acceptance naming an approver outside approvers/ or another one: denied;
# - queue/ or queue/new swapped for a symlink: the request is not queued,
#   nothing is written where it points;
# - (strace) each component of the cwd is read with readlink once, not
#   twice.
. "$(dirname "$0")/lib.sh"

SB="$FOLDER/.sandbox"
OUT="$T/outside"
mkdir -m 700 "$OUT"
init_folder
mkdir -p "$FOLDER/sub"

# hook_at CWD CMD: the hook for a Bash call made in CWD.
hook_at() { bash_payload "$2" "$1" | "$HOOK" pre; }

is "$(hook_at "$FOLDER" "git status" | decision)" allow "an ordinary call is allowed"

# 1. The cwd through a symlink: the real folder.
ln -s "$FOLDER/sub" "$T/link"
is "$(hook_at "$T/link" "git status" | decision)" allow \
	"a cwd reached through a symlink finds the folder"
d=$(hook_at "$T/link" "echo x > ../.sandbox/policy.json" | decision)
[ "$d" != allow ]
ok $? "a write to .sandbox/policy.json from there is not allowed ($d)"
w=$(payload Write "$(jq -cn --arg p "$T/link/../.sandbox/policy.json" \
	'{file_path: $p, content: "{}"}')" "$T/link" | "$HOOK" pre)
d=$(printf '%s' "$w" | decision)
[ "$d" != allow ]
ok $? "a Write to it through the symlinked path is not allowed ($d)"

# 2. A .sandbox that is a symlink is not a folder.
mkdir "$T/fake"
ln -s "$SB" "$T/fake/.sandbox"
r=$(hook_at "$T/fake" "git status")
is "$(printf '%s' "$r" | decision)" deny "a symlinked .sandbox is no folder: denied"
like "$(printf '%s' "$r" | reason)" "no \.sandbox/ folder above" "and the reason says so"

# 3. The config dir through a symlink: accepted as before; writes into
# it are not allowed through either path.
ln -s "$SBX_CONFIG_DIR" "$T/cfglink"
is "$(SBX_CONFIG_DIR="$T/cfglink" hook_at "$FOLDER" "git status" | decision)" allow \
	"a config dir reached through a symlink loads the accepted policy"
for c in "$SBX_CONFIG_DIR" "$T/cfglink"; do
	d=$(SBX_CONFIG_DIR="$T/cfglink" hook_at "$FOLDER" "echo k > $c/approvers/evil.pub" |
		decision)
	[ "$d" != allow ]
	ok $? "a write into the config dir as $c is not allowed ($d)"
done

# 4. Symlinks where the trust files are: denied.
key=$(ls "$SBX_CONFIG_DIR/approvers/" | grep '\.pub$' | head -1)
[ -n "$key" ]
ok $? "the approver's key is in approvers/ ($key)"
mv "$SBX_CONFIG_DIR/approvers/$key" "$T/$key"
ln -s "$T/$key" "$SBX_CONFIG_DIR/approvers/$key"
r=$(hook_at "$FOLDER" "git status")
is "$(printf '%s' "$r" | decision)" deny "a symlinked approver key: denied"
like "$(printf '%s' "$r" | reason)" "not accepted|not a trusted approver key" "as not accepted"
rm "$SBX_CONFIG_DIR/approvers/$key"
mv "$T/$key" "$SBX_CONFIG_DIR/approvers/$key"
for f in policy.accepted policy.json; do
	mv "$SB/$f" "$T/$f"
	ln -s "$T/$f" "$SB/$f"
	is "$(hook_at "$FOLDER" "git status" | decision)" deny "a symlinked $f: denied"
	rm "$SB/$f"
	mv "$T/$f" "$SB/$f"
done
# The signer's key is read by the approver's name in policy.accepted
# (approvers/NAME.pub, no scan): a name that walks out of approvers/ is
# no approver, and another name's key does not verify.
cp "$SB/policy.accepted" "$T/acc"
for who in "../approvers/${key%.pub}" "/$SBX_CONFIG_DIR/approvers/${key%.pub}" nobody; do
	jq -c --arg w "$who" '.approver = $w' "$T/acc" >"$SB/policy.accepted"
	r=$(hook_at "$FOLDER" "git status")
	is "$(printf '%s' "$r" | decision)" deny "policy.accepted naming approver '$who': denied"
done
cp "$T/acc" "$SB/policy.accepted"
is "$(hook_at "$FOLDER" "git status" | decision)" allow "restored: allowed again"

# 5. The queue's directories swapped for symlinks: nothing is queued.
for q in queue queue/new; do
	mv "$SB/$q" "$T/q.real"
	ln -s "$OUT" "$SB/$q"
	r=$(hook_at "$FOLDER" "git push origin main")
	is "$(printf '%s' "$r" | decision)" deny "$q as a symlink: the escalation is denied"
	unlike "$(printf '%s' "$r" | reason)" "queued as request" "and not queued"
	is "$(ls -A "$OUT")" "" "nothing was written through the $q symlink"
	rm "$SB/$q"
	mv "$T/q.real" "$SB/$q"
done
r=$(hook_at "$FOLDER" "git push origin main")
like "$(printf '%s' "$r" | reason)" "queued as request" "restored: the escalation is queued"

# 6. Each component of the cwd is resolved once.
if command -v strace >/dev/null 2>&1; then
	bash_payload "git status" "$FOLDER/sub" >"$T/p.json"
	strace -f -e trace=readlink,readlinkat -o "$T/st.txt" "$HOOK" pre <"$T/p.json" >/dev/null
	n=$(grep -c "\"$FOLDER/sub\"" "$T/st.txt")
	is "$n" 1 "the cwd's last component is read with readlink once"
	n=$(grep -c "\"$FOLDER\"" "$T/st.txt")
	is "$n" 1 "and the folder's once"
else
	ok 0 "# SKIP strace is not installed"
	ok 0 "# SKIP strace is not installed"
fi

done_testing
