#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tracing_scripts.sh - mm-frozen's tracing tools (tracing/) count exactly,
# and what they count is what the series claims: a slab page is freed
# without a refcount atomic, a __free_pages() page with exactly one.
#
# The workload is mm_frozen_test.ko's: 64 pages freed with
# __free_pages(), then 64 slab pages (a private cache, one 128 KiB object
# a slab: order 5, or 6 with KASAN's redzones, as a first run of the
# module says); the pages are of the order above the slabs'.  In that
# order half of the slabs reuse the pfns of those pages, and a ground
# truth that did not forget a pfn's atomic at its free would count their
# frees with an atomic (see PER_PFN).  No other cache of the guest has
# slabs of the slabs' order (checked first) and nothing else frees pages
# of the pages' order (another one would show in the hist count), so the
# rows of those orders hold the module's pages alone, whatever else the
# kernel frees meanwhile.  Each tool traces the workload (bpftrace -c, trace-cmd record
# CMD), and its rows are compared with two counts of the same pages that
# do not depend on it:
#   - the module's own list of the pages it freed (pfn and order), and
#   - hist triggers on the same events, counted by the kernel in a tracefs
#     instance while the workload runs: kmem:mm_page_free by order,
#     kmem:mm_page_free_frozen by caller and order, and the frees that
#     come right after an atomic brought their page to zero, by order.
# Equal, or "not ok".  An event that a tool or a hist trigger misses
# (another BPF program running on the CPU when an interrupt frees a page,
# a full buffer) would make the counts differ for no fault of the kernel's:
# each says what it lost, and a traced workload that lost events is run
# again, up to MAX_TRIES times in all.  A line is a SKIP only when every
# try lost events, and it says what each one lost.
#
# The claims do not adapt to the kernel: on the unpatched kernel the slab
# claim fails while its count stays exact (tests/expect-baseline.sh
# requires both); a tool that needs mm-frozen's tracepoint is skipped
# there.
#
# The tools are looked for in tracing/ next to this file (runner.sh copies
# them there), then in $MMF_ROOT/tracing (the repository).

DIR=$(dirname "$(readlink -f "$0")")
# shellcheck source=/dev/null
. "$DIR/../kselftest/ktap_helpers.sh"

TRACEFS=/sys/kernel/tracing
KNOB=/sys/kernel/debug/frozen_pages/slab_frozen
KNOB_STATS=/sys/kernel/debug/frozen_pages/stats
NO_TRACEPOINT="no kmem:mm_page_free_frozen: kernel without mm-frozen's tracepoint"
MODULE=mm_frozen_test
MODULE_DIR=/sys/kernel/debug/$MODULE
INSTANCE=$TRACEFS/instances/mm_frozen_tracing
NR_PAGES=64
# The module's slab objects are PAGE_SIZE << OBJECT_ORDER; SLAB_ORDER, the
# order of their slabs, and PAGES_ORDER, the next, are set once the
# module has made one (module_slab_order).
OBJECT_ORDER=5
SLAB_ORDER=
PAGES_ORDER=
NTESTS=13
MAX_TRIES=5
# The caller of free_frozen_pages() for slab pages, as the C tests read it.
SLAB_CALLER=$(grep -v '^#' "$DIR/slab-call-site")

SYNTH=mmf_zeroed_free

