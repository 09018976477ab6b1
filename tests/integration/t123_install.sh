#!/usr/bin/env bash
# make install DESTDIR=... puts the programs, the man pages, the bash, zsh
# and fish completions and the systemd user unit (with the installed path)
# where they belong, with the right modes; make uninstall with the same
# PREFIX and DESTDIR is its exact inverse: nothing is left, and what was
# there before stays. The man pages render without a groff warning, and
# the bash completion completes.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

# make in the repository with the programs under test, never rebuilding
# them (-o: an ASan build's programs stay ASan builds).
mk() {
	make -s -C "$ROOT" BIN="$SBX_BIN" -o "$SBX_BIN/sbx" -o "$SBX_BIN/sbxd" \
		-o "$SBX_BIN/sbx-hook" -o "$SBX_BIN/sbx-mcp" "$@"
}

for page in "$ROOT"/docs/man/*; do
	warn=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" 2>&1)
	is "$warn" "" "$(basename "$page") renders without a groff warning"
done

D="$T/root"
mk install DESTDIR="$D" PREFIX=/usr >"$T/install.out" 2>&1
ok $? "make install DESTDIR=... PREFIX=/usr"
# every program make builds (bin/ holds nothing else), then the rest
want="$(cd "$SBX_BIN" && for p in *; do echo "/usr/bin/$p 755"; done)
/usr/lib/systemd/user/sbxd.service 644
/usr/share/bash-completion/completions/sbx 644
/usr/share/bash-completion/completions/sbx-hook 644
/usr/share/bash-completion/completions/sbx-mcp 644
/usr/share/bash-completion/completions/sbxd 644
/usr/share/fish/vendor_completions.d/sbx-hook.fish 644
/usr/share/fish/vendor_completions.d/sbx-mcp.fish 644
/usr/share/fish/vendor_completions.d/sbx.fish 644
/usr/share/fish/vendor_completions.d/sbxd.fish 644
/usr/share/man/man1/sbx-hook.1 644
/usr/share/man/man1/sbx-mcp.1 644
/usr/share/man/man1/sbx.1 644
/usr/share/man/man5/sbx-policy.5 644
/usr/share/man/man8/sbxd.8 644
/usr/share/zsh/vendor-completions/_sbx 644"
is "$(cd "$D" && find . -type f -printf '/%P %m\n' | sort)" "$(printf '%s\n' "$want" | sort)" \
	"it installs exactly the programs, man pages, completions and unit, with their modes"
is "$(grep '^ExecStart=' "$D/usr/lib/systemd/user/sbxd.service")" "ExecStart=/usr/bin/sbxd --all" \
	"the systemd user unit runs the installed sbxd"
cmp -s "$SBX_BIN/sbxd" "$D/usr/bin/sbxd"
ok $? "the installed sbxd is the one built"
is "$("$D/usr/bin/sbx" --version)" "$("$SBX_BIN/sbx" --version)" "the installed sbx runs"
like "$(MANWIDTH=80 man -l "$D/usr/share/man/man1/sbx.1" 2>&1)" "sbx - approve, deny and audit" \
	"man -l shows the installed sbx(1)"
out=$(bash -c '. "$1"; COMP_WORDS=(sbx app); COMP_CWORD=1; _sbx; echo "${COMPREPLY[*]}"' \
	_ "$D/usr/share/bash-completion/completions/sbx")
is "$out" "approve approvers" "the bash completion completes sbx subcommands"

mk uninstall DESTDIR="$D" PREFIX=/usr >"$T/uninstall.out" 2>&1
ok $? "make uninstall with the same DESTDIR and PREFIX"
is "$(find "$D" -mindepth 1)" "" "nothing is left behind, not even an empty directory"

# What was there before stays (files and the directories holding them).
mkdir -p "$D/usr/share/man/man1" "$D/usr/bin"
echo keep >"$D/usr/share/man/man1/other.1"
echo keep >"$D/usr/bin/other"
mk install DESTDIR="$D/" >/dev/null 2>&1 && mk uninstall DESTDIR="$D/" >/dev/null 2>&1
ok $? "install and uninstall with the default PREFIX and a trailing / in DESTDIR"
is "$(cd "$D" && find . -mindepth 1 | sort | tr '\n' ' ')" \
	"./usr ./usr/bin ./usr/bin/other ./usr/share ./usr/share/man ./usr/share/man/man1 ./usr/share/man/man1/other.1 " \
	"only what was there before is left"

# The default PREFIX puts zsh's completion where zsh looks outside /usr.
mk install DESTDIR="$T/r2" >/dev/null 2>&1
[ -f "$T/r2/usr/local/share/zsh/site-functions/_sbx" ] && [ -x "$T/r2/usr/local/bin/sbx" ]
ok $? "PREFIX=/usr/local: /usr/local/bin, zsh site-functions"
is "$(grep '^ExecStart=' "$T/r2/usr/local/lib/systemd/user/sbxd.service")" \
	"ExecStart=/usr/local/bin/sbxd --all" "and the unit runs /usr/local/bin/sbxd"
mk uninstall DESTDIR="$T/r2" >/dev/null 2>&1
is "$(find "$T/r2" -mindepth 1)" "" "and uninstall leaves nothing"

done_testing
