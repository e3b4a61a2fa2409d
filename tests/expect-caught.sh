#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# expect-caught.sh - the hazard tests' teeth: on the series without
# "mm: Decline to manipulate the refcount on a slab page" every slab hazard
# test (frozen_hazard_test's slab_bvec and slab_page tests) must fail,
# either by its own assertions or by the kernel reporting the damage
# (a BUG, an Oops, a bad page) while it ran; each is reported with which.
# Fails if any of them passes there, or if the run breaks otherwise
# (build, hang).
#
# Usage: tests/expect-caught.sh [RUNNER-OPTIONS...]

set -u
cd "$(dirname "$0")/.." || exit 1

HAZARD_TESTS='(slab_bvec|slab_page)\.'
FIX=$(grep -l '^Subject: .*Decline to manipulate the refcount on a slab page' patches/*.patch)
FIX=$(basename "$FIX")

results=$(mktemp -d /tmp/mm-frozen-caught.XXXXXX)

# The results stay for a look when the step fails.
fail() {
	echo "expect-caught: $*; results in $results/r"
	exit 1
}

status=0
./runner.sh --drop "$FIX" --tests frozen_hazard_test --results "$results/r" "$@" ||
	status=$?
log="$results/r/guest/output.log"
problems="$results/r/kernel-problems.txt"

# 1: assertions failed; 7: the kernel reported problems.  Anything else
# is a run that broke or a fix that is not missed.
case "$status" in
1|7) ;;
*) fail "runner.sh --drop $FIX exited with $status, expected 1 or 7" ;;
esac
[ -f "$log" ] || fail "no $log"

caught=0 missed=0
while read -r verdict name; do
	if [ "$verdict" = ok ]; then
		echo "NOT caught: $name passed without the fix"
		missed=$((missed + 1))
		continue
	fi
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
done < <(sed -n -E 's/^# (not ok|ok) [0-9]+ ([^ ]+).*/\1 \2/p' "$log" |
	sed 's/^not ok/not-ok/' | grep -E " $HAZARD_TESTS")

[ $((caught + missed)) -gt 0 ] || fail "no slab hazard test ran (see $log)"
[ "$missed" = 0 ] || fail "$missed slab hazard test(s) pass without $FIX"
echo "expect-caught: all $caught slab hazard tests fail without $FIX"
rm -rf "$results"
