#!/usr/bin/env bash
# Keeping the original before a Write/Edit costs in proportion: content
# already stored (same hash) is not written again, and one call makes at
# most one sync. An object the agent cut short or replaced is not trusted:
# it is written again, and restore still brings back the right bytes.
. "$(dirname "$0")/lib.sh"

init_folder
F="$FOLDER/big.txt"
O="$FOLDER/.sandbox/queue/originals"
head -c 786432 /dev/urandom | base64 -w 76 >"$F"
cp "$F" "$T/orig"
write_call() {	# write_call PATH: the hook's decision for a Write of PATH
	payload Write "$(jq -cn --arg p "$1" '{file_path: $p, content: "new"}')" | "$HOOK" pre |
		decision
}
objects() { find "$O/objects" -type f | wc -l | tr -d ' '; }
index() { find "$O/index" -type f | wc -l | tr -d ' '; }

is "$(write_call "$F")" "allow" "a Write over an existing 1 MB file is allowed"
is "$(objects) $(index)" "1 1" "its original is kept: one object, one index entry"
obj=$(find "$O/objects" -type f)
ino=$(stat -c %i "$obj")
is "$(write_call "$F")" "allow" "the same Write again"
is "$(objects) $(index)" "1 2" "the same content is indexed again but stored once"
is "$(stat -c %i "$obj")" "$ino" "the stored object was not rewritten"

# Syncs per call, counted by strace from outside (every kind of sync).
if command -v strace >/dev/null; then
	payload Write "$(jq -cn --arg p "$F" '{file_path: $p, content: "new"}')" >"$T/w.json"
	syncs() { strace -f -qq -o "$T/st" -e trace=fsync,fdatasync,syncfs,sync,sync_file_range,msync \
		"$HOOK" pre <"$T/w.json" >/dev/null; grep -cE '^[0-9]+ +(fsync|fdatasync|syncfs|sync|sync_file_range|msync)\(' "$T/st"; }
	is "$(syncs)" "1" "a call whose content is stored makes one sync"
	echo "changed once more" >>"$F"
	is "$(syncs)" "1" "a call that stores new content makes one sync too"
else
	ok 0 "# SKIP strace is not installed"
	ok 0 "# SKIP strace is not installed"
	echo "changed once more" >>"$F"
	write_call "$F" >/dev/null
fi
is "$(objects)" "2" "new content is a new object"

# The agent cuts an object short: the next keep writes it whole again.
cp "$T/orig" "$F"
head -c 100 "$T/orig" >"$obj.cut" && mv "$obj.cut" "$obj"
is "$(write_call "$F")" "allow" "a Write with the stored object cut short"
is "$(stat -c %s "$obj")" "$(stat -c %s "$T/orig")" "the object is written whole again"
# ... or replaces it with a symlink: not followed, replaced by a file.
ln -sf "$T/orig" "$obj.l" && mv -T "$obj.l" "$obj"
is "$(write_call "$F")" "allow" "a Write with the stored object replaced by a symlink"
[ -f "$obj" ] && [ ! -L "$obj" ]
ok $? "the object is a regular file again"
echo "agent's version" >"$F"
"$SBX" restore "$F" >/dev/null
ok $? "sbx restore succeeds"
cmp -s "$F" "$T/orig"
ok $? "and brings back the original bytes"

done_testing
