#!/bin/sh
# modules.sh - fails when an include, a system header or a link line
# breaks the module rules of docs/ARCHITECTURE.md: which directory may use
# which part of common/, so that "the hook never touches SQLite or signing
# keys" is a rule of directories and not only of link lines.
#
#   common/base/      util, buf, json, display: everything may use it
#   common/redact/    the audit log's secret scrubber
#   common/protocol/  the queue, decisions, prefix rules, originals, folders
#   common/trust/     public keys, the accepted policy, signed results
#   common/audit/     audit record encoding and chain verification
#   common/store/     SQLite (state.db): requests, the audit index, retention
#
# A file may include its own directory's headers and those its row of
# allowed() names. A file directly in common/ or in an unknown module
# fails: a new file goes into one of the modules (or gets a new module
# here and in docs/ARCHITECTURE.md).
#
# Also checked: <sqlite3.h> only in store, sbxd and sbx; Ed25519 signing
# calls only in approver/, sbxd and common/trust/result_sign.c; secret key
# files (approver.key, daemon.key) named only in approver/ and sbxd, and
# trust/keys.h (the key lists) not included by agent-facing code; the link
# lines of sbx-hook, sbx-mcp and sbx-proxy in the Makefile name no SQLite;
# and, when they are built (BIN, default bin), those binaries reference no
# sqlite3_ and no signing symbol (nm; for sbx-hook, which links libsodium
# statically, also its link map's cross references: HOOK_MAP, default
# build/sbx-hook.map).
#
# Usage: sh tests/lint/modules.sh [ROOT]   (ROOT: the repository, default .)
set -u
root=${1:-.}
cd "$root" || exit 2
BIN=${BIN:-bin}

MODULES="base redact protocol trust audit store"

# The module of a file directly in common/ (none: the layout is one
# directory per module).
flat_module() { echo -; }

# unit PATH: what a file (or an included header) belongs to.
unit() {
	case $1 in
	common/*/*)
		m=${1#common/}; m=${m%%/*}
		case " $MODULES " in *" $m "*) echo "common/$m" ;; *) echo "?" ;; esac ;;
	common/*)
		m=$(flat_module "${1#common/}")
		if [ "$m" = - ]; then echo "?"; else echo "common/$m"; fi ;;
	hook/*) echo hook ;;
	daemon/proxy*) echo proxy ;;
	daemon/*) echo daemon ;;
	approver/*) echo approver ;;
	policy/*) echo policy ;;
	tests/*) echo tests ;;
	*) echo "?" ;;
	esac
}

# allowed UNIT: what UNIT may include besides itself.
allowed() {
	case $1 in
	common/base) echo "" ;;
	common/redact|common/protocol) echo "common/base" ;;
	common/audit) echo "common/base common/protocol" ;;
	common/trust) echo "common/base common/protocol policy" ;;
	common/store) echo "common/base common/protocol common/audit" ;;
	policy) echo "common/base" ;;
	hook) echo "common/base common/protocol common/trust policy" ;;
	proxy) echo "common/base common/protocol common/trust policy hook" ;;
	daemon) echo "common/base common/redact common/protocol common/trust" \
	    "common/audit common/store policy" ;;
	approver) echo "common/base common/redact common/protocol common/trust" \
	    "common/audit common/store policy" ;;
	tests) echo "*" ;;
	esac
}

fail=0
bad() {
	echo "$1" >&2
	fail=1
}

files=$(find common hook daemon approver policy tests -name '*.[ch]' 2>/dev/null | sort)
for f in $files; do
	u=$(unit "$f")
	if [ "$u" = "?" ]; then
		bad "$f: in no module of common/ (put it in common/{$(echo $MODULES |
		    tr ' ' ,)}/ and see docs/ARCHITECTURE.md)"
		continue
	fi
	ok=$(allowed "$u")
	for inc in $(sed -n 's/^#[[:space:]]*include[[:space:]]*"\([a-z]*\/[^"]*\)".*/\1/p' "$f"); do
		[ -e "$inc" ] || [ "${inc%%/*}" = common ] || continue
		t=$(unit "$inc")
		[ "$t" = "$u" ] && continue
		# The agent-facing programs check acceptance and signatures
		# through common/trust; they never read the key lists themselves.
		case $u:${inc##*/} in
		hook:keys.h|proxy:keys.h)
			bad "$f ($u): includes $inc: agent-facing code reads no key files"
			continue ;;
		esac
		case " $ok " in
		*" * "*|*" $t "*) ;;
		*)
			if [ "$t" = "?" ]; then
				bad "$f: includes $inc, which is in no module of common/"
			else
				bad "$f ($u): includes $inc ($t), which $u may not use"
			fi ;;
		esac
	done
	case $u in
	common/store|daemon|approver|tests) ;;
	*)
		l=$(grep -n '^#[[:space:]]*include[[:space:]]*<sqlite3\.h>' "$f" | cut -d: -f1)
		[ -n "$l" ] && bad "$f:$l: includes <sqlite3.h> (SQLite belongs to common/store)" ;;
	esac
	# Secret key files are named only where they are used: approver/
	# (approver.key) and sbxd (daemon.key).
	case $u in
	approver|daemon|tests) ;;
	*)
		l=$(grep -nE '"(approver|daemon)\.key"|SBX_KEY_FILE' "$f" |
		    grep -v '^[0-9]*:#define SBX_KEY_FILE ' | cut -d: -f1 | tr '\n' ' ')
		[ -n "$l" ] && bad "$f:$l: names a secret key file (only approver/ and sbxd may)" ;;
	esac
	case $u:$f in
	approver:*|daemon:*|tests:*|*/result_sign.c) ;;
	*)
		l=$(grep -nE 'crypto_sign_(detached|keypair|seed_keypair)\(|crypto_sign\(' "$f" |
		    cut -d: -f1 | tr '\n' ' ')
		[ -n "$l" ] && bad "$f:$l: signs (no signing outside approver/, sbxd and result_sign.c)" ;;
	esac
