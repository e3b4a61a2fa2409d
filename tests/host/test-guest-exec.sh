#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "runner.sh exec -- CMD" runs CMD in the guest, on the built kernel, and
# returns its output and exit status.
# guest: stand-in or kernel
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

scenario exec-status-3
# shellcheck disable=SC2016 # expanded by the guest's shell
run_runner --results "$TMP/r" exec -- sh -c 'echo "guest says $(uname -r)"; exit 3'
expect_status 1
expect_output '^guest says 6\.12\.'
expect_text 'the guest command exited with status 3'
[ -s "$TMP/r/console.log" ] || fail "no console.log in the results directory"
[ "$(cat "$TMP/r/guest/status")" = 3 ] || fail "guest/status does not hold 3"
expect_verdict "$TMP/r" tests-failed 1
[ "$(jq -r .guest_status "$TMP/r/verdict.json")" = 3 ] || fail "verdict.json: guest_status is not 3"
echo "exec: output came back from the guest; its status 3 is printed, kept, and exec exits 1"
