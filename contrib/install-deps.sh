#!/bin/sh
# install-deps.sh - install what sbx needs to build and test, if missing.
#
# Checks for the libraries (cJSON, libsodium, SQLite, libinotifytools,
# libseccomp), bubblewrap,
# pkg-config and the tools the tests use; installs only what is missing,
# with apt-get as root or through sudo, and says so. Exits non-zero when
# something is missing and cannot be installed.
set -eu

need=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
have_hdr() { [ -e "/usr/include/$1" ]; }
have_cmd() { command -v "$1" >/dev/null 2>&1; }

have_cmd pkg-config || need="$need pkg-config"
have_pc libcjson || need="$need libcjson-dev"
have_pc libsodium || need="$need libsodium-dev"
have_pc sqlite3 || need="$need libsqlite3-dev"
have_hdr inotifytools/inotifytools.h || need="$need libinotifytools0-dev"
have_pc libseccomp || need="$need libseccomp-dev"	# sbx-jail-init
have_cmd bwrap || need="$need bubblewrap"	# sbx jail, and its tests
have_cmd cc || need="$need gcc"
have_cmd prove || need="$need perl"
have_cmd jq || need="$need jq"
have_cmd sqlite3 || need="$need sqlite3"
have_cmd git || need="$need git"
have_cmd tmux || need="$need tmux"
have_cmd python3 || need="$need python3"
[ -x /usr/sbin/sshd ] || need="$need openssh-server openssh-client"

[ -z "$need" ] && exit 0

echo "sbx: missing build/test dependencies:$need" >&2
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
echo "sbx: running: $SUDO apt-get install -y$need" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2 || true
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq $need >&2
