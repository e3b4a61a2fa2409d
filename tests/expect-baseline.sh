#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# expect-baseline.sh - the suite's teeth: on the unpatched kernel the slab
# check must fail (slab pages are freed with the refcount atomic) while the
# __free_pages() check passes.  Fails if the slab check ever passes there,
# or if the run fails for any other reason (build, hang, kernel problem).
#
# Usage: tests/expect-baseline.sh [RUNNER-OPTIONS...]

set -u
cd "$(dirname "$0")/.." || exit 1

WORK=${MMF_WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/mm-frozen}
LOG="$WORK/results/baseline/guest/output.log"
SLAB_TEST='frozen\.slab_free_without_refcount_atomic'
FREE_PAGES_TEST='frozen\.free_pages_one_atomic_to_zero'

status=0
./runner.sh --baseline "$@" || status=$?

fail() {
	echo "expect-baseline: $*"
	exit 1
}

# Exit status 1 is "a test failed"; anything else is a broken run.
[ "$status" = 1 ] || fail "runner.sh --baseline exited with $status, expected 1 (test failures only)"
grep -q -E "^(# )*not ok [0-9]+ $SLAB_TEST" "$LOG" ||
	fail "the slab check did not fail on the baseline kernel: it cannot tell the kernels apart"
grep -q -E "^(# )*ok [0-9]+ $FREE_PAGES_TEST" "$LOG" ||
	fail "the __free_pages() check did not pass on the baseline kernel"
echo "expect-baseline: slab check failed as expected, __free_pages() check passed"
