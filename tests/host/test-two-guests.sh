#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two runs at once, each with a work directory of its own: Ctrl-C stops
# the one it is sent to, guest and all (exit 130, verdict interrupted),
# and the other's guest goes on to its end and its verdict.  With the
# stand-in qemu (tests/host/data/qemu/), no kernel.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

standin_guest "$TMP/w1"
standin_guest "$TMP/w2"
scenario up-then-done
start_runner other --work "$TMP/w2" --results "$TMP/other" --accel tcg \
	exec -- sh -c 'echo guest is up; sleep 4; echo done'
other=$RUNNER_PID
scenario up-forever
start_runner stopped --work "$TMP/w1" --results "$TMP/stopped" --accel tcg \
	exec -- sh -c 'echo guest is up; sleep 600'
stopped=$RUNNER_PID
wait_for_text "$TMP/other/console.log" 'guest is up' 30 "$TMP/other.out"
wait_for_text "$TMP/stopped/console.log" 'guest is up' 30 "$TMP/stopped.out"

kill -INT -- "-$stopped"
STATUS=0
wait "$stopped" || STATUS=$?
cp "$TMP/stopped.out" "$TMP/out"
expect_status 130
expect_verdict "$TMP/stopped" interrupted 130
! pgrep -f -- "MMF_RESULTS=$TMP/stopped " > /dev/null || fail "the stopped run's guest still runs"
pgrep -f -- "MMF_RESULTS=$TMP/other " > /dev/null ||
	fail "the other run's guest did not outlive the stopped one" "$TMP/other.out"

STATUS=0
wait "$other" || STATUS=$?
cp "$TMP/other.out" "$TMP/out"
expect_status 0
expect_text 'done'
expect_verdict "$TMP/other" passed 0
echo "two guests: Ctrl-C stopped one run (exit 130), the other's guest ran on to its verdict (exit 0)"
