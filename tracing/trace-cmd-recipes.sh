#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trace-cmd-recipes.sh - trace-cmd recipes for a person at the mm-frozen
# guest's shell: record, report, and a short summary of what to look for.
# Every trace-cmd command is printed ("+ ...") before it runs, so the
# recipes can be copied and varied by hand; the .dat and report files are
# kept in the output directory for trace-cmd report / kernelshark.
#
# USAGE: trace-cmd-recipes.sh [-h] [-o DIR] [-s SECONDS] RECIPE [-- CMD...]
#
#   RECIPE   events, slab or stacks (see below), or all
#   -o DIR   where the .dat and report files go (default /tmp/mm-frozen-trace)
#   -s N     record system-wide for N seconds (default 10) ...
#   CMD      ... or while CMD runs, e.g. -- ./churn.sh -r 1
#
# events   page frees and refcount atomics, system-wide:
#            trace-cmd record -e kmem:mm_page_free -e kmem:mm_page_free_frozen \
#              -e page_ref:page_ref_mod_and_test -e page_ref:page_ref_mod \
#              -e page_ref:page_ref_mod_and_return \
#              -e page_ref:page_ref_mod_unless sleep 10
#            trace-cmd report
#          Look for: mm_page_free_frozen lines with call_site=__free_slab+...
#          (slab pages freed frozen: no page_ref_mod_and_test on that pfn
#          just before) and call_site=__free_pages+... (each preceded by a
#          page_ref_mod_and_test ... ret=1 on the same pfn).  The summary
#          counts events and frozen frees per call site.
#          kmem:mm_page_free_frozen exists only with mm-frozen's tracepoint
#          patch; without it the recipe records the rest and says so.
#
# slab     what happens inside __free_slab(), with the function graph tracer:
#            trace-cmd record -p function_graph -g __free_slab \
#              -e kmem:mm_page_free -e page_ref:page_ref_mod_and_test ... CMD
#            trace-cmd report
#          Look for: "__free_slab() {" blocks.  Frozen (the series, or
#          slab_frozen=1): free_frozen_pages() is called directly and no
#          page_ref event appears inside.  Refcounted (baseline, or
#          slab_frozen=0): __free_pages() { __page_ref_mod_and_test() {
#          page_ref_mod_and_test ... ret=1 } free_..._page() }.  The summary
#          counts __free_slab() calls, the page frees and the refcount
#          atomics inside them, and atomics per 1,000 slab page frees.
#          (Under the graph tracer mm_page_free_frozen's call_site reads
#          return_to_handler+0x0, ftrace's return hook: use "events".)
#
# stacks   where the refcount reaches zero, with kernel stacks:
#            trace-cmd record -T -e page_ref:page_ref_mod_and_test \
#              -f 'ret == 1' CMD
#            trace-cmd hist
#          Look for: the call chains under __page_ref_mod_and_test in
#          trace-cmd hist.  __free_pages is there in every kernel;
#          __free_slab only when slabs are refcounted.  The summary classes
#          each zeroing atomic by the first freeing function on its stack.
#
# Examples, as root in the guest:
#
#   # ./trace-cmd-recipes.sh -s 5 events
#   # ./trace-cmd-recipes.sh slab -- ./churn.sh -r 1 slab
#   # echo 0 > /sys/kernel/debug/frozen_pages/slab_frozen
#   # ./trace-cmd-recipes.sh slab -- ./churn.sh -r 1 slab
#
# Exit status: 0 recorded and summarised, 1 trace-cmd failed, 2 usage,
# 4 cannot run here (not root, no trace-cmd, no tracefs).
#
# Copyright 2025 The mm-frozen authors.
# Licensed under the GNU General Public License, version 2.

set -u

TRACEFS=/sys/kernel/tracing
OUT=/tmp/mm-frozen-trace
SECONDS_TO_RECORD=10
CMD=()
ATOMIC_EVENTS=(page_ref:page_ref_mod_and_test page_ref:page_ref_mod
	page_ref:page_ref_mod_and_return page_ref:page_ref_mod_unless)

usage() {
	sed -n '/^# USAGE/,/^# Copyright/{/^# Copyright/d;s/^# \{0,1\}//p}' "$0"
	exit "${1:-0}"
}

