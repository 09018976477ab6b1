#!/bin/sh
# install-deps.sh - install what one make target needs, if it is missing.
#
# usage: sh contrib/install-deps.sh TARGET...
#   build   compiler, pkg-config, the libraries' headers, libseccomp (make)
#   test    perl (prove), jq, sqlite3, git, tmux, groff, openssh, bubblewrap, strace (make test)
#   demo    jq, git (make demo)
#   lint    cppcheck (make lint)
#   claude  node, npm, jq, git (make test-claude; the CLI itself comes from npm)
#   deb     debhelper, dpkg-dev (make test-deb)
#   fuzz    clang and its libFuzzer/sanitizer runtime (make fuzz)
#
# Checks for each thing; installs only what is missing, with apt-get as
# root or through sudo, and says so. With SBX_NO_APT=1 in the environment
# (or `make SBX_NO_APT=1`) it never runs apt-get: it prints what is missing
# and the command that would install it, and exits 1. Exits non-zero when
# something is missing and cannot be installed.
set -eu

need=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
have_hdr() { [ -e "/usr/include/$1" ]; }
have_cmd() { command -v "$1" >/dev/null 2>&1; }
add() { case " $need " in *" $1 "*) ;; *) need="$need $1" ;; esac; }

[ $# -gt 0 ] || set -- build
for target in "$@"; do
	case $target in
	build)
		have_cmd pkg-config || add pkg-config
		have_cmd cc || add gcc
		have_cmd make || add make
		have_pc libcjson || add libcjson-dev
		have_pc libsodium || add libsodium-dev	# + libsodium.a: sbx-hook links it
		have_pc sqlite3 || add libsqlite3-dev
		have_pc libseccomp || add libseccomp-dev	# sbx-jail-init
		;;
	test)
		have_cmd prove || add perl
		have_cmd jq || add jq
		have_cmd sqlite3 || add sqlite3
		have_cmd git || add git
		have_cmd tmux || add tmux
		have_cmd groff || add groff-base
		[ -x /usr/sbin/sshd ] || add openssh-server
		have_cmd ssh || add openssh-client
		have_cmd bwrap || add bubblewrap	# sbx jail's tests
		have_cmd python3 || add python3	# local HTTP servers
		have_cmd strace || add strace	# t181, t183, t184 count syncs
		;;
	demo)
		have_cmd jq || add jq
		have_cmd git || add git
		;;
	lint)
		have_cmd cppcheck || add cppcheck
		;;
	claude)
		have_cmd node || add nodejs
		have_cmd npm || add npm
		have_cmd jq || add jq
		have_cmd git || add git
		;;
	deb)
		have_cmd dh || add debhelper
		have_cmd dpkg-buildpackage || add dpkg-dev
		;;
	fuzz)
		have_cmd clang || add clang
		[ -e "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ] ||
		    add libclang-rt-dev
		;;
	*)
		echo "install-deps.sh: unknown target '$target'" \
		    "(build, test, demo, lint, claude, deb, fuzz)" >&2
		exit 2
		;;
	esac
done

[ -z "$need" ] && exit 0

echo "sbx: missing for make $*:$need" >&2
if [ -n "${SBX_NO_APT:-}" ] && [ "${SBX_NO_APT:-}" != 0 ]; then
	echo "sbx: SBX_NO_APT is set, so nothing is installed; install them with:" \
	    "apt-get install$need" >&2
	exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif have_cmd sudo; then
	SUDO="sudo"
else
	echo "sbx: not root and no sudo; install them with: apt-get install$need" >&2
	exit 1
fi
if ! have_cmd apt-get; then
	echo "sbx: no apt-get here; install the equivalents of:$need" >&2
	exit 1
fi
echo "sbx: running: $SUDO apt-get install -y$need (set SBX_NO_APT=1 to stop this)" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2 || true
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq $need >&2
