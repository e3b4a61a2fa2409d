#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tracing_scripts.sh - runs each of mm-frozen's tracing scripts (tracing/:
# refcount-paths.bt, frozen-frees.bt, atomics-per-slab-free.sh,
# trace-cmd-recipes.sh) once, with a short interval, while churn.sh makes
# the kernel free slab pages, __free_pages() pages and folios, and checks
# the numbers they print against what this kernel must show:
#
#   __free_pages()  about 1 refcount atomic per free, on every kernel;
#   folio freeing   at least 1 atomic per free;
#   slab            about 0 atomics per slab page free when slab pages are
#                   frozen (the series; slab_frozen=1), about 1 when they are
#                   refcounted (the baseline; slab_frozen=0).
#
# Which of the two the slab path must show is read from the kernel: the
# debugfs knob /sys/kernel/debug/frozen_pages/slab_frozen when it exists,
# else whether free_frozen_pages is in /proc/kallsyms.  A script that
# breaks, or prints numbers that do not fit, makes its test line "not ok".
# Checks that need the kmem:mm_page_free_frozen tracepoint, the knob or
# trace-cmd are skipped, with the reason, when these are absent.
#
# The scripts are looked for in tracing/ next to this file (runner.sh
# copies them there), then in $MMF_ROOT/tracing (the repository).
#
# Environment (optional):
#   MMF_ROOT   the mm-frozen repository

DIR=$(dirname "$(readlink -f "$0")")
# shellcheck source=/dev/null
. "$DIR/../kselftest/ktap_helpers.sh"

TRACEFS=/sys/kernel/tracing
KNOB=/sys/kernel/debug/frozen_pages/slab_frozen
FROZEN_EVENT=$TRACEFS/events/kmem/mm_page_free_frozen
INTERVAL=10		# seconds each bpftrace script traces
RUN_TIMEOUT=600		# seconds before a script is given up (TCG is slow)
NTESTS=12
# Atomics per 1000 frees.  "About 1 per free": tracepoint hits get lost
# under load, in streaks, never added (seen in the TCG guest: 851..1000 for
# __free_pages, 966..1000 for refcounted slabs), so the band is wide below;
# it still tells 1 from 0 and from 2 or more.  "About 0": slabs allocated
# under the other slab_frozen setting and freed while measuring add a few
# (seen: 0..22).
ONE_LOW=700
ONE_HIGH=1100
ZERO_HIGH=100

TMP=
CHURN_PID=
declare -A RP		# refcount-paths.bt rows: RP[path]="frees atomics"

