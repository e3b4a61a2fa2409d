# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# coverage.sh - which lines of the series the tests ran: the coverage
# variant (gcov on the objects that the series changes, lib/build.sh)
# built, booted and tested as "run" does, the guest's counters read back
# (guest-init/stage2.sh), and mmfrozen.coverage's report of each line
# that the series changes, by patch and hunk.

# coverage_report RESULTS [STATUS]: the table, RESULTS/coverage.json and
# coverage.html, from the counters the guest left; the command's exit
# report when the tests failed, so that a failed run reports what ran.
# shellcheck disable=SC2317 # called by the trap
coverage_report() {
	local -a patches
	if [ ! -d "$1/guest/gcov" ]; then
		say "coverage: the guest left no counters in $1/guest/gcov: no report"
		return 1
	fi
	stage "Report the series' lines that the tests ran"
	mapfile -t patches < <(run_patches)
	mmf_py coverage report --tree "$TREE" --build "$BUILD" --base "$BASE_TAG" \
		"$1" "${patches[@]}" > "$1/coverage.txt" || return
	indent < "$1/coverage.txt"
	say "    report: $1/coverage.html, coverage.json, coverage.txt"
}

# cmd_coverage: the stages of run on the coverage variant, then the
# report.
# shellcheck disable=SC2034 # EXIT_REPORT: run by core.sh's trap
cmd_coverage() {
	prepare_results "$RESULTS"
	log_to "$RESULTS/runner.log"
	say "mm-frozen: coverage of the series on $SOURCE_LABEL, results $RESULTS"
	stages_to_kernel "$RESULTS"
	EXIT_REPORT=(coverage_report "$RESULTS")
	stages_test "$RESULTS"
	EXIT_REPORT=()
	coverage_report "$RESULTS" || die "$E_INTERNAL" "coverage: no report written"
	stage_end
	say "mm-frozen: done in $(elapsed "$RUN_T0")s"
}
