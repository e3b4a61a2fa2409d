#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A kernel panic in the guest fails the run with exit status 7 and shows
# the panic lines; the console log is kept in the results directory, and
# verdict.json says so.  With the kernel, the console is decoded beside
# it, and the panic is shown with its stack.
# guest: stand-in or kernel
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

scenario panic
run_runner --results "$TMP/r" --timeout 120 exec -- sh -c 'echo c > /proc/sysrq-trigger'
expect_status 7
expect_output 'Kernel panic - not syncing'
expect_output 'kernel problems in the guest log'
grep -q 'Kernel panic' "$TMP/r/kernel-problems.txt" ||
	fail "kernel-problems.txt does not hold the panic line"
expect_verdict "$TMP/r" kernel-problem 7
if [ "$HOST_GUEST" = kernel ]; then
	# the stand-in's kernel has no vmlinux to decode with
	grep -q ' sysrq_handle_crash' "$TMP/r/decoded-console.log" 2>/dev/null ||
		fail "decoded-console.log does not hold the panic's stack"
	expect_output 'the first report, decoded'
	expect_output 'Kernel panic - not syncing: sysrq triggered crash'
fi
echo "panic: sysrq crash reported with exit status 7"
