#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# expect-retry.sh - tracing_scripts.sh runs a traced workload again when
# the tool lost events, and skips a line only when every try lost some.
# A lost event cannot be had on demand, so the guest's bpftrace is the
# real one with its loss line rewritten on chosen runs
# (tests/data/lossy/bpftrace): runs 1 and 2 (slab-free-atomics.bt, which
# must count on its third try) and 4 to 8 (its five tries with
# slab_frozen=0: a SKIP listing each try's losses); run 9
# (free-atomics.bt) loses nothing and counts on its first.  The lines keep
# the names they have in a run without losses.
#
# Usage: tests/expect-retry.sh [RUNNER-OPTIONS...]

set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tap.sh
. tests/tap.sh

RESULTS=$(mktemp -d /tmp/mm-frozen-retry.XXXXXX)
LOG="$RESULTS/guest/output.log"
LOST='lost 3 by the tool, 0 by the hist triggers'
EXACT='counts exactly: order-5 slab frees = module pages = hist mm_page_free, with an atomic = hist'

status=0
./runner.sh "$@" --results "$RESULTS" --guest-cmd "$PWD/tests/data/lossy-guest.sh" \
	--tests tracing_scripts.sh || status=$?

# expect DESC ERE...: one result, whether the guest's output has a line
# matching each ERE.
expect() {
	local desc=$1 ere
	shift
	for ere in "$@"; do
		if ! grep -q -E -- "$ere" "$LOG" 2>/dev/null; then
			tap_result "$desc" "no line matches /$ere/ in $LOG"
			return
		fi
	done
	tap_result "$desc"
}

if [ "$status" = 0 ]; then
	tap_result "the run passed"
else
	tap_result "the run passed" "runner.sh exited with status $status"
fi
expect "two tries lost events, the third counted exactly" \
	"slab-free-atomics\.bt: 64 order-5 .*\(try 3 of 5; try 1 $LOST; try 2 $LOST\)$" \
	"^# ok 1 slab-free-atomics\.bt $EXACT$"
expect "five tries lost events: a SKIP that lists them, under the line's own name" \
	"^# ok 4 slab-free-atomics\.bt, slab_frozen=0, $EXACT # SKIP events lost on each of 5 tries: try 1 $LOST; try 2 $LOST; try 3 $LOST; try 4 $LOST; try 5 $LOST$"
expect "a workload that lost nothing counted on its first try" \
	"free-atomics\.bt: 64 order-6 frees from __free_pages, .*\(try 1 of 5\)$"
echo "retry: $((n - failed)) passed, $failed failed (results: $RESULTS)"
[ "$failed" = 0 ] && rm -rf "$RESULTS"
