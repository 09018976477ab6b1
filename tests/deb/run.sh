#!/usr/bin/env bash
# run.sh - `make test-deb`: the Debian package builds, installs, works and
# purges cleanly. Prints TAP.
#
# Builds with `dpkg-buildpackage -us -uc -b` in a copy of the tree (the
# files git knows, committed or not), so nothing lands beside the clone;
# installs the .deb with `dpkg -i`; checks what it put where; runs the demo
# (contrib/demo.sh) against the installed /usr/bin programs; checks that
# `sbx init --claude` run from /usr/bin registers /usr/bin/sbx-hook; then
# `dpkg --purge` and checks that every file the package had is gone.
# Needs root (dpkg -i). Skips, saying why, without root, without
# dpkg-buildpackage, or when an sbx package is installed already (it would
# be replaced). A package left installed by a failed run is purged on exit.
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SBX_BIN=/usr/bin
# shellcheck source=tests/integration/lib.sh
. "$ROOT/tests/integration/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "dpkg -i needs root"
command -v dpkg-buildpackage >/dev/null ||
	skip_all "dpkg-buildpackage is missing (sh contrib/install-deps.sh deb)"
if dpkg-query -W -f '${Status}' sbx 2>/dev/null | grep -q 'install ok installed'; then
	skip_all "an sbx package is installed already; this test would replace it"
fi
INSTALLED=""
# shellcheck disable=SC2317 # called by the trap
deb_cleanup() {
	[ -n "$INSTALLED" ] && dpkg --purge sbx >/dev/null 2>&1
	cleanup
}
trap deb_cleanup EXIT

VERSION=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
SRC="$T/src/sbx-$VERSION"
mkdir -p "$SRC"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$ROOT" && git ls-files -co --exclude-standard -z | tar --null -cf - -T -) |
		tar -xf - -C "$SRC"
else
	(cd "$ROOT" && tar --exclude=./build --exclude=./bin -cf - .) | tar -xf - -C "$SRC"
fi
(cd "$SRC" && dpkg-buildpackage -us -uc -b) >"$T/build.log" 2>&1
ok $? "dpkg-buildpackage -us -uc -b builds sbx $VERSION"
[ "$_failed" -eq 0 ] || { tail -30 "$T/build.log" | sed 's/^/#   /'; done_testing; }
DEB="$T/src/sbx_${VERSION}_$(dpkg --print-architecture).deb"
[ -f "$DEB" ]
ok $? "the package is $(basename "$DEB"), beside the copy (not beside the clone)"

contents=$(dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's|^\./|/|')
for f in /usr/bin/sbx /usr/bin/sbxd /usr/bin/sbx-hook /usr/bin/sbx-mcp \
	/usr/share/man/man1/sbx.1.gz /usr/share/man/man8/sbxd.8.gz \
	/usr/share/man/man1/sbx-hook.1.gz /usr/share/man/man1/sbx-mcp.1.gz \
	/usr/share/man/man5/sbx-policy.5.gz /usr/share/bash-completion/completions/sbx \
	/usr/share/zsh/vendor-completions/_sbx /usr/share/fish/vendor_completions.d/sbx.fish \
	/usr/lib/systemd/user/sbxd.service /usr/share/doc/sbx/copyright; do
	printf '%s\n' "$contents" | grep -qx "$f"
	ok $? "the package holds $f"
done
like "$(dpkg-deb -f "$DEB" Depends)" "libsodium.*libsqlite3|libsqlite3.*libsodium" \
	"its Depends name the shared libraries (from dh_shlibdeps)"
# sbx-hook links libsodium statically: the package says which one, so a
# libsodium security update finds it to rebuild.
like "$(dpkg-deb -f "$DEB" Static-Built-Using)" "^libsodium \\(= [^)]+\\)$" \
	"its Static-Built-Using names the libsodium sbx-hook is linked with"

dpkg -i "$DEB" >"$T/install.log" 2>&1
ok $? "dpkg -i installs it"
INSTALLED=1
is "$(/usr/bin/sbx --version)" "sbx $VERSION" "the installed sbx runs"
for p in sbx.1 sbxd.8 sbx-hook.1 sbx-mcp.1 sbx-policy.5; do
	page=${p%.*}
	sec=${p##*.}
	if [ ! -e "/usr/share/man/man$sec/$p.gz" ] && grep -qs 'path-exclude.*/usr/share/man' \
		/etc/dpkg/dpkg.cfg.d/*; then
		ok 0 "man $sec $page # SKIP dpkg is configured not to install man pages here"
		continue
	fi
	out=$(MANWIDTH=80 man "$sec" "$page" 2>&1 | col -b 2>/dev/null)
	like "$out" "^NAME|
NAME" "man $sec $page shows the installed page"
done
like "$(grep '^ExecStart=' /usr/lib/systemd/user/sbxd.service)" "^ExecStart=/usr/bin/sbxd --all$" \
	"the systemd user unit runs the installed sbxd"

# The demo with the installed programs.
SBX_BIN=/usr/bin bash "$ROOT/contrib/demo.sh" </dev/null >"$T/demo.out" 2>&1
ok $? "the demo runs with the installed programs"
like "$(cat "$T/demo.out")" "ALREADY EXECUTED" "and the escalated push was approved and executed"
like "$(cat "$T/demo.out")" "main -> main|first commit" "and the remote has the commit"
[ "$_failed" -eq 0 ] || tail -30 "$T/demo.out" | sed 's/^/#   /'

# init from the installed sbx registers the installed hook.
mkdir -p "$T/p"
(unset SBX_HOOK_DIR; /usr/bin/sbx init --claude "$T/p") >"$T/init.out" 2>&1
ok $? "the installed sbx init --claude"
is "$(hook_of "$(jq -r '.hooks.PreToolUse[0].hooks[0].command' "$T/p/.claude/settings.json")")" \
	"/usr/bin/sbx-hook pre" "registers /usr/bin/sbx-hook"

files=$(dpkg -L sbx)
dpkg --purge sbx >"$T/purge.log" 2>&1
ok $? "dpkg --purge sbx"
INSTALLED=""
left=""
while IFS= read -r f; do
	[ -f "$f" ] || [ -L "$f" ] && left="$left $f"
done <<<"$files"
is "$left" "" "no file of the package is left"
dpkg-query -W -f '${Status}' sbx 2>/dev/null | grep -q 'ok installed'
ok $((!$?)) "dpkg no longer knows sbx as installed"
[ ! -e /usr/bin/sbx ]
ok $? "/usr/bin/sbx is gone"

done_testing
