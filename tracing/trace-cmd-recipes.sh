#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trace-cmd-recipes.sh - the questions of free-atomics.bt and
# slab-free-atomics.bt answered with trace-cmd, from the same events.
# Every trace-cmd command is printed ("+ ...") before it runs, so that it
# can be copied and varied by hand; the .dat and report files stay in the
# output directory for trace-cmd report or kernelshark.
#
# USAGE: trace-cmd-recipes.sh [-h] [-o DIR] RECIPE -- CMD...
#
#   RECIPE   frees or slab (see below)
#   -o DIR   where the .dat and report files go (default /tmp/mm-frozen-trace)
#   CMD      what to trace: the recording lasts as long as CMD runs
#
# frees    page frees by [caller of free_frozen_pages, order, refcount
#          atomics at the free], as free-atomics.bt counts them:
#            trace-cmd record -C global -b 16384 -e kmem:mm_page_free \
#              -e kmem:mm_page_free_frozen -e page_ref CMD
#            trace-cmd report
#          A page_ref atomic that leaves a pfn's count at zero (ret=1 of
#          page_ref_mod_and_test) marks the pfn; mm_page_free_frozen gives
#          its caller; mm_page_free counts the free.  free_unref_folios:
#          a folio batch freed by free_unref_folios(), which does not call
#          free_frozen_pages().  Needs mm-frozen's tracepoint patch.
#
# slab     slab page frees by [order, atomics], as slab-free-atomics.bt
#          counts them, from inside __free_slab() with the function graph
#          tracer, on any kernel:
#            trace-cmd record -C global -b 16384 -p function_graph \
#              -g __free_slab -e kmem:mm_page_free -e page_ref CMD
#          Frozen (the series, slab_frozen=1): free_frozen_pages() is called
#          directly and no page_ref event appears inside.  Refcounted (the
#          unpatched kernel, slab_frozen=0): __free_pages() {
#          page_ref_mod_and_test ... ret=1 } inside.  Under QEMU's TCG,
#          turning the graph tracer on can end in "Oops: int3" (a CPU
#          runs into a call site being patched), on the unpatched kernel
#          as well: use this recipe under KVM or on hardware.
#
# Both report the events the ring buffer dropped (trace-cmd report marks
# them "[LOST N EVENTS]"); counts taken with losses say so.
#
# Examples, as root in the guest:
#
#   # ./trace-cmd-recipes.sh frees -- ./churn.sh -r 1 slab pages
#   # ./trace-cmd-recipes.sh slab -- ./churn.sh -r 1 slab
#
# Exit status: 0 recorded and counted, 1 trace-cmd failed, 2 usage,
# 4 cannot run here (not root, no trace-cmd, no tracefs or events).
#
# Copyright 2026 The mm-frozen authors.
# Licensed under the GNU General Public License, version 2.

set -u

TRACEFS=/sys/kernel/tracing
OUT=/tmp/mm-frozen-trace
CMD=()
# 16 MiB a CPU: a few seconds of page_ref events under load
RECORD=(trace-cmd record -q -C global -b 16384)

