#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A kernel panic in the middle of a test: exit status 7 with the panic
# shown, and verdict.json holds the results up to it (fast.sh's, and
# crash.sh's first), the test that was running and the one never reached
# counted as crashed, not as passed.
# guest: stand-in or kernel
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

cmd=$(fake_target "$TMP/ks" 60 fast.sh crash.sh fast.sh) || fail "$cmd"
scenario crash-mid-test
run_runner --results "$TMP/r" --guest-cmd "$cmd" boot
expect_status 7
expect_output 'Kernel panic - not syncing'
expect_output 'CRASHED selftests: mm-frozen: crash.sh'
expect_verdict "$TMP/r" kernel-problem 7
[ "$(jq -r '"\(.passed) \(.crashed)"' "$TMP/r/verdict.json")" = "2 2" ] ||
	fail "verdict.json: not 2 passed and 2 crashed: $(cat "$TMP/r/verdict.json")"
echo "crash mid-test: exit 7, the running test and the one never reached counted as crashed"