# The hist triggers, as "EVENT-DIR TRIGGER" (the filter last).  COUNTS
# count the workload: frees by order, frees by caller and order, and the
# frees whose page an atomic brought to zero just before, by order (the
# synthetic event $SYNTH).  They are created paused, and the workload
# resumes them around its writes only.
COUNTS=(
	"kmem/mm_page_free hist:keys=order"
	"kmem/mm_page_free_frozen hist:keys=call_site.sym,order"
	"synthetic/$SYNTH hist:keys=order"
)
# PER_PFN fire $SYNTH: page_ref_mod_and_test keeps a variable for each pfn
# it brings to zero, which the next mm_page_free of that pfn reads.  The
# kernel resets a variable only where an expression reads it: a plain
# reference ("z=$zeroed") left it set for every later free of the pfn, and
# a frozen slab page that reused the pfn counted as freed after an atomic.
# Read as "common_timestamp-$zeroed", it is forgotten at the pfn's free, as
# the tools forget their mark.  The tools also forget it at a refcount
# event that leaves the pfn a count; that cannot change a row checked
# here, for a page is freed before its pfn is allocated again, and each
# page of the workload is freed with an atomic just before, or frozen.
# A trigger with variables cannot be paused and resumed, and its map never
# forgets a pfn: the workload creates them when it starts, keeps their
# totals and removes them when it ends.
PER_PFN=(
	"page_ref/page_ref_mod_and_test hist:keys=pfn:zeroed=common_timestamp:size=16384 if ret == 1"
	"kmem/mm_page_free hist:keys=pfn:since_zero=common_timestamp-\$zeroed:size=16384:onmatch(page_ref.page_ref_mod_and_test).trace($SYNTH,pfn,order)"
)

TMP=
LOADED=
KNOB_SAVED=

cleanup() {
	remove_hists
	echo "!$SYNTH" >> "$TRACEFS/synthetic_events" 2>/dev/null
	[ -z "$KNOB_SAVED" ] || echo "$KNOB_SAVED" > "$KNOB"
	[ -z "$LOADED" ] || rmmod "$MODULE"
	[ -z "$TMP" ] || rm -rf "$TMP"
}

find_tools() {
	local d

	for d in "$DIR/tracing" "${MMF_ROOT:+$MMF_ROOT/tracing}"; do
		if [ -n "$d" ] && [ -f "$d/slab-free-atomics.bt" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

load_module() {
	[ -d "$MODULE_DIR" ] && return 0
	insmod "$DIR/mm_frozen_test/$MODULE.ko" || return 1
	LOADED=1
}

# module_slab_order: the order of the slab the module gets for one object
# of PAGE_SIZE << OBJECT_ORDER, as it listed the page it freed.
module_slab_order() {
	echo "1 $OBJECT_ORDER" > "$MODULE_DIR/slab_pages" &&
		awk 'NR == 1 { print $2 }' "$MODULE_DIR/slab_pages"
}

# Which caches, if any, have slabs of ORDER: none may, for the rows of
# that order to be the module's alone.
caches_of_order() {
	grep -l -x "$1" /sys/kernel/slab/*/order 2>/dev/null | xargs -r -n1 dirname |
		xargs -r -n1 basename | paste -s -d ' '
}

# ------------------------------------------------------------ hist triggers

hist_event_dir() { # hist_event_dir "EVENT-DIR TRIGGER"
	printf '%s/events/%s\n' "$INSTANCE" "${1%% *}"
}

# Whether this kernel has the event of a trigger ("EVENT-DIR TRIGGER").
hist_event_exists() {
	[ -d "$TRACEFS/events/${1%% *}" ]
}

hist_trigger() {
	printf '%s\n' "${1#* }"
}

# hist_command SPEC HOW: the trigger to create it ("create"), to pause or
# resume it ("pause", "continue": before its filter, as the kernel wants
# them), or to remove it ("remove": a "!" first).
hist_command() {
	local spec=$1 how=$2 trig filter=

	trig=$(hist_trigger "$spec")
	case "$trig" in *" if "*) filter=" if ${trig#* if }"; trig=${trig%% if *} ;; esac
	case "$how" in
	create) printf '%s%s\n' "$trig" "$filter" ;;
	remove) printf '!%s%s\n' "$trig" "$filter" ;;
	*) printf '%s:%s%s\n' "$trig" "$how" "$filter" ;;
	esac
}

# hist_lines HOW SPEC...: the shell lines that apply hist_command HOW to
# each trigger whose event this kernel has, in the order given; each
# stops the workload if the kernel refuses it.
hist_lines() {
	local how=$1 spec

	shift
	for spec in "$@"; do
		hist_event_exists "$spec" || continue
		printf "echo '%s' >> %s/trigger || exit 1\n" \
			"$(hist_command "$spec" "$how")" "$(hist_event_dir "$spec")"
	done
}

# The instance, with the COUNTS paused.
create_hists() {
	mkdir -p "$INSTANCE" && bash -c "$(hist_lines pause "${COUNTS[@]}")"
}

# Every trigger, the PER_PFN ones left by a workload that failed too; in
# reverse, for a trigger whose variable another reads goes last.
remove_hists() {
	local specs=("${COUNTS[@]}" "${PER_PFN[@]}") i

	[ -d "$INSTANCE" ] || return 0
	for ((i = ${#specs[@]} - 1; i >= 0; i--)); do
		hist_lines remove "${specs[i]}" | bash 2>/dev/null
	done
	rmdir "$INSTANCE"
}

# hist_read FILE [TRIGGER-ERE]: "KEY... COUNT" lines of the histograms of
# a hist file (of those whose "trigger info" matches TRIGGER-ERE), keys as
# the kernel prints them (a symbol for .sym, without its offset), and
# each one's Dropped total as a line "dropped N".
hist_read() {
	awk -v want="${2:-.}" '
	/^# trigger info: / { mine = (substr($0, 17) ~ want) }
	!mine { next }
	/^\{ .* \} hitcount: *[0-9]+$/ {
		line = $0
		sub(/^\{ /, "", line); sub(/ \} hitcount: */, " ", line)
		gsub(/[a-z_]+: +/, "", line); gsub(/\[[0-9a-f]+\] /, "", line)
		gsub(/\+0x[0-9a-f]+\/0x[0-9a-f]+/, "", line); gsub(/ *, */, " ", line)
		gsub(/  +/, " ", line)
		print line
	}
	/^ *Dropped: / { print "dropped", $2 }' "$1"
}

