#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A host test that fails on purpose while the runner it started has a
# guest running (tests/host/test-cleanup.sh): lib.sh's trap must stop
# them.  Prints the runner's pid, then fails.
set -eu
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

scenario up-forever
start_runner guest --results "$TMP/r" exec -- sh -c 'echo guest is up; sleep 600'
echo "runner $RUNNER_PID"
wait_for_text "$TMP/r/console.log" 'guest is up' 600 "$TMP/guest.out"
fail "on purpose, with the guest up"
