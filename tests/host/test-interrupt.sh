#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Ctrl-C (SIGINT to the runner's process group) and SIGTERM (to the
# runner alone) while a guest runs: within 10 s no qemu of the run is
# left, the results stay with an "interrupted" verdict, the exit status
# is 130 or 143, and the runner's last words are on its screen, and in
# runner.log for a command that keeps one (boot).
# guest: stand-in or kernel
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# interrupt NAME SIGNAL STATUS group|runner RUNNER-ARGS...: the run of
# RUNNER-ARGS, whose guest says "guest is up" and goes on, stopped.
interrupt() {
	local name=$1 sig=$2 want=$3 r="$TMP/r-$1" out="$TMP/$1.out" i status=0 target log
	start_runner "$name" --results "$r" "${@:5}"
	wait_for_text "$r/console.log" 'guest is up' 600 "$out"
	pgrep -f -- "MMF_RESULTS=$r " > /dev/null || fail "$name: no qemu of the run to stop" "$out"
	target=$RUNNER_PID
	[ "$4" = runner ] || target=-$RUNNER_PID
	kill "-$sig" -- "$target"
	for ((i = 0; i < 100; i++)); do
		kill -0 "$RUNNER_PID" 2>/dev/null || pgrep -f -- "MMF_RESULTS=$r " > /dev/null || break
		sleep 0.1
	done
	! pgrep -f -- "MMF_RESULTS=$r " > /dev/null || fail "$name: qemu still runs 10 s later" "$out"
	wait "$RUNNER_PID" || status=$?
	[ "$status" = "$want" ] || fail "$name: exit status $status, not $want" "$out"
	expect_verdict "$r" interrupted "$want" "$out"
	[ -s "$r/console.log" ] || fail "$name: console.log not kept" "$out"
	for log in "$out" "$r/runner.log"; do
		[ -f "$log" ] || continue
		grep -q "^runner.sh: SIG$sig: stopping$" "$log" || fail "$name: no last words in $log" "$out"
	done
}

scenario up-forever
interrupt exec-int INT 130 group exec -- sh -c 'echo guest is up; sleep 600'
interrupt exec-term TERM 143 runner exec -- sh -c 'echo guest is up; sleep 600'
interrupt boot-int INT 130 group --guest-cmd "$MMF_ROOT/tests/host/data/up-forever.sh" boot
[ -f "$TMP/r-boot-int/runner.log" ] || fail "boot kept no runner.log"
echo "interrupt: SIGINT to the group and SIGTERM to the runner stop the guest within 10 s, exit 130 and 143, verdict interrupted, last words in runner.log"
