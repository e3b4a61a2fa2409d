#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --stop-at-problem: a guest whose kernel warns and that then goes on is
# stopped at the warning, long before its timeout, with exit status 7
# and the warning listed; without the option the same guest runs to its
# timeout (exit status 6).  A window whose declared warning has not come
# yet, and a warning line half written, do not stop it.
# guest: stand-in
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

scenario warn-then-up
run_runner --results "$TMP/r" --timeout 5 --guest-cmd /bin/true boot
expect_status 6
t0=$SECONDS
run_runner --results "$TMP/r" --timeout 120 --stop-at-problem --guest-cmd /bin/true boot
took=$((SECONDS - t0))
expect_status 7
expect_output "stopped at the guest's first kernel problem"
grep -q 'WARNING: CPU: 0 PID: 80 at mm/page_alloc.c:2741' "$TMP/r/kernel-problems.txt" ||
	fail "kernel-problems.txt does not hold the warning"
expect_verdict "$TMP/r" kernel-problem 7
[ "$took" -lt 60 ] || fail "the guest was stopped after ${took}s, not at its warning"

# What is not sure yet is no problem: a window that declared its warning
# and still waits for it, a warning line half written.
scenario warn-in-pieces
run_runner --results "$TMP/p" --timeout 120 --stop-at-problem --guest-cmd /bin/true boot
expect_status 0
expect_verdict "$TMP/p" passed 0
echo "stop-at-problem: the guest stopped at its warning after ${took}s (exit 7); without it," \
	"at its timeout (exit 6); a declared warning late and in pieces did not stop it"
