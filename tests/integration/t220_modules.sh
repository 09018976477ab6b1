#!/usr/bin/env bash
# The module rules of docs/ARCHITECTURE.md hold, and their check fails
# when they are broken:
# - tests/lint/modules.sh passes on this tree;
# - it fails, naming the file, on a copy where the hook includes the
#   store, policy/ includes the protocol, common/base includes trust, a
#   file sits directly in common/, sbx-mcp's link line names SQLite, hook
#   code includes <sqlite3.h>, the key lists (keys.h) or signs, or code
#   outside approver/ and sbxd names a secret key file;
# - the real agent-facing programs (sbx-hook, sbx-mcp, sbx-proxy) link no
#   SQLite and no Ed25519 signing (nm, ldd), while sbxd and sbx do;
#   sbx-hook, which links libsodium statically, references none in its
#   link map's cross references either, and the check fails when it does.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LINT="$ROOT/tests/lint/modules.sh"

out=$(BIN=/nonexistent sh "$LINT" "$ROOT" 2>&1)
ok $? "modules.sh passes on this tree"
like "$out" "^modules: every include" "it says what it checked"

# fresh_copy: the sources the check reads, into $T/tree.
fresh_copy() {
	rm -rf "$T/tree"
	mkdir -p "$T/tree/tests"
	cp -R "$ROOT/common" "$ROOT/hook" "$ROOT/daemon" "$ROOT/approver" "$ROOT/policy" \
		"$ROOT/Makefile" "$T/tree/"
	cp -R "$ROOT/tests/lint" "$T/tree/tests/"
}
# header NAME: where common's NAME.h is in this tree (flat or in a module).
header() { (cd "$ROOT" && find common -name "$1.h" | head -1); }

fresh_copy
out=$(BIN=/nonexistent sh "$T/tree/tests/lint/modules.sh" "$T/tree" 2>&1)
ok $? "an unchanged copy passes too"

# broken DESC FILE ADDED-LINE WANT-IN-OUTPUT
broken() {
	local d=$1 f=$2 line=$3 want=$4
	fresh_copy
	mkdir -p "$(dirname "$T/tree/$f")"
	printf '%s\n' "$line" >>"$T/tree/$f"
	out=$(BIN=/nonexistent sh "$T/tree/tests/lint/modules.sh" "$T/tree" 2>&1)
	[ $? -ne 0 ]
	ok $? "fails when $d"
	like "$out" "$want" "and names it"
}

db=$(header db)
broken "the hook includes the store" hook/decide.c "#include \"$db\"" \
	"hook/decide.c \(hook\): includes $db"
broken "sbx-proxy includes the store" daemon/proxy_conn.c "#include \"$db\"" \
	"daemon/proxy_conn.c \(proxy\): includes $db"
ar=$(header audit_record)
broken "sbx-mcp includes the audit record code" hook/mcp_tools.c "#include \"$ar\"" \
	"hook/mcp_tools.c \(hook\): includes $ar"
q=$(header queue)
broken "policy/ includes the protocol" policy/eval.c "#include \"$q\"" \
	"policy/eval.c \(policy\): includes $q"
keys=$(header keys)
util=$(header util)
broken "base includes trust" "${util%.h}.c" "#include \"$keys\"" \
	"${util%.h}.c \(common/base\): includes $keys"
broken "the protocol includes the store" "${q%.h}.c" "#include \"$db\"" \
	"${q%.h}.c \(common/protocol\): includes $db"
broken "a file sits in no module" common/stray.c "int stray;" \
	"common/stray.c: in no module"
broken "a header names an unknown module" hook/post.c '#include "common/misc/x.h"' \
	"includes common/misc/x.h, which is in no module"
broken "the hook includes the key lists" hook/post.c "#include \"$keys\"" \
	"hook/post.c \(hook\): includes $keys: agent-facing code reads no key files"
