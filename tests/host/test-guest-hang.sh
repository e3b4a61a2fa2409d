#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A guest that does not finish is killed at the timeout: the run fails
# with exit status 6 and shows the last console lines, and verdict.json
# says so, with the KTAP the guest printed read and counted: fast.sh
# passed, slow.sh (a kselftest timeout far beyond the guest's) was
# running when it was killed, so 1 passed and 1 crashed.  The stand-in
# guest gets 5 s: it has no boot to wait for.
# guest: stand-in or kernel
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

timeout=40
[ "$HOST_GUEST" = kernel ] || timeout=5
cmd=$(fake_target "$TMP/ks" 600 fast.sh slow.sh) || fail "$cmd"
scenario hang
run_runner --results "$TMP/r" --timeout "$timeout" --guest-cmd "$cmd" boot
expect_status 6
expect_output "did not finish within ${timeout}s"
expect_output 'last console lines'
expect_output 'sleeping past the timeout'
[ -s "$TMP/r/console.log" ] || fail "console.log not kept after the timeout"
expect_text "the tests' KTAP, as far as the console shows it"
expect_verdict "$TMP/r" guest-timeout 6
[ "$(jq -r '"\(.passed) \(.crashed)"' "$TMP/r/verdict.json")" = "1 1" ] ||
	fail "verdict.json: not 1 passed and 1 crashed: $(cat "$TMP/r/verdict.json")"
echo "hang: guest killed after $timeout s, last console lines shown, its KTAP counted (1 passed, 1 crashed)"
