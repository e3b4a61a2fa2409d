#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One run per work directory: with --no-wait a second run fails at once
# (exit status 11) naming the first; without, it waits and says for whom;
# and when the first is killed (SIGKILL, no trap runs) its guest goes
# with it (the kernel sends the guest's timeout SIGTERM), then its lock,
# and the second goes on.  A runner started by a run that holds the lock
# (bench's, matrix's) inherits it and goes on at once.
# guest: stand-in or kernel
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

scenario holding
start_runner first --results "$TMP/r1" exec -- sh -c 'echo holding; sleep 600'
first=$RUNNER_PID
wait_for_text "$TMP/r1/console.log" holding 600 "$TMP/first.out"

run_runner --no-wait --results "$TMP/r2" exec -- true
expect_status 11
expect_output "is in use by pid $first"

scenario second-ran
start_runner second --results "$TMP/r3" exec -- echo second ran
second=$RUNNER_PID
wait_for_text "$TMP/second.out" "in use by pid $first" 60 "$TMP/second.out"
wait_for_text "$TMP/second.out" 'waiting for it' 60 "$TMP/second.out"

kill -KILL -- "-$first"
wait "$first" || true
wait_process gone "MMF_RESULTS=$TMP/r1 " 15 "the guest of the run killed by SIGKILL" "$TMP/first.out"
status=0
wait "$second" || status=$?
[ "$status" = 0 ] || fail "the second run exited with $status" "$TMP/second.out"
grep -q 'second ran' "$TMP/second.out" || fail "the second run's command did not run" "$TMP/second.out"
expect_verdict "$TMP/r3" passed 0 "$TMP/second.out"

work=$("$RUNNER" "${TEST_FLAGS[@]}" where work)
exec {held}>> "$work/.lock"
flock -n "$held" || fail "the lock of $work is not free"
MMF_LOCK_FD=$held run_runner --no-wait --results "$TMP/r4" exec -- echo second ran
expect_status 0
run_runner --no-wait --results "$TMP/r5" exec -- echo second ran
expect_status 11
exec {held}>&-
echo "lock: --no-wait fails with 11, a waiting run names the holder, a run killed by SIGKILL takes its guest and lock along, a child runner inherits its parent's lock"
