#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# expect-lost.sh - the expected statuses' teeth: the series without its
# tracepoint ("mm: Add the mm_page_free_frozen tracepoint", --drop),
# held to the patched kernel's statuses (tests/expected/patched.txt).
# Every test that needs the tracepoint then skips, which kselftest calls
# green; here the run must fail (exit 1) and name each of them as a pass
# that became a skip.  Which tests need the tracepoint is read apart from
# the run: tests/expected/baseline.txt's skips whose reason names
# kmem:mm_page_free_frozen (the unpatched kernel has no tracepoint
# either).  A pass that became a skip for another reason fails the step;
# another difference (a test of its own that failed) is shown, and is
# not the step's to judge.
#
# Usage: tests/expect-lost.sh [RUNNER-OPTIONS...]

set -u
cd "$(dirname "$0")/.." || exit 1

TRACEPOINT=$(basename "$(grep -l '^Subject: .*Add the mm_page_free_frozen tracepoint' patches/*.patch)")
RESULTS=$(mktemp -d /tmp/mm-frozen-lost.XXXXXX)
VERDICT="$RESULTS/verdict.json"
BECAME_SKIP='.expected.differences[] | select(.expected == "pass" and .got == "skip")'

# shellcheck source=step.sh
. tests/step.sh
fail() { fail_step "expect-lost" "$RESULTS" "$@"; }

# need_tracepoint: the tests that the baseline skips for want of it.
need_tracepoint() {
	sed -n 's/^skip\(@[a-z]*\)\? *\(.*[^ ]\)  # .*kmem:mm_page_free_frozen.*/\2/p' \
		tests/expected/baseline.txt | sort -u
}

# became_skips: the tests of the run that passed on the patched kernel
# and skipped here.
became_skips() {
	jq -r "$BECAME_SKIP | .path" "$VERDICT" | sort -u
}

status=0
./runner.sh --drop "$TRACEPOINT" --expect tests/expected/patched.txt --results "$RESULTS" "$@" ||
	status=$?
[ "$status" = 1 ] || fail "runner.sh --drop $TRACEPOINT exited with $status, expected 1"
[ -n "$(need_tracepoint)" ] || fail "tests/expected/baseline.txt names no test that needs the tracepoint"
unnamed=$(comm -23 <(need_tracepoint) <(became_skips))
[ -z "$unnamed" ] || fail "tests that need the tracepoint, not named as a pass that became a skip: $unnamed"
other_skips=$(jq -r "$BECAME_SKIP | select(.text | contains(\"mm_page_free_frozen\") | not) | .text" "$VERDICT")
[ -z "$other_skips" ] || fail "passes that became skips for another reason: $other_skips"
echo "expect-lost: without $TRACEPOINT the run fails (exit 1), naming the $(need_tracepoint | wc -l)" \
	"tests that the baseline skips for want of the tracepoint as passes that became skips:"
jq -r "$BECAME_SKIP | .text" "$VERDICT" | sed 's/^/    /'
others=$(jq -r '.expected.differences[] | select(.expected != "pass" or .got != "skip") | .text' "$VERDICT")
[ -z "$others" ] || printf 'expect-lost: also, not the tracepoint'"'"'s:\n%s\n' "$others" | sed '2,$s/^/    /'
rm -rf "$RESULTS"
