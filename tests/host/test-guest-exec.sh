#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "runner.sh exec -- CMD" runs CMD in the guest, on the built kernel, and
# returns its output and exit status.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2016 # expanded by the guest's shell
run_runner --results "$TMP/r" exec -- sh -c 'echo "guest says $(uname -r)"; exit 3'
expect_status 3
expect_output '^guest says 6\.12\.'
[ -s "$TMP/r/console.log" ] || fail "no console.log in the results directory"
echo "exec: output and exit status 3 came back from the guest"