done

# The agent-facing programs' link lines in the Makefile: no SQLite.
for p in sbx-hook sbx-mcp sbx-proxy; do
	rule=$(awk -v t="\$(BIN)/$p:" '
		index($0, t) == 1 { on = 1; print; next }
		on && /^\t/ { print; next }
		{ on = 0 }' Makefile)
	if [ -z "$rule" ]; then
		bad "Makefile: no rule for \$(BIN)/$p"
	elif printf '%s\n' "$rule" | grep -qE 'LIB_SQLITE|-lsqlite3'; then
		bad "Makefile: $p links SQLite"
	fi
done

# The built programs, when there are any: nm says what they really link.
for p in sbx-hook sbx-mcp sbx-proxy; do
	[ -x "$BIN/$p" ] && command -v nm >/dev/null 2>&1 || continue
	syms=$(nm -u "$BIN/$p" 2>/dev/null |
	    grep -E ' (sqlite3_[a-z_0-9]+|crypto_sign_(detached|keypair|seed_keypair)|crypto_sign)$' |
	    awk '{print $2}' | tr '\n' ' ')
	[ -n "$syms" ] && bad "$BIN/$p links $syms(agent-facing: no SQLite, no signing)"
done

# sbx-hook links libsodium statically (Makefile, LIB_SODIUM_HOOK): nm -u
# does not see a signing call resolved inside the binary. Its link map's
# cross references do: no object of sbx may reference a signing symbol
# (libsodium's own objects do, and are linked but never called).
map=${HOOK_MAP:-build/sbx-hook.map}
if [ -x "$BIN/sbx-hook" ] && [ -f "$map" ]; then
	refs=$(awk '
		/^Cross Reference Table/ { on = 1; next }
		!on || /^Symbol[ \t]/ || NF == 0 { next }
		/^[^ \t]/ { sym = $1; def = (NF >= 2); next }
		!def { def = 1; next }
		sym ~ /^crypto_sign(_ed25519)?(_detached|_keypair|_seed_keypair)?$/ &&
		    $1 !~ /libsodium\.a\(/ { print $1 "(" sym ")" }' "$map" | tr '\n' ' ')
	[ -n "$refs" ] && bad "$map: sbx-hook: $refs references signing (agent-facing: no signing)"
fi

[ $fail -eq 0 ] && echo "modules: every include, system header and link line keeps to docs/ARCHITECTURE.md"
exit $fail
