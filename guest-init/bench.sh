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
#          path by hist triggers, untimed (CONFIG_DEBUG_PAGE_REF):
#          CASE-ORDER.count, lines "EVENT PATH COUNT" and "dropped N"
#
# quick: fewer rounds and operations, for the guard in make check.

set -eu

BENCH=/sys/kernel/debug/frozen_pages/bench
TRACEFS=/sys/kernel/tracing
INSTANCE=$TRACEFS/instances/mmf_bench
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

# The atomic refcount operations (page_ref_set is a plain store, counted
# beside them), each a hist trigger keyed by thread, for the bench's
# threads only.
PAGE_REF_EVENTS="page_ref_set page_ref_mod page_ref_mod_and_test
page_ref_mod_and_return page_ref_mod_unless page_ref_freeze page_ref_unfreeze"
TRIGGER='hist:keys=common_pid.execname:size=256 if comm ~ "bench_*"'

# set_triggers [!]: creates the triggers, or with "!" removes them.
set_triggers() {
	for e in $PAGE_REF_EVENTS; do
		echo "${1:-}$TRIGGER" >> "$INSTANCE/events/page_ref/$e/trigger" ||
			die "cannot set \"${1:-}$TRIGGER\" on page_ref:$e"
	done
}

count_case() { # count_case CASE ORDER ITERS ROUNDS
	out="$OUT/$1-$2.count" rounds=1
	mkdir "$INSTANCE"
	set_triggers
	run_case "$1" "$2" "$3" "$rounds"
	: > "$out"
	for e in $PAGE_REF_EVENTS; do
		# { common_pid: bench_frozen/0 [  123] } hitcount: 2000
		awk -v e="$e" '
			/hitcount:/ {
				path = ($0 ~ /bench_frozen/) ? "A" : ($0 ~ /bench_refcnt/) ? "B" : "?"
				n[path] += $NF
			}
			/^ *Dropped:/ { dropped += $2 }
			END {
				printf "%s A %d\n%s B %d\n", e, n["A"], e, n["B"]
				if (n["?"]) printf "%s ? %d\n", e, n["?"]
				printf "dropped %d\n", dropped
			}' "$INSTANCE/events/page_ref/$e/hist" >> "$out"
	done
	echo "iters $3" >> "$out"
	set_triggers !
	rmdir "$INSTANCE"
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
