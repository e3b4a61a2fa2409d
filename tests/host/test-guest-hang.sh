#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A guest that does not finish is killed at the timeout; the run fails
# with exit status 6 and shows the last console lines, and verdict.json
# says so.
# needs: kernel
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

run_runner --results "$TMP/r" --timeout 40 exec -- sh -c 'echo hanging now; sleep 600'
expect_status 6
expect_output 'did not finish within 40s'
expect_output 'last console lines'
expect_output 'hanging now'
[ -s "$TMP/r/console.log" ] || fail "console.log not kept after the timeout"
expect_verdict "$TMP/r" guest-timeout 6
echo "hang: guest killed after 40 s, last console lines shown"