broken "sbx-proxy names a secret key file" daemon/proxy.c \
	'static const char *k = "daemon.key";' "daemon/proxy.c:[0-9 ]*: names a secret key file"
broken "common/ names the approver's key file" "${q%.h}.c" \
	'static const char *k = "approver.key";' "${q%.h}.c:[0-9 ]*: names a secret key file"
broken "hook code includes <sqlite3.h>" hook/post.c "#include <sqlite3.h>" \
	"hook/post.c:[0-9]*: includes <sqlite3.h>"
broken "hook code signs" hook/post.c \
	"static void f(void) { crypto_sign_detached(0, 0, 0, 0, 0); }" \
	"hook/post.c:[0-9 ]*: signs"

fresh_copy
sed -i '/^\$(BIN)\/sbx-mcp:/,/^$/s/\$(LIB_SODIUM)/$(LIB_SODIUM) $(LIB_SQLITE)/' "$T/tree/Makefile"
grep -A3 '^$(BIN)/sbx-mcp:' "$T/tree/Makefile" | grep -q LIB_SQLITE
ok $? "(the copy's sbx-mcp rule now links SQLite)"
out=$(BIN=/nonexistent sh "$T/tree/tests/lint/modules.sh" "$T/tree" 2>&1)
[ $? -ne 0 ]
ok $? "fails when sbx-mcp's link line names SQLite"
like "$out" "Makefile: sbx-mcp links SQLite" "and names it"

# The built programs: what they really link.
for p in sbx-hook sbx-mcp sbx-proxy; do
	u=$(nm -u "$SBX_BIN/$p" | awk '{print $2}')
	s=$(printf '%s\n' "$u" | grep -cE '^sqlite3_')
	is "$s" 0 "$p references no sqlite3_ symbol"
	s=$(printf '%s\n' "$u" | grep -cE '^crypto_sign_(detached|keypair|seed_keypair)$|^crypto_sign$')
	is "$s" 0 "$p references no Ed25519 signing"
	ldd "$SBX_BIN/$p" | grep -q libsqlite3
	ok $(( ! $? )) "$p does not load libsqlite3"
done
# ... and the check above can see them: sbxd and sbx do link both.
for p in sbxd sbx; do
	u=$(nm -u "$SBX_BIN/$p" | awk '{print $2}')
	printf '%s\n' "$u" | grep -q '^sqlite3_open' &&
		printf '%s\n' "$u" | grep -q '^crypto_sign_detached$'
	ok $? "$p references sqlite3_open and crypto_sign_detached (the nm check sees them)"
done
# sbx-hook links libsodium statically, so its signing symbols are defined
# in it and nm -u cannot see a call: the link map's cross references can.
MAP="$(dirname "$SBX_TESTS_BIN")/sbx-hook.map"
if ldd "$SBX_BIN/sbx-hook" | grep -q libsodium; then
	ok 0 "sbx-hook's link map # SKIP libsodium is shared here (no libsodium.a): nm -u sees it"
else
	[ -f "$MAP" ]
	ok $? "sbx-hook's link map is there ($MAP)"
	grep -A3 '^crypto_sign_verify_detached ' "$MAP" | grep -q 'libsbx\.a(accept\.o)'
	ok $? "the map's cross references name accept.o's call to verify (the check sees calls)"
	sed 's|^crypto_sign_detached .*|&\n                          build/libsbx.a(evil.o)|' \
		"$MAP" >"$T/evil.map"
	out=$(BIN=$SBX_BIN HOOK_MAP="$T/evil.map" sh "$LINT" "$ROOT" 2>&1)
	[ $? -ne 0 ] && printf '%s\n' "$out" | grep -q 'evil.o)(crypto_sign_detached)'
	ok $? "modules.sh fails, naming the object, when an object of sbx-hook signs"
fi
out=$(BIN=$SBX_BIN HOOK_MAP="$MAP" sh "$LINT" "$ROOT" 2>&1)
ok $? "modules.sh passes with the built programs' symbols"

done_testing
