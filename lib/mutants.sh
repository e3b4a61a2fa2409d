# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# mutants.sh - would the suite notice a rebase that went subtly wrong?
# Each mutant of tests/mutants/ is the whole series and one patch that
# undoes part of it: a child "runner.sh run --mutant FILE" builds it in
# the tree and build directory that every mutant shares and runs the
# target on it; mmfrozen.mutants says what killed it, if anything did.
# The series unmutated runs first, as the control: with the mutants'
# options, it must pass, else a kill could be the options' doing.

# mutant_files [NAME...]: the patch of each mutant named (NAME or
# NAME.patch, of MUTANTS_DIR), in order; every mutant when none is.
mutant_files() {
	local name
	if [ $# = 0 ]; then
		find "$MUTANTS_DIR" -maxdepth 1 -name '*.patch' | sort
		return
	fi
	for name in "$@"; do
		name=${name%.patch}
		[[ $name =~ ^[A-Za-z0-9._-]+$ && -f $MUTANTS_DIR/$name.patch ]] ||
			die "$E_USAGE" "mutants: no mutant $name in $MUTANTS_DIR"
		printf '%s\n' "$MUTANTS_DIR/$name.patch"
	done
}

# The mutant whose run is under way: NAME and PATCH.
MUTANT_RUNNING=()

# mutants_report STATUS RESULTS: the table of the mutants run so far and
# RESULTS/mutants.json, a mutant stopped under way among them (its run
# ended with STATUS).  The command's exit report: it runs however the
# run ends.
# shellcheck disable=SC2317 # called by the trap
mutants_report() {
	[ ${#MUTANT_RUNNING[@]} = 0 ] ||
		printf '%s\t%s\t%s\n' "${MUTANT_RUNNING[@]}" "$1" >> "$2/mutants.tsv"
	mmf_py mutants report "$2"
	say "(table: $2/mutants.json)"
}

# MUTANT_OPTIONS: what each mutant's run and the control's are given
# beyond this run's options: the first problem kills it, since the tests
# after it would only time out.
MUTANT_OPTIONS=(--stop-at-problem)

# wants_bench PATCH: whether the mutant PATCH is to be killed by the
# bench (Expected-killer: bench), whose bench quick then runs too.
wants_bench() {
	[ "$(mmf_py mutants expected "$1")" = bench ]
}

# any_wants_bench PATCH...: whether one of the mutants PATCH... is the
# bench's.
any_wants_bench() {
	local file
	for file in "$@"; do
		! wants_bench "$file" || return 0
	done
	return 1
}

# run_control RESULTS PATCH...: the series unmutated, run as each mutant
# is, in RESULTS/control, and its bench quick in RESULTS/control-bench
# when one of the mutants PATCH... is the bench's; dies with the exit
# status of one that did not pass.
run_control() {
	local status=0
	stage "Control: the series without a mutant"
	child_runner "$1/control.log" run "${MUTANT_OPTIONS[@]}" --results "$1/control" run || status=$?
	if [ "$status" = 0 ] && any_wants_bench "${@:2}"; then
		child_runner "$1/control-bench.log" bench --results "$1/control-bench" bench quick ||
			status=$?
	fi
	say "    $(mmf_py mutants control "$1")"
	[ "$status" = 0 ] || die "$status" "the control run did not pass (see $1/control.log," \
		"control-bench.log): no mutant is classified"
}

# cmd_mutants [NAME...]: the control (run_control), then each mutant built
# and run by a child runner.sh with this run's options and MUTANT_OPTIONS,
# its output in RESULTS/NAME.log and its results in RESULTS/NAME, then,
# for a mutant of the bench, its bench quick in RESULTS/NAME-bench; "NAME
# <TAB> PATCH <TAB> EXIT [<TAB> BENCH-EXIT]" in RESULTS/mutants.tsv.
cmd_mutants() {
	local file name status
	local -a files bench_status row
	mapfile -t files < <(mutant_files "$@")
	[ ${#files[@]} -gt 0 ] || die "$E_USAGE" "mutants: no mutant in $MUTANTS_DIR"
	prepare_results "$RESULTS"
	: > "$RESULTS/mutants.tsv"
	log_to "$RESULTS/runner.log"
	# shellcheck disable=SC2034 # run by core.sh's trap
	EXIT_REPORT=(mutants_report "$RESULTS")
	say "mm-frozen: ${#files[@]} mutants of the series on $SOURCE_LABEL, results $RESULTS"
	run_control "$RESULTS" "${files[@]}"
	for file in "${files[@]}"; do
		name=$(basename "$file" .patch)
		stage "Mutant $name"
		status=0 bench_status=()
		MUTANT_RUNNING=("$name" "$file")
		child_runner "$RESULTS/$name.log" run "${MUTANT_OPTIONS[@]}" --mutant "$file" \
			--results "$RESULTS/$name" run || status=$?
		if [ "$status" != "$E_BUILD" ] && wants_bench "$file"; then
			bench_status=(0)
			child_runner "$RESULTS/$name-bench.log" bench --mutant "$file" \
				--results "$RESULTS/$name-bench" bench quick || bench_status=($?)
		fi
		MUTANT_RUNNING=()
		row=("$name" "$file" "$status" "${bench_status[@]}")
		(IFS=$'\t'; echo "${row[*]}") >> "$RESULTS/mutants.tsv"
		say "    $(mmf_py mutants line "$RESULTS" "$name")"
	done
	stage_end
	[ "$(mmf_py mutants verdict "$RESULTS")" = passed ] ||
		die "$E_TESTS" "a mutant was not killed (see the table)"
}
