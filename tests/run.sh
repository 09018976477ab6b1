#!/bin/sh
# run.sh - runs every unit test (C, TAP) and integration test (bash, TAP)
# under prove, which ends with its summary ("Files=N, Tests=N", "Result: PASS").
set -eu
cd "$(dirname "$0")/.."
: "${SBX_BIN:?}" "${SBX_TESTS_BIN:?}"
export SBX_BIN SBX_TESTS_BIN
units=$(find "$SBX_TESTS_BIN" -maxdepth 1 -type f -perm -u+x -name 'test_*' | sort)
integ=$(find tests/integration -maxdepth 1 -name 't*.sh' | sort)
# Each test file under timeout (SBX_TEST_TIMEOUT seconds, default 1200;
# the slowest takes about 2 minutes under ASan on a loaded machine): a
# hung test is killed with its process group and counted as failed, with
# its name, instead of holding the whole run (and CI) for ever.
# shellcheck disable=SC2086
exec prove --exec "timeout -k 10 ${SBX_TEST_TIMEOUT:-1200}" -j "${SBX_TEST_JOBS:-2}" --timer \
	$units $integ
