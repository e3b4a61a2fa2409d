# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# coverage.sh - which lines of the series the tests ran: the coverage
# variant (gcov on the objects that the series changes, lib/build.sh)
# built, booted and tested as "run" does, the guest's counters read back
# (guest-init/stage2.sh), and mmfrozen.coverage's report of each line
# that the series changes, by patch and hunk.

# The lines that the series changes and no run of the target reaches,
# each with its reason: the gate of "runner.sh coverage".
readonly COVERAGE_UNRUN="$MMF_ROOT/tests/coverage-unrun.txt"

# coverage_report STATUS RESULTS TREE BUILD PATCH...: the table,
# RESULTS/coverage.json and coverage.html, from the counters the guest
# left of BUILD's kernel, a build of TREE with the PATCHes, and the gate:
# 0, 1 when a line not run is not in COVERAGE_UNRUN, 2 when there is no
# report.  The command's exit report (the run's STATUS is not read) when
# the tests failed, so that a failed run reports what ran.
# shellcheck disable=SC2317 # called by the trap
coverage_report() {
	local results=$2 status=0
	if [ ! -d "$results/guest/gcov" ]; then
		say "coverage: the guest left no counters in $results/guest/gcov: no report"
		return 2
	fi
	stage "Report the series' lines that the tests ran"
	mmf_py coverage report --tree "$3" --build "$4" \
		--module "$(selftests_copy "$3")/mm_frozen_test" --base "$BASE_TAG" \
		--unrun "$COVERAGE_UNRUN" "$results" "${@:5}" > "$results/coverage.txt" || status=$?
	indent < "$results/coverage.txt"
	[ "$status" != 2 ] || return 2
	say "    report: $results/coverage.html, coverage.json, coverage.txt"
	return "$status"
}

# cmd_coverage: the stages of run on the coverage variant, then the
# report.
# shellcheck disable=SC2034 # EXIT_REPORT: run by core.sh's trap
cmd_coverage() {
	local status=0
	prepare_results "$RESULTS"
	log_to "$RESULTS/runner.log"
	say "mm-frozen: coverage of the series on $SOURCE_LABEL, results $RESULTS"
	stages_to_kernel "$RESULTS"
	EXIT_REPORT=(coverage_report "$RESULTS" "$TREE" "$BUILD" "${APPLIED[@]}")
	stages_test "$RESULTS" "$BUILD" "$INITRAMFS" "${GUEST_COMMAND[@]}"
	EXIT_REPORT=()
	coverage_report 0 "$RESULTS" "$TREE" "$BUILD" "${APPLIED[@]}" || status=$?
	[ "$status" != 2 ] || die "$E_INTERNAL" "coverage: no report written"
	stage_end
	say "mm-frozen: done in $(elapsed "$RUN_T0")s"
	[ "$status" = 0 ] ||
		die "$E_TESTS" "coverage: lines that the tests did not run, not in $COVERAGE_UNRUN"
}
