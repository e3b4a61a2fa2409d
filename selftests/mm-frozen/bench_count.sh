# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# bench_count.sh - sourced (POSIX sh): runs one case of the kernel's
# frozen-page bench (/sys/kernel/debug/frozen_pages/bench,
# CONFIG_FROZEN_PAGES_BENCH) once, untimed, and counts the page_ref
# events of its threads per path with hist triggers in a tracefs
# instance of its own: bench_frozen/CPU runs A, the frozen path;
# bench_refcnt/CPU runs B, the refcounted one.  Used by
# frozen_bench_test.sh and by mm-frozen's guest-init/bench.sh.

BENCH=/sys/kernel/debug/frozen_pages/bench
BENCH_INSTANCE=/sys/kernel/tracing/instances/mmf_bench

# The atomic refcount operations (page_ref_set is a plain store, counted
# beside them), each a hist trigger keyed by thread, for the bench's
# threads only.
PAGE_REF_EVENTS="page_ref_set page_ref_mod page_ref_mod_and_test
page_ref_mod_and_return page_ref_mod_unless page_ref_freeze page_ref_unfreeze"
BENCH_TRIGGER='hist:keys=common_pid.execname:size=256 if comm ~ "bench_*"'

# bench_triggers [!]: creates the triggers, or with "!" removes them.
bench_triggers() {
	for e in $PAGE_REF_EVENTS; do
		echo "${1:-}$BENCH_TRIGGER" >> "$BENCH_INSTANCE/events/page_ref/$e/trigger" ||
			return 1
	done
}

# bench_hists ITERS: the triggers' counts, "EVENT A N" and "EVENT B N"
# per event, "dropped N" (events the triggers lost), "iters ITERS".
bench_hists() {
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
			}' "$BENCH_INSTANCE/events/page_ref/$e/hist"
	done
	echo "iters $1"
}

# bench_count CASE ORDER ITERS OUT: the case run once, its counts
# (bench_hists) in OUT.  Non-zero if the triggers could not be set or
# the kernel refused the case.
bench_count() {
	mkdir "$BENCH_INSTANCE" || return 1
	bench_status=0
	if bench_triggers && echo "$1 $2 $3 1" > "$BENCH"; then
		bench_hists "$3" > "$4"
	else
		bench_status=1
	fi
	bench_triggers ! 2>/dev/null
	rmdir "$BENCH_INSTANCE"
	return "$bench_status"
}
