# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# run.sh - the stages in their order, and the commands that run them:
# run, deps, kernel, initramfs, boot, shell, exec; and the small ones:
# summary, check-log, where, clean.

# apply_series REPO TREE BRANCH DIR PATCH...: the PATCHes of DIR's series
# on BRANCH of TREE, a worktree of REPO.  A series changed by --drop or
# --with has a worktree of its own, so that switching between it and the
# whole series rebuilds neither.
apply_series() {
	local repo=$1 tree=$2
	require_series "$4"
	if [ "$tree" != "$repo" ] && ! git -C "$tree" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		checkout_worktree "$repo" "$tree" "$BASE_TAG"
	fi
	apply_patches "$tree" "$3" "$4" "${@:5}"
}

# stages_to_tree: packages, source and the series (but for the
# baseline): the tree to build.
stages_to_tree() {
	stage "Check Debian packages"
	check_packages "$WORK" "$NO_INSTALL"
	stage "Prepare the source tree: $SOURCE_LABEL"
	prepare_source "$SRC_REPO" "$WORK" "$SOURCE_KIND" "$SOURCE_LOCATOR" "$SOURCE_COMMIT"
	if [ "$VARIANT" = baseline ]; then
		checkout_worktree "$SRC_REPO" "$TREE" "$BASE_TAG"
		say "    $TREE: pristine $BASE_TAG"
	else
		stage "Apply patches/ ($PATCHES)${DROPPED[*]:+, without ${DROPPED[*]}}${WITH[*]:+, with ${WITH[*]}}"
		apply_series "$SRC_REPO" "$TREE" "$BRANCH" "$PATCHES" "${APPLIED[@]}"
	fi
}

# stages_to_kernel [RESULTS]: the tree, and its build.
stages_to_kernel() {
	stages_to_tree
	stages_build "${1:-}"
}

# stages_build [RESULTS]: from a tree with the series to a built kernel
# and the mm-frozen kselftests.
stages_build() {
	stage "Place selftests/mm-frozen in the tree"
	install_selftests "$TREE"
	local series=whole
	[ "${#DROPPED[@]}" = 0 ] || series=partial
	stage "Configure ($RUN_NAME)"
	configure_kernel "$TREE" "$BUILD" "$RUN_NAME" "$VARIANT" "$series" \
		"${EXTRA_CONFIG[@]}"
	stage "Build the kernel ($RUN_NAME)" build
	build_kernel "$TREE" "$BUILD" "${1:-}"
	build_inputs "$BUILD" "$RUN_NAME" "$VARIANT" "${EXTRA_CONFIG[@]}" > "$BUILD/.mm-frozen-inputs"
	stage "Build the mm-frozen kselftests"
	build_selftests "$TREE" "$BUILD" "$KSELFTEST_DIR"
}

# stages_test RESULTS BUILD INITRAMFS CMD...: the initramfs, and the
# tests that CMD runs in a guest of BUILD's kernel, with their verdict.
stages_test() {
	stage "Build the guest initramfs"
	build_initramfs "$3" "$2"
	stage "Boot the guest and run ${*:4}" guest
	boot_and_test "$1" "${@:4}"
}

# ---------------------------------------------------------------- commands

cmd_run() {
	prepare_results "$RESULTS"
	log_to "$RESULTS/runner.log"
	say "mm-frozen: $SOURCE_LABEL, variant $RUN_NAME, results $RESULTS"
	stages_to_kernel "$RESULTS"
	stages_test "$RESULTS" "$BUILD" "$INITRAMFS" "${GUEST_COMMAND[@]}"
	stage_end
	say "mm-frozen: done in $(elapsed "$RUN_T0")s"
}

cmd_deps() {
	stage "Check Debian packages"
	check_packages "$WORK" "$NO_INSTALL"
	stage_end
}

cmd_kernel() {
	prepare_results "$RESULTS"
	log_to "$RESULTS/runner.log"
	stages_to_kernel "$RESULTS"
	stage_end
}

