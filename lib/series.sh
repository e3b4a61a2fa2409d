# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# series.sh - the check a rebase needs, patch by patch: how each applies,
# checkpatch.pl --strict on each, every commit built with the warnings it
# adds (mmfrozen.series), then the usual run on the tip; and the matrix
# of that check over several sources (mmfrozen.matrix).

# checkpatch_patches RESULTS REPO DIR PATCH...: REPO's own checkpatch.pl
# --strict on each PATCH of DIR; "PATCH <TAB> ERRORS <TAB> WARNINGS <TAB> CHECKS"
# lines in RESULTS/checkpatch.tsv ("-" when it printed no totals), each
# report in RESULTS/checkpatch/.
checkpatch_patches() {
	local dir=$1 repo=$2 patches=$3 p out totals e w c errors=0 warnings=0 checks=0
	mkdir -p "$dir/checkpatch"
	: > "$dir/checkpatch.tsv"
	for p in "${@:4}"; do
		out="$dir/checkpatch/${p%.patch}.txt"
		# The exit status only says "something found": the totals tell what.
		(cd "$repo" && perl scripts/checkpatch.pl --strict "$patches/$p") > "$out" 2>&1 ||
			[ -s "$out" ]
		totals=$(sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1\t\2\t\3/p' "$out")
		printf '%s\t%s\n' "$p" "${totals:-$'-\t-\t-'}" >> "$dir/checkpatch.tsv"
		[ -n "$totals" ] || continue
		IFS=$'\t' read -r e w c <<< "$totals"
		errors=$((errors + e)) warnings=$((warnings + w)) checks=$((checks + c))
	done
	say "    $errors errors, $warnings warnings, $checks checks, patches checked: $(($# - 3))" \
		"(reports: $dir/checkpatch/)"
}

# bisect_build RESULTS REPO WORKTREE TREE PATCH...: the base of REPO and
# then each commit of the series applied in TREE, in WORKTREE, built
# incrementally on the project's config.  "PATCH <TAB> STATUS <TAB>
# SECONDS <TAB> ADDED <TAB> TOTAL" lines in RESULTS/build.tsv, the base
# first, TOTAL the warnings of a full build (mmfrozen.series warnings); a
# patch already in the tree has no commit ("in-tree").  Returns 1 at the
# first commit that does not build.
bisect_build() {
	local dir=$1 repo=$2 worktree=$3 build i name log prev t0 last='' total
	local -a names=("${@:5}") commits
	build=$(build_dir "$worktree" bisect)
	mapfile -t commits < <(cut -f2 "$(applied_stamp "$4")")
	: > "$dir/build.tsv"
	mkdir -p "$dir/build"
	prev=$(git -C "$repo" rev-parse "$BASE_TAG^{commit}")
	checkout_worktree "$repo" "$worktree" "$prev"
	for ((i = -1; i < ${#names[@]}; i++)); do
		name="(base)"
		if [ "$i" -ge 0 ]; then
			name=${names[i]}
			if [ "${commits[i]}" = "$prev" ]; then
				printf '%s\tin-tree\t\t\t\n' "$name" >> "$dir/build.tsv"
				continue
			fi
			git -C "$worktree" checkout -q --detach "${commits[i]}"
			prev=${commits[i]}
		fi
		say "    $(git -C "$worktree" log -1 --format='%h %s')"
		t0=$SECONDS
		log="$dir/build/${name//[()]/}.log"
		# a commit before the tip lacks the patches after it, and a
		# series of --patches may lack ours: perhaps what defines an
		# option of the fragments
		configure_kernel "$worktree" "$build" bisect patched partial
		if ! make_logged "$log" "$worktree" "$build" -Otarget bzImage modules; then
			show_build_failure "$log"
			printf '%s\tfail\t%s\t\t\n' "$name" "$((SECONDS - t0))" >> "$dir/build.tsv"
			return 1
		fi
		total=$(mmf_py series warnings "$log" "$build/.mm-frozen-warnings")
		printf '%s\tok\t%s\t%s\t%s\n' "$name" "$((SECONDS - t0))" \
			"$((total - ${last:-$total}))" "$total" >> "$dir/build.tsv"
		say "      built in $((SECONDS - t0))s, $total warnings"
		last=$total
	done
}

# series_report STATUS RESULTS NAMES-FILE LABEL SPEC: the per-patch table
# of the source LABEL (--source SPEC) on screen and RESULTS/series.json,
# from what the stages wrote so far, with the
# tip's tests once there are some.  The command's exit report: it runs
# however the check ends.
# shellcheck disable=SC2317 # called by the trap
series_report() {
	mmf_py series report "$2" --names "$3" --source "$4" --spec "$5" --exit "$1"
	say "(table: $2/series.json)"
}

# cmd_series: how each patch applies, checkpatch.pl on each, every commit
# built (unless --no-bisect), the table; then, if the series is fit, the
# usual run on its tip (unless --no-test), results in tip/.
cmd_series() {
	local names_file="$RUN_TMP/series-patches" reached verdict=0 outcome
	local -a names
	require_series "$PATCHES"
	prepare_results "$RESULTS"
	touch "$RESULTS/apply.tsv" "$RESULTS/checkpatch.tsv" "$RESULTS/build.tsv"
	log_to "$RESULTS/runner.log"
	series_patches "$PATCHES" "${DROPPED[@]}" > "$names_file"
	mapfile -t names < "$names_file"
	# shellcheck disable=SC2034 # run by core.sh's trap
	EXIT_REPORT=(series_report "$RESULTS" "$names_file" "$SOURCE_LABEL" "${SOURCE_SPEC:-installed}")
	say "mm-frozen: series check of $PATCHES on $SOURCE_LABEL, results $RESULTS"
	stage "Check Debian packages"
	check_packages "$WORK" "$NO_INSTALL"
	stage "Prepare the source tree: $SOURCE_LABEL"
	prepare_source "$SRC_REPO" "$WORK" "$SOURCE_KIND" "$SOURCE_LOCATOR" "$SOURCE_COMMIT"
	stage "Check how each patch applies"
	check_apply "$SRC_REPO" "$PATCHES" "$RESULTS/apply.tsv" "${names[@]}" || verdict=$E_PATCH
	cut -f1,2 "$RESULTS/apply.tsv" | sed 's/^/    /; s/\t/: /'
	reached=$(wc -l < "$RESULTS/apply.tsv")
	stage "checkpatch.pl --strict on each patch"
	checkpatch_patches "$RESULTS" "$SRC_REPO" "$PATCHES" "${names[@]:0:reached}"
	[ "$verdict" = 0 ] || die_conflict "$RESULTS/apply.tsv"
	stage "Apply the series (branch $BRANCH)"
	apply_series "$SRC_REPO" "$TREE" "$BRANCH" "$PATCHES" "${APPLIED[@]}"
	if [ "$BISECT" = 1 ]; then
		stage "Build every commit in turn ($SRC_WORK/linux-bisect)"
		bisect_build "$RESULTS" "$SRC_REPO" "$SRC_WORK/linux-bisect" "$TREE" "${names[@]}" ||
			die "$E_BUILD" "$(tail -n 1 "$RESULTS/build.tsv" | cut -f1) does not build; log: $RESULTS/build/"
	fi
	outcome=$(mmf_py series verdict "$RESULTS")
	[ "$outcome" = passed ] ||
		die "$(code_of "$outcome")" "the series adds compiler warnings or checkpatch errors (see the table)"
	[ "$RUN_TESTS" = 1 ] || return 0
	stage_end
	prepare_results "$RESULTS/tip"
	stages_build "$RESULTS/tip"
	stages_test "$RESULTS/tip" "$BUILD" "$INITRAMFS" "${GUEST_COMMAND[@]}"
	stage_end
}

# cmd_matrix SPEC...: the series check on each source, one child
# runner.sh each with this run's options, then one table
# (mmfrozen.matrix); exit status E_TESTS when a source's check did not
# pass.  With --merge, the table of the jobs whose results are given.
cmd_matrix() {
	local spec dir status
	local -a sources=()
	[ "$MERGE" = 0 ] || { merge_jobs "$RESULTS" "$TREES_FILE" "$@"; return; }
	prepare_results "$RESULTS"
	for spec in "$@"; do
		dir=$(resolve_source "$spec" "$WORK")
		dir=${dir##*$'\n'}
		say "=== matrix: $spec"
		status=0
		child_runner - series --source "$spec" series || status=$?
		say "=== matrix: $spec: exit $status"
		sources+=(--source "$spec" "$status" "$dir/results/$RUN_NAME-series")
	done
	mmf_py matrix "$RESULTS" "${sources[@]}" || exit "$E_TESTS"
}

# merge_jobs RESULTS TREES-FILE DIR...: the matrix in RESULTS of series
# checks that ran on their own, each a CI job, from their results
# directories alone: no tree, no work directory, nothing run again; with
# a TREES-FILE (--trees), a row for each tree expected that has none.
merge_jobs() {
	local results=$1 trees=$2 dir status=0
	local -a jobs=()
	for dir in "${@:3}"; do
		[ -f "$dir/series.json" ] ||
			die "$E_USAGE" "matrix --merge: $dir holds no series.json (not the results of runner.sh series)"
		jobs+=(--job "$(absolute "$dir")")
	done
	[ -z "$trees" ] || [ -f "$trees" ] || die "$E_USAGE" "matrix --merge: no file $trees (--trees)"
	prepare_results "$results"
	mmf_py matrix "$results" "${jobs[@]}" ${trees:+--trees "$(absolute "$trees")"} ||
		status=$?
	case "$status" in
	0) ;;
	1) exit "$E_TESTS" ;;
	*) die "$E_USAGE" "matrix --merge: the jobs' results cannot be merged (above)" ;;
	esac
}
