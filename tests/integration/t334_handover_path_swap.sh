#!/usr/bin/env bash
# `sbx handover` (and `--undo`) resolves DIR with realpath, then opens it.
# The agent's user A owns a directory on the way to the folder and may
# swap it for a symlink between the two: root must then refuse, never
# work on whatever the symlink points at. Made deterministic from outside:
# strace holds the undo right after realpath resolved the last component
# (its readlink, delayed), A swaps the directory meanwhile. Real users
# (deployment 3); then, swapped back, the same undo works.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dep3lib.sh"
command -v strace >/dev/null || skip_all "strace is not installed"

# The folder below a directory of A's: $T/ahome/work/proj.
mkdir -p "$T/ahome/work/proj"
chown -R "$UA:" "$T/ahome"
chmod 0755 "$T/ahome" "$T/ahome/work" "$T/ahome/work/proj"
FOLDER="$T/ahome/work/proj"
S="$FOLDER/.sandbox"
dep3_setup || { sed 's/^/#   /' "$T/init.out" "$T/handover.out"; exit 1; }
ino=$(stat -c %i "$S")
is "$(stat -c %U "$S")" "$UB" "(the folder is handed over to B)"

# The undo, held for a while after realpath's last readlink of the path.
delay=$((4000000 * SBX_TEST_SLOW))
strace -qq -o "$T/st" -P "$FOLDER" -e trace=readlink \
	-e inject=readlink:delay_exit=$delay "$SBX" handover --undo "$FOLDER" >"$T/undo.out" 2>&1 &
sp=$!
wait_for 20 grep -q DELAYED "$T/st"
ok $? "(the undo is held after resolving the path)" || skip_all "strace cannot trace here"
# A swaps its directory on the way for a symlink to the same tree.
as_a sh -c "mv '$T/ahome/work' '$T/ahome/work.real' && ln -s work.real '$T/ahome/work'"
ok $? "(A swapped work/ for a symlink meanwhile)"
running "$sp"
ok $? "(while the undo still waited)"
wait "$sp"
ok $(( ! $? )) "the undo fails"
like "$(cat "$T/undo.out")" "a symlink .*on the way.*not followed" "and says a symlink on the way is not followed"
R="$T/ahome/work.real/proj"
is "$(stat -c '%i %U' "$R/.sandbox")" "$ino $UB" "nothing was undone through the symlink"
test ! -e "$R/.sandbox.handed-over"
ok $? "nothing was moved aside"

# The same with handover --daemon-user (run again: it only copies keys).
as_a sh -c "rm '$T/ahome/work' && mv '$T/ahome/work.real' '$T/ahome/work'"
strace -qq -o "$T/st2" -P "$FOLDER" -e trace=readlink \
	-e inject=readlink:delay_exit=$delay "$SBX" handover --daemon-user "$UB" "$FOLDER" \
	>"$T/again.out" 2>&1 &
sp=$!
wait_for 20 grep -q DELAYED "$T/st2"
as_a sh -c "mv '$T/ahome/work' '$T/ahome/work.real' && ln -s work.real '$T/ahome/work'"
wait "$sp"
ok $(( ! $? )) "handover --daemon-user through a swapped directory fails too"
like "$(cat "$T/again.out")" "a symlink .*on the way" "and says why"

# Swapped back: the undo, untraced, works on the folder named.
as_a sh -c "rm '$T/ahome/work' && mv '$T/ahome/work.real' '$T/ahome/work'"
"$SBX" handover --undo "$FOLDER" >"$T/undo2.out" 2>&1
ok $? "with the path as it was resolved, the undo works"
[ $? -eq 0 ] || sed 's/^/#   /' "$T/undo2.out"
is "$(stat -c '%i %U' "$FOLDER/.sandbox.handed-over")" "$ino $UB" "B's tree is kept, B's"
done_testing
