#!/usr/bin/env bash
# Deployment 3: the project folder is the agent's (A's), so A can rename
# .sandbox (B's) away and put a directory of its own there, and swap the
# two back and forth (rename(2) RENAME_EXCHANGE) at the moment B's side
# opens a file. policy.json and policy.accepted must come from the one
# .sandbox B owns: B's `sbx policy accept` must never sign a policy.json A
# wrote (read through the path, then policy.accepted written through a
# second open of .sandbox), and the loader that sbxd, the hook and sbx
# doctor use must never pair A's policy.json with B's acceptance. The
# hostile side watches its own policy.json with inotify and swaps B's
# .sandbox back the moment B opens it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dep3lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is missing"

S="$FOLDER/.sandbox"
dep3_setup
ok $? "A inits the folder and root hands it over to B"

# A's policy: B's default with a tell (hook_wait_seconds 77).
as_b cat "$S/policy.json" | jq '.limits = ((.limits // {}) + {"hook_wait_seconds": 77})' \
	>"$T/evil.json"
as_a mkdir "$FOLDER/.fake"
as_a sh -c "cat >'$FOLDER/.fake/policy.json'" <"$T/evil.json"
as_a chmod 0644 "$FOLDER/.fake/policy.json"
evil_hash=$(python3 -c 'import hashlib,sys; print(hashlib.blake2b(open(sys.argv[1],"rb").read(),digest_size=32).hexdigest())' "$FOLDER/.fake/policy.json")

# The swapper, as A: .fake and .sandbox exchanged, then exchanged back
# when B opens the policy.json now at .sandbox (A's); or after 2 s.
cat >"$T/swap.py" <<'PY'
import ctypes, os, select, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
folder = sys.argv[1]
def xchg():
    if libc.renameat2(-100, (folder + "/.sandbox").encode(), -100,
                      (folder + "/.fake").encode(), 2) != 0:
        sys.exit("renameat2: %d" % ctypes.get_errno())
fd = libc.inotify_init1(0)
xchg()
libc.inotify_add_watch(fd, (folder + "/.sandbox/policy.json").encode(), 0x20)  # IN_OPEN
print("ready", flush=True)
select.select([fd], [], [], 2)
xchg()
PY
chmod 0644 "$T/swap.py"
# race CMD...: B runs CMD while A swaps; CMD's output in $T/race.out.
race() {
	rm -f "$T/ready"
	as_a python3 "$T/swap.py" "$FOLDER" >"$T/ready" 2>"$T/swap.err" &
	local sp=$!
	wait_for 10 grep -q ready "$T/ready"
	as_b "$@" >"$T/race.out" 2>&1
	wait "$sp"
}
signed_evil=0
for i in 1 2 3 4 5; do
	race "$SBX" -C "$FOLDER" policy accept
	[ "$(jq -r .hash "$S/policy.accepted")" = "$evil_hash" ] && signed_evil=$((signed_evil + 1))
done
is "$(stat -c %U "$S")" "$UB" "B's .sandbox is back in place after each swap"
is "$signed_evil" 0 "B's policy accept never signed the policy.json A put in its place"
as_b "$SBX" -C "$FOLDER" policy accept >"$T/accept.out" 2>&1
ok $? "with nothing swapped, B's policy accept works"
as_b "$SBX" -C "$FOLDER" doctor >"$T/doctor.out" 2>&1
like "$(cat "$T/doctor.out")" "policy.json is valid and accepted" "and B's policy is accepted"

# B's acceptance of A's text, the way the swap above got it before (here
# B signs it itself, then puts its own policy.json back): the loader
# must not take A's policy.json with it.
as_b cp "$S/policy.json" "$T/home-b/default.json"
as_b sh -c "cat >'$S/policy.json'" <"$T/evil.json"
as_b "$SBX" -C "$FOLDER" policy accept >/dev/null 2>&1
as_b sh -c "cat '$T/home-b/default.json' >'$S/policy.json'"
mixed=0
for i in 1 2 3 4 5; do
	race "$SBX" -C "$FOLDER" doctor
	grep -q "valid and accepted (hook waits up to 77 s)" "$T/race.out" && mixed=$((mixed + 1))
done
is "$mixed" 0 "the loader never pairs A's policy.json with B's policy.accepted"
done_testing