cmd_initramfs() {
	build_initramfs "$INITRAMFS" "$BUILD"
}

cmd_boot() {
	check_build "$BUILD" "$RUN_NAME" "$VARIANT" "${EXTRA_CONFIG[@]}"
	prepare_results "$RESULTS"
	log_to "$RESULTS/runner.log"
	stage "Boot the guest and run ${GUEST_COMMAND[*]}" guest
	boot_and_test "$RESULTS" "${GUEST_COMMAND[@]}"
	stage_end
}

# cmd_shell: the guest's bash on this terminal, with the environment that
# exec's command has, started by guest-init/shell.sh with the time limit
# and this terminal's type and size (a serial console cannot tell them).
cmd_shell() {
	local -a size=()
	check_build "$BUILD" "$RUN_NAME" "$VARIANT" "${EXTRA_CONFIG[@]}"
	prepare_results "$RESULTS"
	[ ! -t 0 ] || read -r -a size < <(stty size)
	boot_guest "$RESULTS" shell . "$MMF_ROOT/guest-init/shell.sh" "${TIMEOUT:-0}" \
		"${TERM:-linux}" "${size[@]}"
}

# cmd_exec CMD...: exec's exit status is the runner's: 0 when CMD
# succeeded, E_TESTS when it failed (its own status is printed, and kept
# in guest/status and verdict.json), any other code for the runner's own
# failures.
cmd_exec() {
	local status
	check_build "$BUILD" "$RUN_NAME" "$VARIANT" "${EXTRA_CONFIG[@]}"
	prepare_results "$RESULTS"
	boot_guest "$RESULTS" batch "$@"
	cat "$RESULTS/guest/output.log" 2>/dev/null || true
	check_kernel_log "$RESULTS" "$BUILD"
	status=$(guest_status "$RESULTS")
	if [ "$status" != 0 ]; then
		printf 'runner.sh: the guest command exited with status %s\n' "$status" >&2
		exit "$E_TESTS"
	fi
}

# cmd_expect: the tests of RESULTS against the expected statuses of
# VARIANT; with --record, those written from them.
cmd_expect() {
	local file=${EXPECT:-$EXPECTED_DIR/$RUN_NAME.txt}
	[ -f "$RESULTS/verdict.json" ] || die "$E_USAGE" "expect: no $RESULTS/verdict.json: run the tests first"
	if [ "$RECORD" = 1 ]; then
		mmf_py expected record "$RESULTS" "$file" || die "$E_USAGE" "expect: $file not written"
		return
	fi
	[ -f "$file" ] || die "$E_USAGE" "expect: no $file (runner.sh expect --record writes it)"
	mmf_py expected compare "$RESULTS" "$file" || exit "$E_TESTS"
}

cmd_summary() {
	mmf_py summary "$SRC_WORK/results"
}

cmd_check_log() { # cmd_check_log FILE: exit E_KERNEL if it shows problems
	local problems
	[ -f "$1" ] || die "$E_USAGE" "check-log: no file $1"
	problems=$(kernel_problems "$1")
	if [ -n "$problems" ]; then
		printf '%s\n' "$problems"
		exit "$E_KERNEL"
	fi
	echo "no kernel problems in $1"
}

# cmd_where [NAME]: the paths the options lead to, for scripts that read
# what a run left ("runner.sh --work DIR where source"), so that they
# never guess.
cmd_where() {
	local name value found=0
	while read -r name value; do
		if [ $# = 0 ]; then
			printf '%-8s %s\n' "$name" "$value"
		elif [ "$name" = "$1" ]; then
			printf '%s\n' "$value"
			found=1
		fi
	done <<EOF
work $WORK
source $SRC_REPO
tree $TREE
build $BUILD
results $RESULTS
EOF
	[ $# = 0 ] || [ "$found" = 1 ] || die "$E_USAGE" "where: no path named $1"
}

cmd_clean() {
	rm -rf "$WORK"
	say "removed $WORK"
}
