#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# expect-baseline.sh - the suite's teeth: on the unpatched kernel the slab
# checks must fail (slab pages are freed with the refcount atomic), that of
# frozen_pages_test and that of the tracing tools, while the
# __free_pages() check passes and the tracing tool still counts exactly
# (so that its failure is the kernel's, not the tool's).  Fails if a slab
# check ever passes there, or if the run fails for any other reason
# (build, hang, kernel problem).
#
# Usage: tests/expect-baseline.sh [RUNNER-OPTIONS...]

set -u
cd "$(dirname "$0")/.." || exit 1

RESULTS=$(mktemp -d /tmp/mm-frozen-baseline.XXXXXX)
LOG="$RESULTS/guest/output.log"
SLAB_TEST='frozen\.slab_free_without_refcount_atomic'
FREE_PAGES_TEST='frozen\.free_pages_one_atomic_to_zero'
TRACING_SLAB_CLAIM='slab-free-atomics\.bt: slab pages are freed without a refcount atomic'
TRACING_SLAB_EXACT='slab-free-atomics\.bt counts exactly'

status=0
# Results of its own: a run never reads another's.
./runner.sh --baseline "$@" --results "$RESULTS" || status=$?

# The results stay for a look when the step fails.
fail() {
	echo "expect-baseline: $*; results in $RESULTS"
	exit 1
}

# Exit status 1 is "a test failed"; anything else is a broken run.
[ "$status" = 1 ] || fail "runner.sh --baseline exited with $status, expected 1 (test failures only)"
grep -q -E "^(# )*not ok [0-9]+ $SLAB_TEST" "$LOG" ||
	fail "the slab check did not fail on the baseline kernel: it cannot tell the kernels apart"
grep -q -E "^(# )*ok [0-9]+ $FREE_PAGES_TEST" "$LOG" ||
	fail "the __free_pages() check did not pass on the baseline kernel"
grep -q -E "^(# )*not ok [0-9]+ $TRACING_SLAB_CLAIM" "$LOG" ||
	fail "the tracing tools' slab check did not fail on the baseline kernel"
grep -q -E "^(# )*ok [0-9]+ $TRACING_SLAB_EXACT" "$LOG" ||
	fail "slab-free-atomics.bt did not count exactly on the baseline kernel"
echo "expect-baseline: the slab checks failed as expected (frozen_pages_test," \
	"slab-free-atomics.bt, which counted exactly), the __free_pages() check passed"
rm -rf "$RESULTS"
