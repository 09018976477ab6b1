#!/bin/sh
# includes.sh - fails when an include breaks the layering of policy/
# written in docs/ARCHITECTURE.md, when a function in policy/ or daemon/
# is longer than 120 lines, or when a file outside the store runs SQL.
#
# A file may include the policy/ headers of its own layer or of a lower
# one; outside policy/, only policy/policy.h (and, for tests, the shell
# parser's policy/shell.h and the paths' policy/path.h). A policy/ file missing from the table fails
# too: a new file is given its layer here and in docs/ARCHITECTURE.md.
#
# Usage: sh tests/lint/includes.sh [ROOT]   (ROOT: the repository, default .)
set -u
root=${1:-.}
cd "$root" || exit 2

# layer of a policy/ file: 0 util, 1 tables, 2 evidence, 3 analysers,
# 4 eval, 5 entry. policy.h is the contract: types and the public
# functions, included by every layer.
layer() {
	case $1 in
	policy.h|path.h|path.c|shell.h|shell.c) echo 0 ;;
	rules.h|rules.c|load.c|always_ask.c|hostport.c) echo 1 ;;
	evidence.h|evidence.c|trigger.c) echo 2 ;;
	analyse.h|interactive.h|opts.h|analyse.c|progs.c|args.c|opts.c|files.c|\
	net.c|code.c|git.c|text.c|glob.c|archive.c|interactive.c) echo 3 ;;
	eval.h|eval.c) echo 4 ;;
	policy.c) echo 5 ;;
	*) echo - ;;
	esac
}

fail=0
for f in policy/*.c policy/*.h; do
	b=${f#policy/}
	l=$(layer "$b")
	if [ "$l" = - ]; then
		echo "$f: not in the layer table of tests/lint/includes.sh" >&2
		fail=1
		continue
	fi
	for inc in $(sed -n 's/^#[[:space:]]*include[[:space:]]*"policy\/\([^"]*\)".*/\1/p' "$f"); do
		il=$(layer "$inc")
		if [ "$il" = - ] || [ "$il" -gt "$l" ]; then
			echo "$f: includes policy/$inc (layer $il) above its layer $l" >&2
			fail=1
		fi
	done
done

# Outside policy/: the contract only.
for f in $(find common hook daemon approver tests -name '*.[ch]' 2>/dev/null); do
	for inc in $(sed -n 's/^#[[:space:]]*include[[:space:]]*"policy\/\([^"]*\)".*/\1/p' "$f"); do
		case $inc:$f in
		policy.h:*|shell.h:tests/*|path.h:tests/*) ;;
		*)
			echo "$f: includes policy/$inc, internal to policy/" >&2
			fail=1 ;;
		esac
	done
done

# Function length: from the "{" at the start of a line to the "}" at the
# start of a line (style(9): a definition's braces are in column 0).
long=$(awk -v max=120 '
	FNR == 1 { name = ""; start = 0 }
	/^[A-Za-z_][A-Za-z0-9_]*\(/ { name = $0; sub(/\(.*/, "", name) }
	/^\{/ { if (name != "") start = FNR }
	/^\}/ {
		if (start && FNR - start + 1 > max)
			printf "%s:%d: %s is %d lines (at most %d)\n", FILENAME,
			    start, name, FNR - start + 1, max
		start = 0; name = ""
	}' policy/*.c daemon/*.c)
if [ -n "$long" ]; then
	echo "$long" >&2
	fail=1
fi

# SQL lives in the store (docs/ARCHITECTURE.md): only these files talk
# to SQLite; daemon/, approver/ and hook/ call their functions.
sql=$(grep -ln 'sqlite3_prepare\|sqlite3_exec' common/*.c daemon/*.c approver/*.c hook/*.c \
	2>/dev/null | grep -v '^common/\(store\|db\|retention\|audit_index\)\.c$')
if [ -n "$sql" ]; then
	for f in $sql; do
		echo "$f: runs SQL itself; put the statement in common/store/store.c" >&2
	done
	fail=1
fi

[ $fail -eq 0 ] && echo "includes: policy/ layering holds, no function over 120 lines in policy/ or daemon/, SQL only in the store"
exit $fail
