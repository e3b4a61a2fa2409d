#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One run per work directory: with --no-wait a second run fails at once
# (exit status 11) naming the first; without, it waits and says for whom;
# and when the first is killed (SIGKILL, no trap runs) its lock goes with
# it, and the second goes on.
# needs: kernel
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

start_runner first --results "$TMP/r1" exec -- sh -c 'echo holding; sleep 600'
first=$RUNNER_PID
wait_for_text "$TMP/r1/console.log" holding 600 "$TMP/first.out"

run_runner --no-wait --results "$TMP/r2" exec -- true
expect_status 11
expect_output "is in use by pid $first"

start_runner second --results "$TMP/r3" exec -- echo second ran
second=$RUNNER_PID
wait_for_text "$TMP/second.out" "in use by pid $first" 60 "$TMP/second.out"
wait_for_text "$TMP/second.out" 'waiting for it' 60 "$TMP/second.out"

kill -KILL -- "-$first"
# the killed run's guest, in a process group of its own, holds no lock
status=0
wait "$second" || status=$?
[ "$status" = 0 ] || fail "the second run exited with $status" "$TMP/second.out"
grep -q 'second ran' "$TMP/second.out" || fail "the second run's command did not run" "$TMP/second.out"
expect_verdict "$TMP/r3" passed 0 "$TMP/second.out"
echo "lock: --no-wait fails with 11, a waiting run names the holder, a killed run's lock is gone"