# ------------------------------------------------------------ the workload

# The workload script: the module's two runs, counted by the hist
# triggers.  The PER_PFN totals go to TMP/pfns.hist before they are
# removed, the last reader of a variable first.
write_workload() {
	local i

	{
		echo '#!/bin/sh'
		hist_lines create "${PER_PFN[@]}"
		hist_lines continue "${COUNTS[@]}"
		echo "echo $NR_PAGES $PAGES_ORDER > $MODULE_DIR/pages || exit 1"
		echo "echo $NR_PAGES $OBJECT_ORDER > $MODULE_DIR/slab_pages || exit 1"
		hist_lines pause "${COUNTS[@]}"
		echo "cat $INSTANCE/events/page_ref/page_ref_mod_and_test/hist" \
			"$INSTANCE/events/kmem/mm_page_free/hist > $TMP/pfns.hist"
		for ((i = ${#PER_PFN[@]} - 1; i >= 0; i--)); do
			hist_lines remove "${PER_PFN[i]}"
		done
	} > "$TMP/workload.sh"
}

# run_traced NAME TOOL-COMMAND...: the tool, tracing the workload, its
# output in TMP/NAME.out; the module's pages in TMP/slab_pages and
# TMP/pages; the counts of the hist triggers, fresh for each run, in
# TMP/NAME.hist.{free,frozen,zeroed,pfns}; the knob's stats, where the
# kernel has them, from before the tool started and after it ended, in
# TMP/NAME.stats.{before,after}.
run_traced() {
	local name=$1 status

	shift
	remove_hists
	create_hists || { ktap_print_msg "cannot create the hist triggers in $INSTANCE"; return 1; }
	save_stats "$TMP/$name.stats.before"
	"$@" > "$TMP/$name.out" 2>&1
	status=$?
	save_stats "$TMP/$name.stats.after"
	sed '/^[[:space:]]*$/d; /^+ /d; s/^/# /' "$TMP/$name.out"
	cp "$MODULE_DIR/slab_pages" "$TMP/slab_pages"
	cp "$MODULE_DIR/pages" "$TMP/pages"
	hist_read "$INSTANCE/events/kmem/mm_page_free/hist" '^hist:keys=order:' \
		> "$TMP/$name.hist.free"
	hist_read "$INSTANCE/events/synthetic/$SYNTH/hist" > "$TMP/$name.hist.zeroed"
	# only for their Dropped: the PER_PFN triggers, as the workload left them
	hist_read "$TMP/pfns.hist" > "$TMP/$name.hist.pfns"
	rm -f "$TMP/pfns.hist"
	if hist_event_exists "kmem/mm_page_free_frozen"; then
		hist_read "$INSTANCE/events/kmem/mm_page_free_frozen/hist" \
			> "$TMP/$name.hist.frozen"
	fi
	[ "$status" = 0 ] || ktap_print_msg "$* exited with status $status"
	return "$status"
}

# trace_exactly NAME TOOL-COMMAND...: run_traced until a try loses no
# event, MAX_TRIES times at most.  TRIES: the tries it took; LOSSES: what
# each try that lost events lost, "try N lost L by the tool, D by the hist
# triggers" joined by "; ".  A tool that failed is not tried again.
trace_exactly() {
	local name=$1 lost dropped

	TRIES=0 LOSSES=
	while ((TRIES < MAX_TRIES)); do
		TRIES=$((TRIES + 1))
		run_traced "$@" || return
		lost=$(lost "$name") dropped=$(dropped "$name")
		[ -n "$lost" ] || return 0
		[ "$lost" != 0 ] || [ "$dropped" != 0 ] || return 0
		LOSSES="${LOSSES:+$LOSSES; }try $TRIES lost $lost by the tool, $dropped by the hist triggers"
		ktap_print_msg "$name: try $TRIES of $MAX_TRIES lost events ($lost by the tool, $dropped by the hist triggers)"
	done
}

# tries: how the last trace_exactly got its counts, for a check's message.
tries() {
	if [ -z "$LOSSES" ]; then
		echo "try $TRIES of $MAX_TRIES"
	else
		echo "try $TRIES of $MAX_TRIES; $LOSSES"
	fi
}

save_stats() { # save_stats FILE
	[ ! -r "$KNOB_STATS" ] || cat "$KNOB_STATS" > "$1"
}

bpftrace_tool() { # bpftrace_tool SCRIPT
	bpftrace --unsafe -c "/bin/sh $TMP/workload.sh" "$T/$1"
}

trace_cmd_tool() { # trace_cmd_tool RECIPE
	"$T/trace-cmd-recipes.sh" -o "$TMP/trace-cmd" "$1" -- /bin/sh "$TMP/workload.sh"
}

# ------------------------------------------------------------ counts

# module_pages FILE ORDER: how many pages of that order the run listed.
module_pages() {
	awk -v o="$2" '$2 == o { n++ } END { print n + 0 }' "$TMP/$1"
}

# hist_count NAME WHICH KEY...: the count of KEY in a run's histogram.
hist_count() {
	local file="$TMP/$1.hist.$2"

	shift 2
	[ -f "$file" ] || { echo 0; return; }
	awk -v key="$*" '{ k = $0; sub(/ [0-9]+$/, "", k) }
		k == key { n = $NF } END { print n + 0 }' "$file"
}

# dropped NAME: what the run's hist triggers dropped, in all.
dropped() {
	cat "$TMP/$1".hist.* 2>/dev/null | awk '$1 == "dropped" { n += $2 } END { print n + 0 }'
}

# tool_count NAME KEY: a "frees[KEY]: N" row of a tool's output (bpftrace
# prints it with an "@"), 0 when the tool printed none.
tool_count() {
	awk -v key="frees[$2]:" '{ sub(/^@/, "") } $1 " " $2 == key || index($0, key) == 1 { n = $NF }
		END { print n + 0 }' "$TMP/$1.out"
}

# tool_atomics NAME: the frees with an atomic in all "frees[ORDER, 1]" rows.
tool_atomics() {
	awk '{ sub(/^@/, "") } /^frees\[[0-9]+, 1\]:/ { n += $NF } END { print n + 0 }' "$TMP/$1.out"
}

# stat_value NAME WHEN STAT: STAT of the knob's stats before or after the
# tool of a run.
stat_value() {
	awk -v stat="$3" '$1 == stat { print $2 }' "$TMP/$1.stats.$2"
}

# lost NAME: the events the tool says it lost, "" if it did not say.
lost() {
	sed -n 's/^lost[^:]*: \([0-9][0-9]*\)$/\1/p' "$TMP/$1.out" | tail -n 1
}

# ------------------------------------------------------------ checks

# skip_because DESC REASON: a SKIP with its reason after the directive,
# so that the test keeps the name it has when it runs.
skip_because() {
	__ktap_test ok "$1" "SKIP $2"
	KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
}

# exact_line FREES LISTED HIST ZEROED DESC: the "counts exactly" line of a
# tool: its FREES of the module's order, the module's LISTED pages and the
# HIST's frees all NR_PAGES, and its frees with an atomic (WITH_ATOMIC)
# the ZEROED frees the hist saw right after an atomic to zero.  A skip
# when the tool or the hist triggers lost events (LOST, DROPPED) on every
# try.  The description stays the same whatever the tries, for a test's
# name to be the same in every run: they are in the message before it.
exact_line() {
	local desc=$5

	if [ -z "$LOST" ]; then
		ktap_test_fail "$desc (the tool did not report its losses)"
	elif [ "$LOST" != 0 ] || [ "$DROPPED" != 0 ]; then
		skip_because "$desc" "events lost on each of $TRIES tries: $LOSSES"
	elif [ "$1" = "$NR_PAGES" ] && [ "$2" = "$NR_PAGES" ] &&
		[ "$3" = "$NR_PAGES" ] && [ "$WITH_ATOMIC" = "$4" ]; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
}

# slab_rows_desc TOOL: the name of check_slab_rows's line for TOOL.
slab_rows_desc() {
	echo "$1 counts exactly: order-$SLAB_ORDER slab frees = module pages = hist mm_page_free, with an atomic = hist"
}

# path_rows_desc TOOL CALLER ORDER: the name of check_path_rows's line.
path_rows_desc() {
	echo "$1 counts exactly: $2 order-$3 frees = module pages = hist mm_page_free_frozen, with an atomic = hist"
}

# check_slab_rows NAME TOOL: the SLAB_ORDER rows of a tool that counts slab
# frees by [order, atomics]; sets WITH_ATOMIC for the claims.
check_slab_rows() {
	local name=$1 tool=$2 frees listed hist zeroed

	WITH_ATOMIC=$(tool_count "$name" "$SLAB_ORDER, 1")
	frees=$(($(tool_count "$name" "$SLAB_ORDER, 0") + WITH_ATOMIC))
	listed=$(module_pages slab_pages "$SLAB_ORDER")
	hist=$(hist_count "$name" free "$SLAB_ORDER")
	zeroed=$(hist_count "$name" zeroed "$SLAB_ORDER")
	LOST=$(lost "$name") DROPPED=$(dropped "$name")
	ktap_print_msg "$tool: $frees order-$SLAB_ORDER slab page frees, $WITH_ATOMIC with an atomic; module: $listed pages freed; hist: $hist order-$SLAB_ORDER frees, $zeroed of them just after an atomic to zero ($(tries))"
	exact_line "$frees" "$listed" "$hist" "$zeroed" "$(slab_rows_desc "$tool")"
}

# check_path_rows NAME TOOL CALLER FILE ORDER: the rows of a tool that
# counts frees by [caller, order, atomics], for the module's pages in
# FILE; sets WITH_ATOMIC for the claims.
check_path_rows() {
	local name=$1 tool=$2 caller=$3 file=$4 order=$5 frees listed hist zeroed

	WITH_ATOMIC=$(tool_count "$name" "$caller, $order, 1")
	frees=$(($(tool_count "$name" "$caller, $order, 0") + WITH_ATOMIC))
	listed=$(module_pages "$file" "$order")
	hist=$(hist_count "$name" frozen "$caller" "$order")
	zeroed=$(hist_count "$name" zeroed "$order")
	LOST=$(lost "$name") DROPPED=$(dropped "$name")
	ktap_print_msg "$tool: $frees order-$order frees from $caller, $WITH_ATOMIC with an atomic; module: $listed pages freed; hist: $hist order-$order mm_page_free_frozen from $caller, $zeroed order-$order frees just after an atomic to zero ($(tries))"
	exact_line "$frees" "$listed" "$hist" "$zeroed" "$(path_rows_desc "$tool" "$caller" "$order")"
}

# check_refcounted_frees NAME TOOL: a slab frozen by its allocation is
# freed without an atomic whatever the knob says now; so with
# slab_frozen=1 the slab frees with an atomic, of any order, must be slabs
# allocated refcounted before (by the knob tests, and under KASAN freed
# late from its quarantine).  The knob's stats count those as
# slabs_freed_refcounted; read before the tool started and after it
# ended, they count over a window that holds the tool's, so they are at
# least the tool's.
check_refcounted_frees() {
	local name=$1 tool=$2 atomics freed live desc

	desc="$tool: each slab free with an atomic is a slab allocated refcounted"
	if [ ! -f "$TMP/$name.stats.before" ]; then
		skip_because "$desc" "no $KNOB_STATS"
		return
	fi
	atomics=$(tool_atomics "$name")
	freed=$(($(stat_value "$name" after slabs_freed_refcounted) -
		 $(stat_value "$name" before slabs_freed_refcounted)))
	live=$(($(stat_value "$name" before slabs_allocated_refcounted) -
		$(stat_value "$name" before slabs_freed_refcounted)))
	ktap_print_msg "$tool: $atomics slab frees with an atomic, of any order; stats: $freed slabs freed refcounted meanwhile, of $live allocated refcounted and live when the tool started"
	ktap_test_result "$desc" [ "$atomics" -le "$freed" ]
}

# skip_lines REASON DESC...: the test lines DESC... cannot run, each a
# SKIP for REASON under the name it has when it runs.
skip_lines() {
	local desc

	for desc in "${@:2}"; do
		skip_because "$desc" "$1"
	done
}

# claim EXPECTED DESC: the claim line, from the last check's WITH_ATOMIC.
claim() {
	ktap_print_msg "$2: $WITH_ATOMIC of $NR_PAGES with a refcount atomic, $1 expected"
	ktap_test_result "$2" [ "$WITH_ATOMIC" = "$1" ]
}

test_slab_free_atomics() {
	local what="slab-free-atomics.bt"
	local knob0="$what: with slab_frozen=0 each slab page free takes the atomic again"

	trace_exactly slab-bt bpftrace_tool slab-free-atomics.bt
	check_slab_rows slab-bt "$what"
	claim 0 "$what: slab pages are freed without a refcount atomic"
	check_refcounted_frees slab-bt "$what"
	if [ ! -w "$KNOB" ]; then
		skip_lines "no $KNOB" "$(slab_rows_desc "$what, slab_frozen=0,")" "$knob0"
		return
	fi
	echo 0 > "$KNOB"
	trace_exactly slab-bt-knob0 bpftrace_tool slab-free-atomics.bt
	echo 1 > "$KNOB"
	check_slab_rows slab-bt-knob0 "$what, slab_frozen=0,"
	claim "$NR_PAGES" "$knob0"
}

test_free_atomics() {
	local what=free-atomics.bt
	local pages="$what: __free_pages() frees each page with one refcount atomic"
	local slab="$what: slab pages reach free_frozen_pages() from $SLAB_CALLER without an atomic"

	if [ ! -d "$TRACEFS/events/kmem/mm_page_free_frozen" ]; then
		skip_lines "$NO_TRACEPOINT" \
			"$(path_rows_desc "$what" __free_pages "$PAGES_ORDER")" "$pages" \
			"$(path_rows_desc "$what" "$SLAB_CALLER" "$SLAB_ORDER")" "$slab"
		return
	fi
	trace_exactly free-bt bpftrace_tool free-atomics.bt
	check_path_rows free-bt "$what" __free_pages pages "$PAGES_ORDER"
	claim "$NR_PAGES" "$pages"
	check_path_rows free-bt "$what" "$SLAB_CALLER" slab_pages "$SLAB_ORDER"
	claim 0 "$slab"
}

test_trace_cmd() {
	local what="trace-cmd-recipes.sh frees" why='' slab_claim
	local -a frees

	frees=("$(path_rows_desc "$what" __free_pages "$PAGES_ORDER")"
	       "$(path_rows_desc "$what" "$SLAB_CALLER" "$SLAB_ORDER")")
	command -v trace-cmd > /dev/null || why="no trace-cmd"
	if [ -n "$why" ]; then
		skip_lines "$why" "${frees[@]}"
	elif [ ! -d "$TRACEFS/events/kmem/mm_page_free_frozen" ]; then
		skip_lines "$NO_TRACEPOINT" "${frees[@]}"
	else
		trace_exactly frees-tc trace_cmd_tool frees
		check_path_rows frees-tc "$what" __free_pages pages "$PAGES_ORDER"
		check_path_rows frees-tc "$what" "$SLAB_CALLER" slab_pages "$SLAB_ORDER"
	fi

	what="trace-cmd-recipes.sh slab"
	slab_claim="$what: slab pages are freed without a refcount atomic"
	# Turning the function graph tracer on patches every traced call
	# site through int3; under TCG a CPU then sometimes runs into an int3
	# that is no longer there to be handled ("Oops: int3" in a timer
	# softirq).  The unpatched kernel does it as well, on the first try:
	# QEMU's, not the series'.
	[ "${MMF_ACCEL:-}" != tcg ] || why=${why:-"function_graph under TCG: int3 Oops on the unpatched kernel too"}
	if [ -n "$why" ]; then
		skip_lines "$why" "$(slab_rows_desc "$what")" "$slab_claim"
		return
	fi
	trace_exactly slab-tc trace_cmd_tool slab
	check_slab_rows slab-tc "$what"
	claim 0 "$slab_claim"
}

# Why the tests cannot run here, if they cannot.
cannot_run() {
	if [ "$(id -u)" != 0 ]; then
		echo "must be run as root (bpftrace, tracefs, the test module)"
	elif ! command -v bpftrace > /dev/null; then
		echo "bpftrace is not installed"
	elif [ ! -d "$TRACEFS/events/page_ref" ]; then
		echo "no page_ref events in $TRACEFS (CONFIG_DEBUG_PAGE_REF, tracefs)"
	elif [ ! -e "$TRACEFS/events/kmem/mm_page_free/hist" ]; then
		echo "no hist triggers (CONFIG_HIST_TRIGGERS)"
	elif ! find_tools > /dev/null; then
		echo "tracing tools not found in $DIR/tracing nor \$MMF_ROOT/tracing"
	else
		return 1
	fi
}

skip_all() {
	ktap_skip_all "$1"
	exit "$KSFT_SKIP"
}

ktap_print_header
trap cleanup EXIT
if why=$(cannot_run); then
	skip_all "$why"
fi
load_module || skip_all "cannot load $DIR/mm_frozen_test/$MODULE.ko"
SLAB_ORDER=$(module_slab_order)
[ -n "$SLAB_ORDER" ] ||
	ktap_exit_fail_msg "the test module made no slab of $((4 << OBJECT_ORDER)) KiB objects"
PAGES_ORDER=$((SLAB_ORDER + 1))
others=$(caches_of_order "$SLAB_ORDER")
[ -z "$others" ] || skip_all "caches with order-$SLAB_ORDER slabs: $others"
echo "!$SYNTH" >> "$TRACEFS/synthetic_events" 2>/dev/null
echo "$SYNTH unsigned long pfn; unsigned int order" >> "$TRACEFS/synthetic_events" ||
	skip_all "cannot create the synthetic event $SYNTH"
T=$(find_tools)
TMP=$(mktemp -d /tmp/tracing_scripts.XXXXXX)
ktap_set_plan "$NTESTS"
ktap_print_msg "tools: $T"
if [ -w "$KNOB" ]; then
	KNOB_SAVED=$(cat "$KNOB")
	echo 1 > "$KNOB"
fi
write_workload
test_slab_free_atomics
test_free_atomics
test_trace_cmd
ktap_finished
