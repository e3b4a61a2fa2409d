#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Ctrl-C (SIGINT to the runner's process group) and SIGTERM (to the
# runner alone) while a guest runs: within 10 s no qemu of the run is
# left, the results stay with an "interrupted" verdict, and the exit
# status is 130 or 143.
# needs: kernel
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

interrupt() { # interrupt SIGNAL STATUS group|runner
	local sig=$1 want=$2 r="$TMP/r-$1" out="$TMP/$1.out" i status=0 target
	start_runner "$sig" --results "$r" exec -- sh -c 'echo guest is up; sleep 600'
	wait_for_text "$r/console.log" 'guest is up' 600 "$out"
	pgrep -f -- "MMF_RESULTS=$r " > /dev/null || fail "$sig: no qemu of the run to stop" "$out"
	target=$RUNNER_PID
	[ "$3" = runner ] || target=-$RUNNER_PID
	kill "-$sig" -- "$target"
	for ((i = 0; i < 100; i++)); do
		kill -0 "$RUNNER_PID" 2>/dev/null || pgrep -f -- "MMF_RESULTS=$r " > /dev/null || break
		sleep 0.1
	done
	! pgrep -f -- "MMF_RESULTS=$r " > /dev/null || fail "$sig: qemu still runs 10 s later" "$out"
	wait "$RUNNER_PID" || status=$?
	[ "$status" = "$want" ] || fail "$sig: exit status $status, not $want" "$out"
	expect_verdict "$r" interrupted "$want" "$out"
	[ -s "$r/console.log" ] || fail "$sig: console.log not kept" "$out"
}

interrupt INT 130 group
interrupt TERM 143 runner
echo "interrupt: SIGINT to the group and SIGTERM to the runner stop the guest within 10 s, exit 130 and 143, verdict interrupted"
