#!/bin/sh
# run.sh - runs every unit test (C, TAP) and integration test (bash, TAP)
# under prove, which ends with its summary ("Files=N, Tests=N", "Result: PASS").
set -eu
cd "$(dirname "$0")/.."
: "${SBX_BIN:?}" "${SBX_TESTS_BIN:?}"
export SBX_BIN SBX_TESTS_BIN
units=$(find "$SBX_TESTS_BIN" -maxdepth 1 -type f -perm -u+x -name 'test_*' | sort)
integ=$(find tests/integration -maxdepth 1 -name 't*.sh' | sort)
# shellcheck disable=SC2086
exec prove --exec '' -j "${SBX_TEST_JOBS:-2}" --timer $units $integ
