# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# upstream.sh - the kernel's own suites (KUnit's slub_kunit, the mm
# selftests by run_vmtests.sh category) in the guest, judged on the host
# (mmfrozen.upstream collect), and their results beside the baseline's.

# cmd_upstream [SUITE...]: the suites upstream.sh knows, or those named.
cmd_upstream() {
	local tsv="$RESULTS/upstream.tsv" problems
	prepare_results "$RESULTS"
	log_to "$RESULTS/runner.log"
	say "mm-frozen: the kernel's own suites on $SOURCE_LABEL, variant $RUN_NAME, results $RESULTS"
	stages_to_kernel "$RESULTS"
	stage "Build the kernel's mm selftests, install the modules" build
	build_mm_selftests "$TREE" "$BUILD"
	install_modules "$TREE" "$BUILD"
	stage "Build the guest initramfs"
	build_initramfs "$INITRAMFS" "$BUILD"
	stage "Boot the guest and run guest-init/upstream.sh $*" guest
	boot_guest "$RESULTS" batch "$MMF_ROOT/guest-init/upstream.sh" "$@"
	stage "Read the results"
	guest_status "$RESULTS" > /dev/null
	problems=$(mmf_py upstream collect --patterns "$KERNEL_PROBLEMS_FILE" "$RESULTS") ||
		die "$E_INTERNAL" "cannot read the suites' results in $RESULTS/upstream"
	[ -z "$problems" ] || indent <<< "$problems"
	if grep -q -P '\tfail\t' "$tsv"; then
		say "    failed:"
		grep -P '\tfail\t' "$tsv" | sed 's/^/      /'
	fi
	say "$RUN_NAME upstream: $(mmf_py upstream counts "$tsv") (results: $tsv)"
	stage_end
}

# cmd_upstream_compare: this variant's results beside the baseline's; a
# test that passes on the baseline and fails, or is missing, here is a
# regression, and the exit status is E_TESTS.
cmd_upstream_compare() {
	local mine="$SRC_WORK/results/$RUN_NAME-upstream/upstream.tsv"
	local base="$SRC_WORK/results/baseline-upstream/upstream.tsv"
	[ "$VARIANT" != baseline ] || die "$E_USAGE" "upstream-compare compares a patched variant with the baseline"
	[ -f "$mine" ] || die "$E_USAGE" "no $mine: run runner.sh upstream first"
	[ -f "$base" ] || die "$E_USAGE" "no $base: run runner.sh --baseline upstream first"
	mmf_py upstream compare --variant "$RUN_NAME" "$base" "$mine" || exit "$E_TESTS"
}
