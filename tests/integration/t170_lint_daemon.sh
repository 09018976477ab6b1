#!/bin/bash
# t170 - `make lint`'s structure check (tests/lint/includes.sh) holds for
# this tree, and fails on a copy of it with a daemon/ function of 121
# lines, a daemon/ file that includes policy/ internals, or one that runs
# SQL itself: the check can fail, and names what broke it.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LINT="$ROOT/tests/lint/includes.sh"

sh "$LINT" "$ROOT" >"$T/out" 2>&1
ok $? "the tree passes: $(tail -1 "$T/out")"

copy() {
	rm -rf "$T/tree"
	mkdir -p "$T/tree"
	cp -r "$ROOT/policy" "$ROOT/daemon" "$T/tree/"
	mkdir -p "$T/tree/common" "$T/tree/hook" "$T/tree/approver" "$T/tree/tests"
}

# A function of exactly 120 lines passes; 121 fails, by name.
body() {	# body NAME N: a function whose braces span N lines
	printf 'static int\n%s(void)\n{\n\tint x = 0;\n\n' "$1"
	for i in $(seq 1 $(($2 - 5))); do printf '\tx++;\n'; done
	printf '\treturn x;\n}\n'
}
copy
body at_limit 120 >>"$T/tree/daemon/run.c"
sh "$LINT" "$T/tree" >"$T/out" 2>&1
ok $? "a daemon/ function of 120 lines passes"
copy
body too_long 121 >>"$T/tree/daemon/claim.c"
sh "$LINT" "$T/tree" >"$T/out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q 'daemon/claim.c:[0-9]*: too_long is 121 lines' "$T/out"
ok $? "a daemon/ function of 121 lines fails, named (rc $rc: $(head -1 "$T/out"))"

copy
sed -i 's|#include "policy/policy.h"|#include "policy/rules.h"|' "$T/tree/daemon/request.c"
sh "$LINT" "$T/tree" >"$T/out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q 'daemon/request.c: includes policy/rules.h' "$T/out"
ok $? "daemon/ including a policy/ internal fails (rc $rc)"

# SQL outside the store fails, named; the store's own files pass.
copy
printf 'static void\nf(sqlite3 *db)\n{\n\tsqlite3_exec(db, "DELETE FROM nonces", 0, 0, 0);\n}\n' \
	>>"$T/tree/daemon/run.c"
sh "$LINT" "$T/tree" >"$T/out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q 'daemon/run.c: runs SQL itself' "$T/out"
ok $? "a daemon/ file that runs SQL itself fails (rc $rc)"
copy
cp "$ROOT"/common/store/store.c "$ROOT"/common/store/db.c "$T/tree/common/"
sh "$LINT" "$T/tree" >"$T/out" 2>&1
ok $? "SQL in common/store/store.c and common/store/db.c passes"

# Every daemon/ function as counted by the check: none over 120 lines.
n=$(awk 'FNR == 1 { s = 0 } /^\{/ { s = FNR } /^\}/ { if (s && FNR - s + 1 > 120) c++; s = 0 }
	END { print c + 0 }' "$ROOT"/daemon/*.c)
is "$n" 0 "no function in daemon/ is over 120 lines"
done_testing
