#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# frozen_bench_test.sh - the kernel's frozen-page bench (patch 0018,
# /sys/kernel/debug/frozen_pages/bench) runs each of its cases and
# measures what it claims to: per case and order, counted by hist
# triggers on the page_ref events of its threads (bench_count.sh), the
# frozen path (A) executes no refcount atomic and the refcounted one (B)
# exactly one per page or slab it frees; a timed run gives one line per
# round; a malformed case is refused.  No timing is judged here: that is
# "runner.sh bench".

DIR=$(dirname "$(readlink -f "$0")")
# shellcheck source=/dev/null
. "$DIR/../kselftest/ktap_helpers.sh"
# shellcheck source=bench_count.sh
. "$DIR/bench_count.sh"

ITERS=64	# pages or slabs a batch frees
ROUNDS=3
CASES="pages slab cross"
ORDERS="0 3"

# count_result FILE PATH: the refcount atomics (page_ref_set, a store,
# left out) that FILE counted for PATH.
count_result() {
	awk -v p="$2" '$2 == p && $1 != "page_ref_set" { n += $3 } END { print n + 0 }' "$1"
}

# check_count CASE ORDER: the case counted, A's atomics none, B's one per
# free, nothing dropped.
check_count() {
	local name="$1 order $2: no refcount atomic frozen, one per free refcounted"
	local out a b dropped

	out=$(mktemp)
	if ! bench_count "$1" "$2" "$ITERS" "$out"; then
		ktap_print_msg "$1 order $2: not counted (the kernel refused the case, or the triggers)"
		ktap_test_fail "$name"
		rm -f "$out"
		return
	fi
	a=$(count_result "$out" A)
	b=$(count_result "$out" B)
	dropped=$(awk '$1 == "dropped" { n += $2 } END { print n + 0 }' "$out")
	rm -f "$out"
	ktap_print_msg "$1 order $2: $ITERS frees a path, atomics A $a, B $b, dropped $dropped"
	ktap_test_result "$name" test "$a" = 0 -a "$b" = "$ITERS" -a "$dropped" = 0
}

# check_rounds CASE ORDER: a timed run gives its header and ROUNDS lines
# "ROUND A-NS B-NS".
check_rounds() {
	local lines

	if ! echo "$1 $2 $ITERS $ROUNDS" > "$BENCH"; then
		ktap_print_msg "$1 order $2: the kernel refused the case"
		ktap_test_fail "$1 order $2: $ROUNDS rounds timed"
		return
	fi
	lines=$(grep -c -E '^[0-9]+ [0-9]+ [0-9]+$' "$BENCH")
	ktap_print_msg "$1 order $2: $lines rounds of A and B nanoseconds"
	ktap_test_result "$1 order $2: $ROUNDS rounds timed" [ "$lines" = "$ROUNDS" ]
}

# check_refused: malformed cases, each refused.
check_refused() {
	local input

	for input in "none 0 1 1" "pages 9 1 1" "pages 0 0 1" "pages 0 1 1 x"; do
		if echo "$input" 2>/dev/null > "$BENCH"; then
			ktap_test_fail "\"$input\" refused"
			continue
		fi
		ktap_test_pass "\"$input\" refused"
	done
}

ktap_print_header
if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "must be run as root"
	exit "$KSFT_SKIP"
fi
if [ ! -w "$BENCH" ]; then
	ktap_skip_all "no $BENCH (CONFIG_FROZEN_PAGES_BENCH=n)"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 12
for order in $ORDERS; do
	for c in $CASES; do
		check_count "$c" "$order"
	done
done
check_rounds pages 0
check_rounds slab 3
check_refused
ktap_finished
