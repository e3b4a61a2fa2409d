#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# expect-slower.sh - the bench guard's teeth: make check's bench-guard
# (bench quick) on a kernel that is correct but slower on purpose,
# tests/data/slow-free-no-pcp.patch (free_frozen_pages() without the
# per-CPU lists), must fail, and only because cases moved from the
# committed reference by more than its tolerance: each such case named
# with its change.  Fails if the run passes, if it was not held to the
# reference (none matched), if the guard failed for another reason (an
# atomic counted, frozen dearer than refcounted), or if the run broke.
#
# Usage: tests/expect-slower.sh [RUNNER-OPTIONS...]

set -u
cd "$(dirname "$0")/.." || exit 1

readonly SLOWER=tests/data/slow-free-no-pcp.patch

results=$(mktemp -d /tmp/mm-frozen-slower.XXXXXX)
report="$results/r/bench.json"

# shellcheck source=step.sh
. tests/step.sh
fail() { fail_step "expect-slower" "$results/r" "$@"; }

status=0
./runner.sh "$@" --with "$SLOWER" --results "$results/r" bench quick || status=$?
[ "$status" = 1 ] || fail "bench quick --with $SLOWER exited with $status, expected 1"
[ "$(jq -r '.reference.compared' "$report" 2>/dev/null)" = true ] ||
	fail "not held to a reference: $(jq -r '.reference.why' "$report" 2>/dev/null)"
others=$(jq -r '.guard.failures[] | select(test(": [AB] moved [-+][0-9.]+% from the reference") | not)' \
	"$report")
[ -z "$others" ] || fail "the guard failed for another reason:
$others"
mapfile -t moved < <(jq -r '.reference as $r | $r.changes[] |
	select(.change > $r.tolerance or .change < -$r.tolerance) |
	"\(.case) \(.path) \(.change * 10000 | round / 100)%"' "$report")
[ ${#moved[@]} -gt 0 ] || fail "no case moved by more than the tolerance"
echo "expect-slower: the guard failed on the slower kernel, each case that moved named:"
printf '    %s\n' "${moved[@]}"
rm -rf "$results"
