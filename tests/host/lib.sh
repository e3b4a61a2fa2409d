# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the harness's own host-side tests (tests/host/test-*.sh).
# Each test runs runner.sh with a private results directory and checks its
# exit status and messages; a failed check prints what it saw and exits 1.

MMF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RUNNER="$MMF_ROOT/runner.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Extra runner.sh options for every test, e.g. MMF_TEST_FLAGS=--baseline
# to exercise the guest tests on the unpatched kernel.
read -r -a TEST_FLAGS <<< "${MMF_TEST_FLAGS:-}"

# run_runner ARGS...: runs runner.sh, output in $TMP/out, status in $STATUS.
run_runner() {
	STATUS=0
	"$RUNNER" "${TEST_FLAGS[@]}" "$@" > "$TMP/out" 2>&1 || STATUS=$?
}

fail() {
	echo "FAIL: $*"
	echo "--- runner.sh output ---"
	cat "$TMP/out"
	exit 1
}

expect_status() {
	[ "$STATUS" = "$1" ] || fail "expected exit status $1, got $STATUS"
}

expect_output() { # expect_output EXTENDED-REGEX
	grep -q -E -- "$1" "$TMP/out" || fail "output does not match: $1"
}

expect_text() { # expect_text FIXED-STRING
	grep -q -F -- "$1" "$TMP/out" || fail "output does not contain: $1"
}