die() {
	local status=$1

	shift
	echo "trace-cmd-recipes: $*" >&2
	exit "$status"
}

# run CMD...: print it, shell-quoted, then run it.
run() {
	local q

	printf -v q '%q ' "$@"
	echo "+ ${q% }" >&2
	"$@"
}

have_event() {
	[ -d "$TRACEFS/events/${1%%:*}/${1#*:}" ]
}

# event_args EVENT...: -e options for the events this kernel has.
event_args() {
	local ev

	for ev in "$@"; do
		if have_event "$ev"; then
			printf '%s\n' -e "$ev"
		else
			echo "trace-cmd-recipes: $ev: not in this kernel, not recorded" >&2
		fi
	done
}

record() {
	local dat=$1

	shift
	if [ ${#CMD[@]} -gt 0 ]; then
		run trace-cmd record -q -o "$dat" "$@" "${CMD[@]}"
	else
		run trace-cmd record -q -o "$dat" "$@" sleep "$SECONDS_TO_RECORD"
	fi || die 1 "trace-cmd record failed"
}

report() {
	local dat=$1 txt=$2

	run trace-cmd report -i "$dat" > "$txt" || die 1 "trace-cmd report failed"
	echo "  report: $txt ($(wc -l < "$txt") lines)"
}

# The event name of a report line is the word after "[CPU] TIMESTAMP:".
# shellcheck disable=SC2016 # an awk program: $i is awk's
AWK_EVENT='
function event_name(   i) {
	for (i = 1; i < NF - 1; i++)
		if ($i ~ /^\[[0-9]+\]$/) {
			cpu = $i
			return substr($(i + 2), 1, length($(i + 2)) - 1)
		}
	return ""
}'

recipe_events() {
	local dat=$OUT/events.dat txt=$OUT/events.txt args

	echo "== events: page frees and refcount atomics"
	mapfile -t args < <(event_args kmem:mm_page_free kmem:mm_page_free_frozen \
		"${ATOMIC_EVENTS[@]}")
	record "$dat" "${args[@]}"
	report "$dat" "$txt"
	awk "$AWK_EVENT"'
	{
		ev = event_name()
		if (ev == "") next
		count[ev]++
		if (ev == "mm_page_free_frozen" && match($0, /call_site=[^ +]+/))
			site[substr($0, RSTART + 10, RLENGTH - 10)]++
	}
	END {
		printf "  %-24s %10s\n", "EVENT", "COUNT"
		for (ev in count)
			printf "  %-24s %10d\n", ev, count[ev]
		if (!("mm_page_free_frozen" in count))
			print "  (no mm_page_free_frozen events)"
		else {
			printf "  %-24s %10s\n", "FROZEN FREE CALL SITE", "COUNT"
			for (s in site)
				printf "  %-24s %10d\n", s, site[s]
		}
	}' "$txt"
}

recipe_slab() {
	local dat=$OUT/slab.dat txt=$OUT/slab.txt args

	echo "== slab: inside __free_slab()"
	grep -qx __free_slab "$TRACEFS/available_filter_functions" ||
		die 1 "__free_slab is not traceable in this kernel (inlined?)"
	mapfile -t args < <(event_args kmem:mm_page_free kmem:mm_page_free_frozen \
		"${ATOMIC_EVENTS[@]}")
	record "$dat" -p function_graph -g __free_slab "${args[@]}"
	report "$dat" "$txt"
	# Per CPU, depth inside the outermost "__free_slab() {"; events on
	# that CPU while the depth is not 0 happened inside it.
	awk "$AWK_EVENT"'
	{
		ev = event_name()
		if (sampling && cpu == sample_cpu) sample = sample $0 "\n"
		if (ev == "funcgraph_entry") {
			if ($0 ~ /\|[ ]*__free_slab\(\) \{/ && !depth[cpu]) {
				calls++
				depth[cpu] = 1
				if (!sample_done) {
					sampling = 1
					sample_cpu = cpu
					sample = $0 "\n"
				}
			} else if ($0 ~ /\|[ ]*__free_slab\(\);/ && !depth[cpu]) {
				calls++
			} else if (depth[cpu] && $0 ~ /\{[ ]*$/) {
				depth[cpu]++
			}
		} else if (ev == "funcgraph_exit") {
			if (depth[cpu]) depth[cpu]--
			if (!depth[cpu] && sampling && cpu == sample_cpu) {
				sampling = 0
				sample_done = 1
			}
		} else if (depth[cpu]) {
			if (ev == "mm_page_free") frees++
			else if (ev == "mm_page_free_frozen") frozen++
			else if (ev ~ /^page_ref_mod/) atomics++
		}
	}
	END {
		printf "  __free_slab calls:               %d\n", calls
		printf "  slab page frees inside:          %d\n", frees
		printf "  mm_page_free_frozen inside:      %d\n", frozen
		printf "  refcount atomics inside:         %d\n", atomics
		if (frees)
			printf "  atomics per 1000 slab page frees: %d\n", int((atomics * 1000 + frees / 2) / frees)
		else
			printf "  atomics per 1000 slab page frees: -\n"
		if (sample != "")
			printf "  first __free_slab() call:\n%s", sample
	}' "$txt"
}

recipe_stacks() {
	local dat=$OUT/stacks.dat txt=$OUT/stacks.txt hist=$OUT/stacks-hist.txt

	echo "== stacks: where page refcounts reach zero"
	record "$dat" -T -e page_ref:page_ref_mod_and_test -f 'ret == 1'
	report "$dat" "$txt"
	run trace-cmd hist -i "$dat" > "$hist" 2>&1 || die 1 "trace-cmd hist failed"
	echo "  hist: $hist ($(wc -l < "$hist") lines); its top:"
	grep -v '^[[:space:]|]*$' "$hist" | head -n 25 | sed 's/^/    /'
	awk '
	function flush() {
		if (pending) n[class]++
		pending = 0
	}
	/page_ref_mod_and_test:/ { flush(); pending = 1; class = "other"; next }
	/^=> / {
		if (!pending || class == "slab") next
		if ($2 ~ /^(__free_slab|free_slab|discard_slab|rcu_free_slab)$/) class = "slab"
		else if (class == "other" && $2 == "__free_pages") class = "__free_pages"
		else if (class == "other" && $2 ~ /^(folios_put_refs|put_pages_list|release_pages|__folio_batch_release)$/) class = "folio"
		next
	}
	/kernel_stack:/ { next }
	{ flush() }
	END {
		flush()
		printf "  %-24s %10s\n", "ZEROING ATOMICS UNDER", "COUNT"
		printf "  %-24s %10d\n", "slab", n["slab"]
		printf "  %-24s %10d\n", "__free_pages", n["__free_pages"]
		printf "  %-24s %10d\n", "folio batch", n["folio"]
		printf "  %-24s %10d\n", "other (folio_put, ...)", n["other"]
	}' "$txt"
}

while getopts ho:s: opt; do
	case "$opt" in
	h) usage 0 ;;
	o) OUT=$OPTARG ;;
	s) SECONDS_TO_RECORD=$OPTARG ;;
	*) usage 2 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage 2 >&2
RECIPE=$1
shift
if [ $# -gt 0 ]; then
	[ "$1" = -- ] || usage 2 >&2
	shift
	CMD=("$@")
fi
case "$SECONDS_TO_RECORD" in
''|*[!0-9]*) die 2 "-s takes a number of seconds" ;;
esac
case "$RECIPE" in
events|slab|stacks|all) ;;
*) die 2 "unknown recipe '$RECIPE' (events, slab, stacks, all)" ;;
esac

[ "$(id -u)" = 0 ] || die 4 "must be run as root"
command -v trace-cmd >/dev/null || die 4 "trace-cmd is not installed"
[ -d "$TRACEFS/events" ] || die 4 "tracefs is not mounted at $TRACEFS"
have_event page_ref:page_ref_mod_and_test ||
	die 4 "no page_ref events (kernel without CONFIG_DEBUG_PAGE_REF)"
mkdir -p "$OUT" || die 1 "cannot create $OUT"

case "$RECIPE" in
events) recipe_events ;;
slab) recipe_slab ;;
stacks) recipe_stacks ;;
all) recipe_events; recipe_slab; recipe_stacks ;;
esac
