#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# expect-caught.sh - the hazard tests' teeth: on the series without
# "mm: Decline to manipulate the refcount on a slab page" every slab
# hazard test (frozen_hazard_test's slab_bvec and slab_page tests) must
# fail, either by its own assertions or by the kernel reporting the damage
# (a BUG, an Oops, a bad page) while it ran; each is reported with which,
# as is the detector's case that the fix's no-op put_page() feeds.
# Which test must fail, and which must still pass or skip, is
# tests/expected/drop-NUMBER.txt, which the runner holds the run to: the
# step fails if a test has another status there (a hazard not caught, a
# test gone), or if the run breaks otherwise (build, hang).
#
# Usage: tests/expect-caught.sh [RUNNER-OPTIONS...]

set -u
cd "$(dirname "$0")/.." || exit 1

FIX=$(grep -l '^Subject: .*Decline to manipulate the refcount on a slab page' patches/*.patch)
FIX=$(basename "$FIX")
EXPECTED="$PWD/tests/expected/drop-${FIX%%-*}.txt"

results=$(mktemp -d /tmp/mm-frozen-caught.XXXXXX)
verdict="$results/r/verdict.json"

# shellcheck source=step.sh
. tests/step.sh
fail() { fail_step "expect-caught" "$results/r" "$@"; }

status=0
./runner.sh --drop "$FIX" --tests frozen_hazard_test --results "$results/r" "$@" ||
	status=$?
problems="$results/r/kernel-problems.txt"

# 1: assertions failed; 7: the kernel reported problems.  Anything else
# is a run that broke.
case "$status" in
1|7) ;;
*) fail "runner.sh --drop $FIX exited with $status, expected 1 or 7" ;;
esac
[ "$(jq -r .expected.file "$verdict" 2>/dev/null)" = "$EXPECTED" ] ||
	fail "the run was not held to $EXPECTED"
differences=$(jq -r '.expected.differences[].text' "$verdict")
[ -z "$differences" ] || fail "not as $EXPECTED expects:
$differences"

caught=0
while read -r name; do
	caught=$((caught + 1))
	# The kernel's verdict: its BUG line, else the first problem line.
	report=$(grep -F "  [during test $name]" "$problems" 2>/dev/null |
		awk '/kernel BUG at/ { print; found = 1; exit }
			NR == 1 { first = $0 } END { if (!found && first != "") print first }')
	if [ -n "$report" ]; then
		echo "caught by the kernel: $name: ${report%  \[during test*}"
	else
		echo "caught by assertion: $name"
	fi
done < <(jq -r '.tests[].subtests[]? | select(.status == "fail") | .name' "$verdict")

[ "$caught" -gt 0 ] || fail "$EXPECTED expects no test to fail"
echo "expect-caught: every status as $EXPECTED expects: the $caught tests it expects to fail" \
	"fail without $FIX"
rm -rf "$results"
