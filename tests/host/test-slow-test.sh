#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A test that overruns its own kselftest timeout (settings, times the TCG
# scale) is killed by kselftest, reported "# TIMEOUT", and the programs
# after it still run and report; the guest's own timeout is not reached.
# guest: stand-in or kernel
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

cmd=$(fake_target "$TMP/ks" 2 slow.sh fast.sh) || fail "$cmd"
scenario slow-test
run_runner --results "$TMP/r" --guest-cmd "$cmd" boot
expect_status 1
expect_output 'not ok 1 selftests: mm-frozen: slow.sh # TIMEOUT [0-9]+ seconds'
expect_output '^    guest\| ok 2 selftests: mm-frozen: fast.sh'
expect_output 'TIMEOUT selftests: mm-frozen: slow.sh'
expect_verdict "$TMP/r" tests-failed 1
[ "$(jq -r '"\(.timed_out) \(.passed)"' "$TMP/r/verdict.json")" = "1 1" ] ||
	fail "verdict.json: not 1 timed out and 1 passed: $(cat "$TMP/r/verdict.json")"
echo "slow test: TIMEOUT by kselftest, the next program ran, verdict.json says so"
