#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A kernel panic in the guest fails the run with exit status 7 and shows
# the panic lines; the console log is kept in the results directory, and
# verdict.json says so.
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
echo "panic: sysrq crash reported with exit status 7"
