#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh time|count [full|quick] - the guest's side of "runner.sh bench":
# every case of /sys/kernel/debug/frozen_pages/bench (CONFIG_FROZEN_PAGES_BENCH)
# at order 0 and at the order of a common slab cache (3, as kmalloc-8k),
# into $MMF_RESULTS/bench.
#
#   time   each case's rounds, as the kernel gives them (per round the
#          nanoseconds of a batch of A, frozen, and of B, refcounted):
#          CASE-ORDER.rounds
#   count  each case once, with the page_ref events of its threads
#          (bench_frozen/CPU runs A, bench_refcnt/CPU runs B) counted per
#          path by hist triggers, untimed (CONFIG_DEBUG_PAGE_REF), by the
#          target's selftests/mm-frozen/bench_count.sh:
#          CASE-ORDER.count, lines "EVENT PATH COUNT" and "dropped N"
#
# quick: fewer rounds and operations, for the guard in make check.

set -eu

# shellcheck source=../selftests/mm-frozen/bench_count.sh
. "${MMF_ROOT:?not set: run through runner.sh}/selftests/mm-frozen/bench_count.sh"
OUT="${MMF_RESULTS:?not set: run through runner.sh}/bench"
MODE=${1:?usage: bench.sh time|count [full|quick]}
SIZE=${2:-full}

# CASE ORDER ITERS ROUNDS: iterations sized so that a batch is a few
# milliseconds of emulated time; slab batches build a slab's freelist.
cases() {
	rounds=15 scale=1
	[ "$SIZE" = full ] || rounds=5 scale=4
	for order in 0 3; do
		echo "pages $order $((2000 / scale)) $rounds"
		echo "slab $order $((400 / scale)) $rounds"
		echo "cross $order $((1000 / scale)) $rounds"
	done
}

die() {
	echo "bench.sh: $*" >&2
	exit 1
}

run_case() { # run_case CASE ORDER ITERS ROUNDS
	echo "$*" > "$BENCH" || die "the kernel refused \"$*\""
}

time_case() { # time_case CASE ORDER ITERS ROUNDS
	run_case "$@"
	cat "$BENCH" > "$OUT/$1-$2.rounds"
}

count_case() { # count_case CASE ORDER ITERS ROUNDS
	bench_count "$1" "$2" "$3" "$OUT/$1-$2.count" ||
		die "cannot count \"$1 $2 $3\" with hist triggers"
}

[ -w "$BENCH" ] || die "no $BENCH: a kernel without CONFIG_FROZEN_PAGES_BENCH"
mkdir -p "$OUT"
# A fixed limit for the per-CPU free page lists: tuned automatically, it
# moves between its bounds with the recent frees and the vmstat timer's
# decay, and whether a batch's frees stay on the list or go on to the
# buddy allocator would depend on what ran before it.
echo 8 > /proc/sys/vm/percpu_pagelist_high_fraction
cases | while read -r c; do
	# shellcheck disable=SC2086 # the case's four words
	case "$MODE" in
	time) time_case $c ;;
	count) count_case $c ;;
	*) die "unknown mode $MODE" ;;
	esac
	echo "bench: $MODE $c"
done
