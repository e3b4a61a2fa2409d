#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# expect-baseline.sh - the suite's teeth: on the unpatched kernel the slab
# checks must fail (slab pages are freed with the refcount atomic), those
# of frozen_pages_test, frozen_pressure_test and the tracing tools, while
# the __free_pages() checks pass and the tools still count exactly (so
# that a failure is the kernel's, not a tool's).  Which test must do what
# is tests/expected/baseline.txt, which the runner holds the run to: the
# step fails if a test has another status there (a slab check that
# passes, a test gone missing), or if the run fails for any other reason
# (build, hang, kernel problem).
#
# Usage: tests/expect-baseline.sh [RUNNER-OPTIONS...]

set -u
cd "$(dirname "$0")/.." || exit 1

RESULTS=$(mktemp -d /tmp/mm-frozen-baseline.XXXXXX)
EXPECTED="$PWD/tests/expected/baseline.txt"

status=0
# Results of its own: a run never reads another's.
./runner.sh --baseline "$@" --results "$RESULTS" || status=$?

# shellcheck source=step.sh
. tests/step.sh
fail() { fail_step "expect-baseline" "$RESULTS" "$@"; }

# Exit status 1 is "a test failed"; anything else is a broken run.
[ "$status" = 1 ] || fail "runner.sh --baseline exited with $status, expected 1 (test failures only)"
[ "$(jq -r .expected.file "$RESULTS/verdict.json")" = "$EXPECTED" ] ||
	fail "the run was not held to $EXPECTED"
differences=$(jq -r '.expected.differences[].text' "$RESULTS/verdict.json")
[ -z "$differences" ] || fail "not as $EXPECTED expects:
$differences"
echo "expect-baseline: every status as $EXPECTED expects, these failures among them:"
jq -r '.failures[]' "$RESULTS/verdict.json"
rm -rf "$RESULTS"
