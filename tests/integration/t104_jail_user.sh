#!/usr/bin/env bash
# The jail's tests again, as an unprivileged user that this test creates:
# bubblewrap then builds the jail in a user namespace. Each test's TAP
# lines become this test's, prefixed with its name. Needs root (useradd).
set -u
: "${SBX_BIN:?}"
here=$(cd "$(dirname "$0")" && pwd)

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root to create the unprivileged user (useradd)"
	exit 0
fi
command -v bwrap >/dev/null && command -v useradd >/dev/null && command -v runuser >/dev/null ||
	{ echo "1..0 # SKIP bwrap, useradd and runuser are needed"; exit 0; }

U="sbxt$$"
useradd -m -d "/tmp/$U.home" -s /bin/bash "$U" >/dev/null 2>&1 ||
	{ echo "1..0 # SKIP useradd failed"; exit 0; }
trap 'pkill -KILL -u "$U" 2>/dev/null; userdel -r "$U" >/dev/null 2>&1; rm -rf "/tmp/$U.home"' EXIT

n=0
failed=0
# The unprivileged user must reach the binaries and the tests.
for f in "$SBX_BIN/sbx" "$here/lib.sh"; do
	if ! runuser -u "$U" -- test -r "$f"; then
		echo "1..0 # SKIP $U cannot read $f (a private checkout?)"
		exit 0
	fi
done
n=$((n + 1))
uid=$(runuser -u "$U" -- id -u)
if [ "$uid" -ne 0 ]; then echo "ok $n - the test user $U is not root (uid $uid)"; else echo "not ok $n - $U is root"; failed=$((failed + 1)); fi

for t in t100_jail_hostile t101_jail_loop t103_jail_setup t105_exec_limits t112_jail_proxy; do
	out=$(cd "/tmp/$U.home" && runuser -u "$U" -- env -i PATH=/usr/local/bin:/usr/bin:/bin \
		HOME="/tmp/$U.home" TMPDIR=/tmp LANG=C.UTF-8 SBX_BIN="$SBX_BIN" \
		SBX_TESTS_BIN="${SBX_TESTS_BIN:-}" bash "$here/$t.sh" 2>&1)
	rc=$?
	while IFS= read -r line; do
		case "$line" in
		"ok "*)
			n=$((n + 1))
			echo "ok $n - [$U] $t: ${line#ok * - }" ;;
		"not ok "*)
			n=$((n + 1))
			failed=$((failed + 1))
			echo "not ok $n - [$U] $t: ${line#not ok * - }" ;;
		"1..0"*)
			echo "# $t: $line" ;;
		"#"*)
			echo "$line" ;;
		esac
	done <<<"$out"
	n=$((n + 1))
	if [ "$rc" -eq 0 ]; then
		echo "ok $n - [$U] $t passed as a whole"
	else
		failed=$((failed + 1))
		echo "not ok $n - [$U] $t exited $rc"
	fi
done
echo "1..$n"
[ "$failed" -eq 0 ]