find_scripts() {
	local d

	for d in "$DIR/tracing" "${MMF_ROOT:+$MMF_ROOT/tracing}"; do
		if [ -n "$d" ] && [ -f "$d/refcount-paths.bt" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

cleanup() {
	stop_churn
	[ -z "$TMP" ] || rm -rf "$TMP"
}

# Background load for the interval-driven scripts, until stop_churn.
start_churn() {
	"$T/churn.sh" -q -r 100000 -n 500 all > "$TMP/churn.log" 2>&1 &
	CHURN_PID=$!
}

stop_churn() {
	[ -n "$CHURN_PID" ] || return 0
	kill "$CHURN_PID" 2>/dev/null
	wait "$CHURN_PID" 2>/dev/null
	CHURN_PID=
}

# diag FILE: a script's output as KTAP diagnostic lines, spacing kept,
# without the empty lines bpftrace prints for the maps its END cleared.
diag() {
	sed '/^[[:space:]]*$/d; s/^/# /' "$1"
}

# in_range VALUE LOW HIGH
in_range() {
	[ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}

# per_mille ATOMICS FREES: atomics per 1000 frees, rounded; empty if no frees.
per_mille() {
	[ "${2:-0}" -gt 0 ] || return 0
	echo $((($1 * 1000 + $2 / 2) / $2))
}

# The slab path must show "frozen" (no atomic) or "refcounted".
expected_slab_mode() {
	local v

	if [ -r "$KNOB" ]; then
		v=$(cat "$KNOB")
		if [ "$v" = 1 ]; then
			SLAB_MODE=frozen
		else
			SLAB_MODE=refcounted
		fi
		SLAB_MODE_WHY="slab_frozen=$v"
	elif awk '$3 == "free_frozen_pages" { found = 1 } END { exit !found }' /proc/kallsyms; then
		SLAB_MODE=frozen
		SLAB_MODE_WHY="free_frozen_pages in kallsyms, no slab_frozen knob"
	else
		SLAB_MODE=refcounted
		SLAB_MODE_WHY="no free_frozen_pages in kallsyms"
	fi
}

# slab_per_mille_ok PER_MILLE: fits the slab mode.
slab_per_mille_ok() {
	if [ "$SLAB_MODE" = frozen ]; then
		in_range "$1" 0 "$ZERO_HIGH"
	else
		in_range "$1" "$ONE_LOW" "$ONE_HIGH"
	fi
}

# run_bt OUT SCRIPT ARGS...: bpftrace on a script, output to OUT.
run_bt() {
	local out=$1

	shift
	timeout -s INT "$RUN_TIMEOUT" bpftrace "$@" > "$out" 2>&1
}

# row NAME: "frees atomics ratio_per_mille" of a refcount-paths.bt row.
rp_row() {
	awk -v name="$1" '
	$1 == name && NF == 4 && $2 ~ /^[0-9]+$/ && $3 ~ /^-?[0-9]+$/ {
		r = $4
		if (r ~ /^[0-9]+\.[0-9][0-9][0-9]$/) { sub(/\./, "", r); r = r + 0 }
		else if (r != "-") r = "bad"
		print $2, $3, r
	}' "$TMP/refcount-paths.out"
}

test_refcount_paths() {
	local status name frees atomics ratio pm ok=1

	ktap_print_msg "refcount-paths.bt $INTERVAL with churn.sh all running"
	start_churn
	run_bt "$TMP/refcount-paths.out" "$T/refcount-paths.bt" "$INTERVAL"
	status=$?
	stop_churn
	diag "$TMP/refcount-paths.out"
	for name in slab __free_pages folio other; do
		read -r frees atomics ratio <<< "$(rp_row "$name")"
		if [ -z "$frees" ]; then
			ktap_print_msg "no well-formed '$name' row"
			ok=
			continue
		fi
		# the printed ratio must be atomics/frees (truncated to 0.001)
		if [ "$name" != other ] && [ "$frees" -gt 0 ]; then
			pm=$((atomics * 1000 / frees))
			if [ "$ratio" != "$pm" ]; then
				ktap_print_msg "$name: printed ratio $ratio/1000, computed $pm/1000"
				ok=
			fi
		fi
		RP[$name]="$frees $atomics"
	done
	if [ "$status" != 0 ]; then
		ktap_print_msg "refcount-paths.bt exited with status $status"
		ok=
	fi
	if [ -n "$ok" ]; then
		ktap_test_pass "refcount-paths.bt runs and prints a consistent table"
	else
		ktap_test_fail "refcount-paths.bt runs and prints a consistent table"
	fi

	# RP values are "frees atomics": split on purpose
	# shellcheck disable=SC2086
	check_path "__free_pages" 50 "$ONE_LOW" "$ONE_HIGH" ${RP[__free_pages]:-}
	if [ "$SLAB_MODE" = frozen ]; then
		# shellcheck disable=SC2086
		check_path "slab ($SLAB_MODE)" 20 0 "$ZERO_HIGH" ${RP[slab]:-}
	else
		# shellcheck disable=SC2086
		check_path "slab ($SLAB_MODE)" 20 "$ONE_LOW" "$ONE_HIGH" ${RP[slab]:-}
	fi
	# shellcheck disable=SC2086
	check_path "folio" 50 "$ONE_LOW" 1000000 ${RP[folio]:-}
}

# check_path NAME MIN_FREES LOW HIGH FREES ATOMICS: one test line.
check_path() {
	local name=$1 min=$2 low=$3 high=$4 frees=${5:-} atomics=${6:-} pm
	local desc="refcount-paths.bt: $name path, atomics per 1000 frees in $low..$high"

	if [ -z "$frees" ]; then
		ktap_test_fail "$desc (no row)"
		return
	fi
	pm=$(per_mille "$atomics" "$frees")
	ktap_print_msg "$name: $frees frees, $atomics atomics, ${pm:--} per 1000 frees (at least $min frees wanted)"
	if [ "$frees" -ge "$min" ] && in_range "$pm" "$low" "$high"; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
}

test_frozen_frees() {
	local desc="frozen-frees.bt: frozen frees counted, by call site" status
	local total sites slab fp ok=1

	if [ ! -d "$FROZEN_EVENT" ]; then
		ktap_test_skip "$desc (no kmem:mm_page_free_frozen tracepoint in this kernel)"
		return
	fi
	ktap_print_msg "frozen-frees.bt $INTERVAL with churn.sh all running"
	start_churn
	run_bt "$TMP/frozen-frees.out" "$T/frozen-frees.bt" "$INTERVAL"
	status=$?
	stop_churn
	diag "$TMP/frozen-frees.out"
	total=$(sed -n 's/^frozen frees: \([0-9]*\), base pages: [0-9]*$/\1/p' "$TMP/frozen-frees.out")
	# "@frees[SITE, ORDER]: COUNT" lines: sum, slab sites, __free_pages
	read -r sites slab fp <<< "$(awk '
		/^@frees\[.*, [0-9]+\]: [0-9]+$/ {
			n = $NF; all += n
			if ($0 ~ /^@frees\[[^,]*slab/) slab += n
			if ($0 ~ /^@frees\[__free_pages,/) fp += n
		}
		END { print all + 0, slab + 0, fp + 0 }' "$TMP/frozen-frees.out")"
	ktap_print_msg "total $total, per-site sum $sites, slab call sites $slab, __free_pages $fp (slab pages $SLAB_MODE)"
	[ "$status" = 0 ] || { ktap_print_msg "frozen-frees.bt exited with status $status"; ok=; }
	[ -n "$total" ] && [ "$total" -gt 0 ] && [ "$total" = "$sites" ] || ok=
	[ "$fp" -gt 0 ] || ok=
	if [ "$SLAB_MODE" = frozen ]; then
		[ "$slab" -gt 0 ] || ok=
	fi
	if [ -n "$ok" ]; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
}

# as_row LABEL: "frees atomics per1000 stats_frozen stats_refcounted" of an
# atomics-per-slab-free.sh row.
as_row() {
	awk -v label="$1" '$1 == label && NF == 6 && $2 ~ /^[0-9]+$/ { print $2, $3, $4, $5, $6 }' \
		"$TMP/atomics.out"
}

# near A B: |A - B| is at most 10% of B, or 5.
near() {
	local d=$(($1 - $2)) slack=$(($2 / 10))

	[ "$slack" -ge 5 ] || slack=5
	[ "${d#-}" -le "$slack" ]
}

# check_as_row LABEL LOW HIGH: one test line.  With the knob's stats file,
# the kernel's own counts must agree: slab page frees with free_frozen +
# free_refcounted, atomics with free_refcounted (one each).
check_as_row() {
	local label=$1 low=$2 high=$3 frees atomics pm sf sr ok=1
	local desc="atomics-per-slab-free.sh: $label, $low..$high atomics per 1000 slab page frees"

	read -r frees atomics pm sf sr <<< "$(as_row "$label")"
	if [ -z "$frees" ]; then
		ktap_print_msg "no '$label' row"
		ktap_test_fail "$desc"
		return
	fi
	if [ "$sf$sr" = -- ]; then
		ktap_print_msg "$label: $frees slab page frees, $atomics atomics, $pm per 1000 (no stats file)"
	else
		ktap_print_msg "$label: $frees slab page frees, $atomics atomics, $pm per 1000; stats: free_frozen +$sf, free_refcounted +$sr"
	fi
	[ "$AS_STATUS" = 0 ] && [ "$frees" -ge 50 ] && in_range "$pm" "$low" "$high" &&
		[ "$pm" = "$(per_mille "$atomics" "$frees")" ] || ok=
	if [ "$sf$sr" != -- ]; then
		if ! near "$frees" $((sf + sr)) || ! near "$atomics" "$sr"; then
			ktap_print_msg "$label: the script's counts do not match the stats file"
			ok=
		fi
	fi
	if [ -n "$ok" ]; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
}

test_atomics_per_slab_free() {
	local before after

	ktap_print_msg "atomics-per-slab-free.sh -r 2 -n 1000"
	[ ! -r "$KNOB" ] || before=$(cat "$KNOB")
	timeout -s TERM "$RUN_TIMEOUT" "$T/atomics-per-slab-free.sh" -r 2 -n 1000 \
		> "$TMP/atomics.out" 2>&1
	AS_STATUS=$?
	[ ! -r "$KNOB" ] || after=$(cat "$KNOB")
	diag "$TMP/atomics.out"
	[ "$AS_STATUS" = 0 ] || ktap_print_msg "atomics-per-slab-free.sh exited with status $AS_STATUS"

	if [ -r "$KNOB" ]; then
		check_as_row slab_frozen=1 0 "$ZERO_HIGH"
		check_as_row slab_frozen=0 "$ONE_LOW" "$ONE_HIGH"
		ktap_test_skip "atomics-per-slab-free.sh: kernel as built (the knob is there)"
		ktap_print_msg "slab_frozen before $before, after $after"
		if [ "$before" = "$after" ]; then
			ktap_test_pass "atomics-per-slab-free.sh restores slab_frozen"
		else
			ktap_test_fail "atomics-per-slab-free.sh restores slab_frozen"
		fi
	else
		ktap_test_skip "atomics-per-slab-free.sh: slab_frozen=1 (no $KNOB)"
		ktap_test_skip "atomics-per-slab-free.sh: slab_frozen=0 (no $KNOB)"
		if [ "$SLAB_MODE" = frozen ]; then
			check_as_row built-in 0 "$ZERO_HIGH"
		else
			check_as_row built-in "$ONE_LOW" "$ONE_HIGH"
		fi
		ktap_test_skip "atomics-per-slab-free.sh restores slab_frozen (no $KNOB)"
	fi
}

# tc_field FILE REGEX: the number after the summary label REGEX.
tc_field() {
	sed -n "s/^  $2 *\([0-9-]*\)\$/\1/p" "$1" | head -n 1
}

test_trace_cmd() {
	local out=$TMP/trace-cmd frees atomics calls pm expected slab fp n ok

	if ! command -v trace-cmd >/dev/null; then
		ktap_test_skip "trace-cmd-recipes.sh events (no trace-cmd)"
		ktap_test_skip "trace-cmd-recipes.sh slab (no trace-cmd)"
		ktap_test_skip "trace-cmd-recipes.sh stacks (no trace-cmd)"
		return
	fi
	mkdir -p "$out"

	ok=1
	ktap_print_msg "trace-cmd-recipes.sh events -- churn.sh -r 1 -n 300 slab pages"
	timeout "$RUN_TIMEOUT" "$T/trace-cmd-recipes.sh" -o "$out" events -- \
		"$T/churn.sh" -q -r 1 -n 300 slab pages > "$out/events.log" 2>&1 || ok=
	grep -v '^+ ' "$out/events.log" | diag /dev/stdin
	for ev in page_ref_mod_and_test mm_page_free; do
		n=$(tc_field "$out/events.log" "$ev")
		ktap_print_msg "$ev: ${n:-none}"
		[ -n "$n" ] && [ "$n" -gt 0 ] || ok=
	done
	if [ -d "$FROZEN_EVENT" ]; then
		n=$(tc_field "$out/events.log" mm_page_free_frozen)
		[ -n "$n" ] && [ "$n" -gt 0 ] || ok=
		if [ "$SLAB_MODE" = frozen ]; then
			slab=$(awk '/^  [_a-z]*slab[_a-z]* +[0-9]+$/ { s += $2 } END { print s + 0 }' \
				"$out/events.log")
			ktap_print_msg "frozen frees from slab call sites: $slab"
			[ "$slab" -gt 0 ] || ok=
		fi
	fi
	if [ -n "$ok" ]; then
		ktap_test_pass "trace-cmd-recipes.sh events: page frees and refcount atomics recorded"
	else
		ktap_test_fail "trace-cmd-recipes.sh events: page frees and refcount atomics recorded"
	fi

	# The slab recipe enables the function_graph tracer, whose live text
	# patching has crashed TCG guests here (int3 Oops in a timer softirq
	# while patching): run it only where the CPU is not emulated.
	if [ "${MMF_ACCEL:-}" = tcg ]; then
		ktap_test_skip "trace-cmd-recipes.sh slab (function_graph under TCG)"
	else
		ok=1
		ktap_print_msg "trace-cmd-recipes.sh slab -- churn.sh -r 1 -n 1000 slab"
		timeout "$RUN_TIMEOUT" "$T/trace-cmd-recipes.sh" -o "$out" slab -- \
			"$T/churn.sh" -q -r 1 -n 1000 slab > "$out/slab.log" 2>&1 || ok=
		grep -v '^+ ' "$out/slab.log" | head -n 12 | diag /dev/stdin
		calls=$(tc_field "$out/slab.log" '__free_slab calls:')
		frees=$(tc_field "$out/slab.log" 'slab page frees inside:')
		atomics=$(tc_field "$out/slab.log" 'refcount atomics inside:')
		pm=$(tc_field "$out/slab.log" 'atomics per 1000 slab page frees:')
		expected=$(per_mille "${atomics:-0}" "${frees:-0}")
		ktap_print_msg "__free_slab calls $calls, frees $frees, atomics $atomics, per 1000: $pm (slab pages $SLAB_MODE)"
		[ -n "$calls" ] && [ "$calls" -ge 20 ] && [ -n "$frees" ] && [ "$frees" -ge 20 ] || ok=
		[ -n "$pm" ] && [ "$pm" = "$expected" ] && slab_per_mille_ok "$pm" || ok=
		if [ -n "$ok" ]; then
			ktap_test_pass "trace-cmd-recipes.sh slab: atomics per 1000 slab page frees fit the kernel"
		else
			ktap_test_fail "trace-cmd-recipes.sh slab: atomics per 1000 slab page frees fit the kernel"
		fi

		ok=1
	fi

	ktap_print_msg "trace-cmd-recipes.sh stacks -- churn.sh -r 1 -n 300 slab pages"
	timeout "$RUN_TIMEOUT" "$T/trace-cmd-recipes.sh" -o "$out" stacks -- \
		"$T/churn.sh" -q -r 1 -n 300 slab pages > "$out/stacks.log" 2>&1 || ok=
	sed -n '/ZEROING ATOMICS UNDER/,$p' "$out/stacks.log" | diag /dev/stdin
	slab=$(tc_field "$out/stacks.log" slab)
	fp=$(tc_field "$out/stacks.log" __free_pages)
	ktap_print_msg "zeroing atomics under slab: ${slab:-none}, under __free_pages: ${fp:-none}"
	[ -n "$fp" ] && [ "$fp" -gt 0 ] && [ -n "$slab" ] || ok=
	grep -q 'page_ref_mod_and_test' "$out/stacks-hist.txt" 2>/dev/null || ok=
	if [ -n "$ok" ]; then
		if [ "$SLAB_MODE" = frozen ]; then
			[ "$slab" -le 5 ] || ok=
		else
			[ "$slab" -gt 0 ] || ok=
		fi
	fi
	if [ -n "$ok" ]; then
		ktap_test_pass "trace-cmd-recipes.sh stacks: zeroing atomics under __free_pages, under slab as expected"
	else
		ktap_test_fail "trace-cmd-recipes.sh stacks: zeroing atomics under __free_pages, under slab as expected"
	fi
}

ktap_print_header
if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "must be run as root (bpftrace, tracefs, slab shrink)"
	exit "$KSFT_SKIP"
fi
if ! command -v bpftrace >/dev/null; then
	ktap_skip_all "bpftrace is not installed"
	exit "$KSFT_SKIP"
fi
if [ ! -d "$TRACEFS/events/page_ref" ]; then
	ktap_skip_all "no page_ref events in $TRACEFS (CONFIG_DEBUG_PAGE_REF, tracefs)"
	exit "$KSFT_SKIP"
fi
if ! T=$(find_scripts); then
	ktap_skip_all "tracing scripts not found in $DIR/tracing nor \$MMF_ROOT/tracing (MMF_ROOT=${MMF_ROOT:-unset})"
	exit "$KSFT_SKIP"
fi
TMP=$(mktemp -d /tmp/tracing_scripts.XXXXXX)
trap cleanup EXIT
expected_slab_mode
ktap_set_plan "$NTESTS"
ktap_print_msg "scripts: $T"
ktap_print_msg "slab pages expected $SLAB_MODE ($SLAB_MODE_WHY)"
# Prime: slabs allocated under some other setting are freed now, not while
# a script measures.
"$T/churn.sh" -q -r 1 -n 500 slab
test_refcount_paths
test_frozen_frees
test_atomics_per_slab_free
test_trace_cmd
ktap_finished
