# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# bench.sh - what the frozen paths save.  The kernel's frozen_pages/bench
# (CONFIG_FROZEN_PAGES_BENCH, patch 0018) runs each case in the guest
# (guest-init/bench.sh), a child runner.sh a pass: the refcount atomics
# counted on the patched kernel, which has DEBUG_PAGE_REF's tracepoints
# (untimed); then the clocks on the bench kernel, which lacks DEBUG_VM and
# DEBUG_PAGE_REF: -icount twice (instructions, to show they reproduce),
# plain TCG (emulated time), KVM when the probe allows it.  A lock RMW is
# timed natively on the host.  mmfrozen.bench writes bench.json, the
# table, bench.png and bench-summary.png, and checks the guard.

# bench_child_failed LOG: its end, and the run stops.
bench_child_failed() {
	tail -n 20 "$1" | indent >&2
	die "$E_TESTS" "a bench pass failed; log: $1"
}

# bench_pass DIR SOURCE NAME VARIANT ACCEL CMD...: CMD in a guest of
# VARIANT under ACCEL, run by a child runner.sh with this run's options
# and --source SOURCE (if given), its results in DIR/NAME, its output in
# DIR/NAME.log.
bench_pass() {
	local dir=$1 name=$3 log="$1/$3.log"
	child_runner "$log" exec ${2:+--source "$2"} \
		--variant "$4" --accel "$5" --results "$dir/$name" \
		exec -- "${@:6}" || bench_child_failed "$log"
	printf '%s\t%s\t%s\n' "$name" "$(run_name_of "$4")" "$5" >> "$dir/passes.tsv"
	say "    $(grep -c '^bench: ' "$log") cases; $dir/$name"
}

# bench_kernel DIR SOURCE VARIANT: a child runner.sh builds it, its
# output in DIR/kernel-VARIANT.log.
bench_kernel() {
	local log="$1/kernel-$3.log"
	child_runner "$log" kernel ${2:+--source "$2"} \
		--variant "$3" kernel || bench_child_failed "$log"
}

# The icount references of the bench, one a timed kernel (runner.sh bench
# --record).
readonly BENCH_REFERENCES="$MMF_ROOT/bench/reference"

# bench_depends_on TREE VARIANT SIZE: what the numbers of a SIZE (full or
# quick) bench of VARIANT's kernel in TREE depend on, as mmfrozen.bench's
# options, a word a line: the release that config/ gives VARIANT (the
# reference's name: a series that --drop, --with or --mutant changes is
# held to the reference of the series it changes), the tree (the source
# id its base tag holds), QEMU's version, the sha256 of the timed build's
# .config without its release name (a --config change is another
# config), the size.
bench_depends_on() {
	local tree=$1 timed_build localversion
	timed_build=$(build_dir "$tree" "$(run_name_of "$2")")
	[ -f "$timed_build/.config" ] ||
		die "$E_INTERNAL" "bench: no timed kernel in $timed_build"
	localversion=$(sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$/\1/p' \
		"$MMF_ROOT/config/variant-$2.config")
	printf '%s\n' --release "$(make -s -C "$tree" kernelversion)$localversion" \
		--tree "$(unpacked_source_id "$tree")" \
		--qemu "$(qemu-system-x86_64 --version | head -n 1)" \
		--config-sha256 "$(grep -v '^CONFIG_LOCALVERSION=' "$timed_build/.config" |
			sha256sum | cut -d' ' -f1)" \
		--size "$3"
}

# host_lock_cost WORK: the median ns of a lock-prefixed decrement,
# uncontended and contended, as JSON; the program, kept in WORK, is
# rebuilt when its source changes.
host_lock_cost() {
	local src="$MMF_ROOT/bench/lock-cost.c" bin="$1/lock-cost"
	[ "$bin" -nt "$src" ] || gcc -O2 -Wall -pthread -o "$bin" "$src"
	"$bin" -j
}

# bench_report DIR TREE TIMED SIZE RECORDING: the table (DIR/table.txt)
# of the passes in DIR, each case held to the reference of TIMED's kernel
# in TREE (not when RECORDING is 1: it replaces it), the plots, and when
# RECORDING the new reference; the guard's status (0 passed, 1 failed).
bench_report() {
	local dir=$1 tree=$2 timed=$3 size=$4 recording=$5 status=0 deps
	local -a depends_on references=(--references "$BENCH_REFERENCES")
	deps=$(bench_depends_on "$tree" "$timed" "$size")
	mapfile -t depends_on <<< "$deps"
	[ "$recording" != 1 ] || references=()
	mmf_py bench "$dir" "${depends_on[@]}" "${references[@]}" |
		tee "$dir/table.txt" || status=$?
	[ "$status" != 2 ] || die "$E_INTERNAL" "mmfrozen.bench found no results"
	if command -v gnuplot > /dev/null; then
		gnuplot "$dir/bench.gp" &&
			say "    plots: $dir/bench.png (rounds), bench-summary.png (medians)"
	fi
	say "    results: $dir (bench.json, table.txt)"
	if [ "$recording" = 1 ]; then
		[ "$status" = 0 ] || die "$E_TESTS" "bench: the guard failed: no reference recorded"
		stage "Record the reference"
		mmf_py bench record "$dir" "$BENCH_REFERENCES" | indent ||
			die "$E_INTERNAL" "bench: no reference written"
	fi
	return "$status"
}

# cmd_bench [full|quick]: quick, the guard of make check: the patched
# kernel only, counted and once under -icount, with fewer rounds.
cmd_bench() {
	local size=${1:-full} timed=bench clock status=0
	local -a clocks=(icount-1 icount-2 tcg) script=("$MMF_ROOT/guest-init/bench.sh")
	case "$size" in
	full) ;;
	quick) timed=patched clocks=(icount-1) ;;
	*) die "$E_USAGE" "bench takes full or quick, not $size" ;;
	esac
	[ "$RECORD" != 1 ] || [ -z "$SERIES_CHANGE$CONFIG_CHANGE" ] ||
		die "$E_USAGE" "bench --record keeps the reference of patches/ as they are: not with --drop, --with, --mutant or --config"
	prepare_results "$RESULTS"
	log_to "$RESULTS/runner.log"
	stage "Build the kernels: patched (the counts), $timed (the clocks)" build
	bench_kernel "$RESULTS" "$SOURCE_SPEC" patched
	bench_kernel "$RESULTS" "$SOURCE_SPEC" "$timed"
	# the probe boots the patched kernel
	[ "$size" = quick ] || [ "$(choose_accel "$ACCEL" "$WORK/kvm-probe" "$BUILD" | cut -d' ' -f1)" != kvm ] || clocks+=(kvm)
	stage "Count the refcount atomics of each case (patched kernel, untimed)"
	bench_pass "$RESULTS" "$SOURCE_SPEC" count patched tcg "${script[@]}" count "$size"
	for clock in "${clocks[@]}"; do
		stage "Time each case: $clock ($timed kernel)"
		bench_pass "$RESULTS" "$SOURCE_SPEC" "$clock" "$timed" "${clock%-*}" "${script[@]}" time "$size"
	done
	stage "Time a lock RMW on the host (bench/lock-cost.c)"
	host_lock_cost "$WORK" > "$RESULTS/lock-cost.json"
	stage "Report"
	bench_report "$RESULTS" "$TREE" "$timed" "$size" "$RECORD" || status=$?
	stage_end
	[ "$status" = 0 ] || exit "$E_TESTS"
}