usage() {
	sed -n '/^# USAGE/,/^#   CMD/s/^# \{0,1\}//p' "$0"
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

# record_and_report NAME TRACE-CMD-OPTIONS...: NAME.dat and NAME.txt in OUT.
record_and_report() {
	local name=$1

	shift
	run "${RECORD[@]}" -o "$OUT/$name.dat" "$@" "${CMD[@]}" ||
		die 1 "trace-cmd record failed"
	run trace-cmd report -l -i "$OUT/$name.dat" > "$OUT/$name.txt" ||
		die 1 "trace-cmd report failed"
	echo "report: $OUT/$name.txt ($(wc -l < "$OUT/$name.txt") lines)"
}

# The awk functions both recipes share: a report line's event; its CPU and
# context ("report -l" prints the CPU and the latency flags as one word,
# "0.N.s.", whose third flag tells softirq, hardirq and nmi from task);
# one of its fields; the zeroed state of its pfn.
# shellcheck disable=SC2016 # an awk program: $0 is awk's
AWK_COMMON='
function event(   j) {
	for (j = 2; j < NF; j++)
		if ($j ~ /^[0-9]+\.[0-9]+:$/) {
			cpu = $(j - 1)
			sub(/[^0-9].*/, "", cpu)
			ctx = cpu substr($(j - 1), length(cpu) + 3, 1)
			return substr($(j + 1), 1, length($(j + 1)) - 1)
		}
	return ""
}
function field(name) {
	if (!match($0, " " name "=[^ ]+"))
		return ""
	return substr($0, RSTART + length(name) + 2, RLENGTH - length(name) - 2)
}
# An atomic that leaves the count at zero marks the pfn; anything else
# that leaves it above zero clears the mark.
function track_zeroed(ev) {
	if (ev ~ /^page_ref_(mod_and_test|freeze)$/ && field("ret") == 1)
		zeroed[field("pfn")] = 1
	else if (ev == "page_ref_mod_and_return" && field("ret") == 0)
		zeroed[field("pfn")] = 1
	else if (ev ~ /^page_ref_/ && field("count") != 0)
		delete zeroed[field("pfn")]
}
/\[LOST [0-9]+ EVENTS\]/ { match($0, /LOST [0-9]+/); lost += substr($0, RSTART + 5, RLENGTH - 5) }
END {
	printf "lost events: %d\n\n%s\n", lost, title
	for (k in frees)
		printf "frees[%s]: %d\n", k, frees[k] | "sort"
	close("sort")
}'

recipe_frees() {
	have_event kmem:mm_page_free_frozen ||
		die 4 "no kmem:mm_page_free_frozen (kernel without mm-frozen's tracepoint patch)"
	record_and_report frees -e kmem:mm_page_free -e kmem:mm_page_free_frozen \
		-e page_ref
	awk -v title='Page frees by [caller of free_frozen_pages, order, atomics at the free]:' \
		"$AWK_COMMON"'
	{
		ev = event()
		track_zeroed(ev)
		if (ev == "mm_page_free_frozen") {
			caller[field("pfn")] = field("call_site")
			sub(/\+.*/, "", caller[field("pfn")])
		} else if (ev == "mm_page_free") {
			pfn = field("pfn")
			frees[(pfn in caller ? caller[pfn] : "free_unref_folios") ", " field("order") ", " (zeroed[pfn] + 0)]++
			delete caller[pfn]
			delete zeroed[pfn]
		}
	}' "$OUT/frees.txt"
}

# Per CPU and context, the depth inside the outermost "__free_slab() {":
# a page freed there is a slab page, and an interrupt taken inside it is
# another context.  Under the graph tracer mm_page_free_frozen's call_site
# reads return_to_handler: "frees" tells the callers apart.
recipe_slab() {
	grep -qx __free_slab "$TRACEFS/available_filter_functions" ||
		die 4 "__free_slab is not traceable in this kernel (inlined?)"
	record_and_report slab -p function_graph -g __free_slab \
		-e kmem:mm_page_free -e page_ref
	awk -v title='Slab page frees by [order, refcount atomics at the free]:' \
		"$AWK_COMMON"'
	{
		ev = event()
		if (ev == "funcgraph_entry") {
			if (depth[ctx] || $0 ~ /__free_slab\(\) \{/)
				depth[ctx] += ($0 ~ /\{[ ]*$/)
		} else if (ev == "funcgraph_exit") {
			if (depth[ctx])
				depth[ctx]--
		} else if (depth[ctx]) {
			track_zeroed(ev)
			if (ev == "mm_page_free") {
				pfn = field("pfn")
				frees[field("order") ", " (zeroed[pfn] + 0)]++
				delete zeroed[pfn]
			}
		}
	}' "$OUT/slab.txt"
}

while getopts ho: opt; do
	case "$opt" in
	h) usage 0 ;;
	o) OUT=$OPTARG ;;
	*) usage 2 >&2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -lt 3 ] || [ "$2" != -- ]; then
	usage 2 >&2
fi
RECIPE=$1
CMD=("${@:3}")
case "$RECIPE" in
frees|slab) ;;
*) die 2 "unknown recipe '$RECIPE' (frees, slab)" ;;
esac

[ "$(id -u)" = 0 ] || die 4 "must be run as root"
command -v trace-cmd >/dev/null || die 4 "trace-cmd is not installed"
[ -d "$TRACEFS/events" ] || die 4 "tracefs is not mounted at $TRACEFS"
have_event page_ref:page_ref_mod_and_test ||
	die 4 "no page_ref events (kernel without CONFIG_DEBUG_PAGE_REF)"
mkdir -p "$OUT" || die 1 "cannot create $OUT"

"recipe_$RECIPE"
