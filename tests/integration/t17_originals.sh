#!/usr/bin/env bash
# Recoverable originals: before an allowed Write/Edit changes a file, the
# hook keeps its content; sbx history lists it, sbx restore brings it back.
. "$(dirname "$0")/lib.sh"

init_folder
F="$FOLDER/notes.txt"
printf 'v1\n' >"$F"

file_call() {	# file_call TOOL PATH: the hook's decision for a file tool
	local input
	case "$1" in
	Write) input=$(jq -cn --arg p "$2" '{file_path: $p, content: "new"}') ;;
	Edit) input=$(jq -cn --arg p "$2" '{file_path: $p, old_string: "v", new_string: "w"}') ;;
	esac
	payload "$1" "$input" | "$HOOK" pre | decision
}

is "$(file_call Write "$F")" "allow" "a Write inside the project is allowed"
printf 'v2\n' >"$F"
is "$(file_call Edit "$F")" "allow" "an Edit inside the project is allowed"
printf 'v3\n' >"$F"
h=$("$SBX" history "$F" --json)
is "$(echo "$h" | jq length)" "2" "history lists the two replaced versions"
is "$(echo "$h" | jq -r '.[0].tool + " " + (.[0].size|tostring)')" "Write 3" "oldest first, with tool and size"
like "$("$SBX" history "$F")" "restore one with" "the plain listing says how to restore"

"$SBX" restore "$F" >/dev/null
ok $? "sbx restore succeeds"
is "$(cat "$F")" "v2" "without --version it brings back the latest kept version"
is "$("$SBX" history "$F" --json | jq length)" "3" "the restore kept what it replaced"
"$SBX" restore "$F" --version 1 >/dev/null
is "$(cat "$F")" "v1" "--version 1 brings back the oldest"
"$SBX" restore "$F" --version 3 >/dev/null
is "$(cat "$F")" "v3" "and the content the first restore replaced is recoverable too"
"$SBX" restore "$F" --version 99 2>/dev/null
is "$?" "1" "a version that does not exist is an error"

# Relative paths and paths through a symlinked directory name the same file.
ln -s "$FOLDER" "$T/link"
is "$(cd "$FOLDER" && "$SBX" history notes.txt --json | jq length)" "5" "history takes a relative path"
is "$("$SBX" history "$T/link/notes.txt" --json | jq length)" "5" "and a path through a symlink"

# New files have no original; big files and symlinks are recorded as skipped.
is "$(file_call Write "$FOLDER/new.txt")" "allow" "writing a new file is allowed"
is "$("$SBX" history "$FOLDER/new.txt" --json | jq length)" "0" "and nothing is kept for it"
head -c 11000000 /dev/zero >"$FOLDER/big.bin"
file_call Write "$FOLDER/big.bin" >/dev/null
like "$("$SBX" history "$FOLDER/big.bin")" "not kept: larger than" "a file above the size limit is recorded as skipped"
ln -s notes.txt "$FOLDER/alias.txt"
file_call Write "$FOLDER/alias.txt" >/dev/null
is "$("$SBX" history "$F" --json | jq -r '.[-1].tool + " " + (length|tostring)')" "Write 6" \
	"a write through a symlink keeps the original of its target"

# If the original cannot be kept, the write is denied, not made blind.
mv "$FOLDER/.sandbox/queue/originals/objects" "$T/objects.saved"
touch "$FOLDER/.sandbox/queue/originals/objects"
printf 'changed\n' >"$F"
out=$(payload Write "$(jq -cn --arg p "$F" '{file_path: $p, content: "x"}')" | "$HOOK" pre)
is "$(echo "$out" | decision)" "deny" "an unkeepable original denies the write"
like "$(echo "$out" | reason)" "could not keep the original" "and says why"
rm "$FOLDER/.sandbox/queue/originals/objects"
mv "$T/objects.saved" "$FOLDER/.sandbox/queue/originals/objects"

# sbxd prunes oldest-first to its cap.
"$SBXD" --originals-cap 0 "$FOLDER" 2>"$T/sbxd.log" &
DPID=$!
wait_for 20 bash -c "[ \$($SBX history $F --json | jq length) = 0 ]"
ok $? "sbxd prunes kept originals above --originals-cap"
test -z "$(ls "$FOLDER/.sandbox/queue/originals/objects")"
ok $? "and deletes their content"

done_testing
