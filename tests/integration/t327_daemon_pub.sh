#!/usr/bin/env bash
# sbxd writes CONFIG/daemon.pub (its public key, which the hooks and `sbx
# audit verify` read) only when its text differs: a start leaves a right
# one as it is, whoever owns it; a wrong one, one with more after the key,
# a symlink or a FIFO is replaced atomically, never followed or opened for
# long. Deployment 3 (B's sbxd, whose key handover copied to A) and
# deployment 1 (A's own sbxd), with real users.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dep3lib.sh"

dep3_setup || { sed 's/^/#   /' "$T/init.out" "$T/handover.out"; exit 1; }
P="$CONF_B/daemon.pub"
st() { stat -c '%i %y %z %U %a' "$1"; }
pub_of_key() { sed -n 's/^public //p' "$CONF_B/daemon.key"; }
restart_b() { start_daemon_b; local r=$?; stop_daemon; return $r; }

before=$(st "$P")
a_before=$(st "$CONF_A/daemon.$(id -u "$UB").pub")
restart_b
ok $? "B's sbxd starts"
restart_b
is "$(st "$P")" "$before" "two starts leave B's daemon.pub as it was (inode, mtime, ctime)"
is "$(st "$CONF_A/daemon.$(id -u "$UB").pub")" "$a_before" "and A's copy of it"

chown root:root "$P"
before=$(st "$P")
restart_b
ok $? "B's sbxd starts with a daemon.pub of root's holding its key"
is "$(st "$P")" "$before" "which it leaves alone (the text is right)"

printf '%s\n\0junk' "$(pub_of_key)" >"$P"
restart_b
is "$(od -An -c "$P" | tr -d ' \n')" "$(printf '%s\n' "$(pub_of_key)" | od -An -c | tr -d ' \n')" \
	"a daemon.pub with more after the key is rewritten"
printf '%064d\n' 0 >"$P"
ino=$(stat -c %i "$P")
restart_b
is "$(cat "$P")" "$(pub_of_key)" "a daemon.pub with another key is rewritten with sbxd's"
is "$(stat -c '%U %a' "$P")" "$UB 644" "as B's, mode 0644"
[ "$(stat -c %i "$P")" != "$ino" ]
ok $? "by a rename (a reader sees the old file or the new one)"

echo "not a key" >"$T/home-b/elsewhere"
chown "$UB:" "$T/home-b/elsewhere"
rm -f "$P"
as_b ln -s "$T/home-b/elsewhere" "$P"
restart_b
test -f "$P" && ! test -L "$P" && [ "$(cat "$P")" = "$(pub_of_key)" ]
ok $? "a symlink daemon.pub is replaced by the file"
is "$(cat "$T/home-b/elsewhere")" "not a key" "and what it pointed to is untouched"

rm -f "$P"
as_b mkfifo "$P"
restart_b
ok $? "a FIFO at daemon.pub does not stop B's sbxd from starting"
test -f "$P" && [ "$(cat "$P")" = "$(pub_of_key)" ]
ok $? "and is replaced by the file"

# Deployment 1: A's own sbxd for a folder of A's.
mkdir "$T/proj-a"
chown "$UA:" "$T/proj-a"
as_a "$SBX" init "$T/proj-a" >/dev/null 2>&1
start_a() {
	: >"$T/sbxd-a.log"
	chmod 0666 "$T/sbxd-a.log"
	as_exec "$UA" "$SBXD" "$T/proj-a" 2>>"$T/sbxd-a.log" &
	DPID=$!
	wait_for 10 grep -q serving "$T/sbxd-a.log"
	local r=$?
	stop_daemon
	return $r
}
start_a
ok $? "A's own sbxd starts (and makes A's daemon.pub)"
before=$(st "$CONF_A/daemon.pub")
start_a
start_a
is "$(st "$CONF_A/daemon.pub")" "$before" "two more starts leave A's daemon.pub as it was"
done_testing
