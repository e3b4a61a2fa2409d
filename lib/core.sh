# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# core.sh - what every command of runner.sh shares: the exit codes, output
# and stages, errors, the one trap that stops what a run started and
# writes its verdict, and the work directory's lock.
#
# The run's state lives here and nowhere else, for the trap: its
# temporary directory, the stage in progress, the process groups of its
# children, the results directories that get a verdict, and the report a
# command prints at its end, however it ends.

# ---------------------------------------------------------------- exit codes

readonly E_TESTS=1 E_USAGE=2 E_PACKAGES=3 E_PATCH=4 E_BUILD=5 E_HANG=6
readonly E_KERNEL=7 E_SERIES=8 E_INTERNAL=9 E_GUEST=10 E_BUSY=11

# CODE|OUTCOME|MEANING: what each exit status says happened.  --help,
# verdict.json's "outcome" and the README's table come from here.
exit_code_table() {
	cat <<EOF
0|passed|every test passed
$E_TESTS|tests-failed|a test failed, timed out or crashed (exec: the guest command failed)
$E_USAGE|usage-error|bad option or argument; nothing changed
$E_PACKAGES|missing-packages|Debian packages missing, and not root or --no-install
$E_PATCH|patch-does-not-apply|a patch does not apply: the patch, files and hunks named
$E_BUILD|build-failed|configure or build failed: the log's last lines shown
$E_HANG|guest-timeout|the guest did not start its tests within the boot timeout, or did not finish in time: stopped, its last console lines shown
$E_KERNEL|kernel-problem|a panic, Oops, BUG, WARNING, stall... in the guest's kernel log, the lines shown
$E_SERIES|series-adds-warnings|(series) a patch adds compiler warnings or checkpatch errors
$E_INTERNAL|internal-error|anything unanticipated: the failing command and its line shown
$E_GUEST|guest-failed|qemu failed, or the guest stopped before its command finished
$E_BUSY|work-directory-busy|another run holds the work directory (--no-wait)
130|interrupted|SIGINT (Ctrl-C)
143|interrupted|SIGTERM
EOF
}

outcome_of() { # outcome_of STATUS: its outcome; internal-error if unknown
	local code outcome
	while IFS='|' read -r code outcome _; do
		[ "$code" != "$1" ] || { echo "$outcome"; return; }
	done < <(exit_code_table)
	echo internal-error
}

code_of() { # code_of OUTCOME: the exit status that says it (the first)
	local code outcome
	while IFS='|' read -r code outcome _; do
		[ "$outcome" != "$1" ] || { echo "$code"; return; }
	done < <(exit_code_table)
	die "$E_INTERNAL" "no exit status for the outcome $1"
}

# ---------------------------------------------------------------- output

now() { date +%s.%N; }

elapsed() { # elapsed START: seconds since START, one decimal
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'
}

say() { [ "${QUIET:-0}" = 1 ] || printf '%s\n' "$*"; }

indent() { sed 's/^/    /'; }

# The exit status of a verdict module that crashed (mmfrozen/__main__.py).
readonly PY_CRASHED=70

# mmf_py MODULE ARGS...: a verdict module of lib/mmfrozen, through its
# one entry point.  A module that crashed (an exception it did not
# catch) is the harness's fault, not a verdict: E_INTERNAL, whatever its
# caller makes of a failure; but in the exit trap, where the run's status
# is decided, its caller says what was not written.
mmf_py() {
	local status=0
	PYTHONPATH="$MMF_ROOT/lib" python3 -m mmfrozen "$@" || status=$?
	if [ "$status" = "$PY_CRASHED" ] && [ "${EXITING:-0}" = 0 ]; then
		die "$E_INTERNAL" "mmfrozen.$1 crashed (its traceback above)"
	fi
	return "$status"
}

# log_to FILE: everything printed from here on goes to FILE as well.  The
# tee is in the runner's process group, which Ctrl-C signals whole: it
# ignores SIGINT and SIGTERM, and ends when the runner does, so that the
# runner's last words reach the screen and FILE.
log_to() {
	exec > >(trap '' INT TERM; exec tee -a "$1") 2>&1
}

STAGE_NO=0 STAGE_NAME='' STAGE_KIND=- STAGE_T0='' STAGES_FILE=''

# stage NAME [KIND]: a numbered stage begins; KIND, "build" or "guest",
# says what its time is spent on, for the tables that sum it (mutants').
stage() {
	stage_end
	STAGE_NO=$((STAGE_NO + 1))
	STAGE_NAME=$1
	STAGE_KIND=${2:--}
	STAGE_T0=$(now)
	say "[$STAGE_NO] $STAGE_NAME  (+$(elapsed "$RUN_T0")s)"
}

stage_end() { # the stage in progress ends, its time in stages.tsv
	[ -n "$STAGE_NAME" ] || return 0
	local took
	took=$(elapsed "$STAGE_T0")
	say "    done in ${took}s"
	[ -z "$STAGES_FILE" ] ||
		printf '%s\t%s\t%s\t%s\n' "$STAGE_NO" "$STAGE_NAME" "$took" "$STAGE_KIND" >> "$STAGES_FILE"
	STAGE_NAME=
}

# ---------------------------------------------------------------- errors

die() { # die CODE MESSAGE...
	local code=$1
	shift
	printf 'runner.sh: error: %s\n' "$*" >&2
	# A die in a command substitution ends only its subshell: on_err
	# passes the code on instead of calling it an internal error.
	[ -z "${RUN_TMP:-}" ] || echo "$code" >> "$RUN_TMP/died"
	exit "$code"
}

# An unanticipated failure (set -e): E_INTERNAL, with the command that
# failed; a code that die gave, passed on as it is.
# shellcheck disable=SC2317 # on_err, on_signal, on_exit: called by traps
on_err() {
	local status=$? line=$1 command=$2
	# In a subshell, end it: its caller's command fails in turn.
	if [ "$BASHPID" != "$$" ] || grep -qx "$status" "$RUN_TMP/died" 2>/dev/null; then
		exit "$status"
	fi
	printf 'runner.sh: internal error: line %s: "%s" exited with status %s\n' \
		"$line" "$command" "$status" >&2
	echo "$E_INTERNAL" >> "$RUN_TMP/died"
	exit "$E_INTERNAL"
}

# ---------------------------------------------------------------- children

# The process groups of the build and of the guest, while they run: each
# runs in a group of its own (setsid, or GNU timeout's), which the trap
# stops whole.
CHILD_GROUPS=()

# GUARDED CMD...: CMD in a process group of its own that goes with the
# runner.  setsid makes the group; setpriv has the kernel send its guard
# SIGTERM when the runner dies, even by SIGKILL, which no trap sees
# (PR_SET_PDEATHSIG), and the guard passes it on to the whole group, once.
# The children keep the lock's descriptor: the work directory stays
# locked until the last of them has ended.
# shellcheck disable=SC2016,SC2034 # expanded by the guard's shell; used in build.sh
GUARDED=(setsid -w setpriv --pdeathsig TERM
	bash -c 'trap "trap - TERM; kill -TERM 0" TERM; "$@" & wait "$!"' guard)

track_child() { # track_child PID: a child in a group of its own, for the trap
	CHILD_GROUPS=("$1")
}

# wait_child PID: waits for a child started in a group of its own, which
# the trap stops if the run ends meanwhile; returns its status.
wait_child() {
	local rc=0
	track_child "$1"
	wait "$1" || rc=$?
	CHILD_GROUPS=()
	return "$rc"
}

wait_for() { # wait_for PID SECONDS: true once PID has exited
	local i
	for ((i = 0; i < $2; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 1
	done
	! kill -0 "$1" 2>/dev/null
}

# shellcheck disable=SC2317
wait_for_group() { # wait_for_group PGID SECONDS: true once it is gone
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 -- "-$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# running_child PID: PID is a child of this shell that has not exited.
# Bash reaps a child as soon as it exits, and the kernel may then give its
# pid, and its process group's id, to a process of another run: a child
# that "jobs -r" no longer lists is never signalled.
running_child() {
	jobs -rp | grep -q -x -- "$1"
}

# shellcheck disable=SC2317
stop_children() { # TERM to each group, KILL to what is left after 10 s
	local pgid
	for pgid in "${CHILD_GROUPS[@]}"; do
		running_child "$pgid" || continue
		# the leader alone, if it has not made its group yet
		kill -TERM -- "-$pgid" 2>/dev/null || kill -TERM "$pgid" 2>/dev/null || true
	done
	for pgid in "${CHILD_GROUPS[@]}"; do
		running_child "$pgid" || continue
		wait_for_group "$pgid" 10 || kill -KILL -- "-$pgid" 2>/dev/null || true
	done
	CHILD_GROUPS=()
}

# ---------------------------------------------------------------- results

# The results directories of the run, each written a verdict.json at its
# end; the report of the command (EXIT_REPORT: a command and its
# arguments, given the exit status before them) printed first.
VERDICT_DIRS=()
EXIT_REPORT=()

# check_results DIR: a run may empty DIR: it is empty, or a run of
# runner.sh created it.
check_results() {
	if [ -d "$1" ] && [ -n "$(ls -A "$1")" ] && [ ! -f "$1/.mm-frozen-results" ]; then
		die "$E_USAGE" "$1 is not empty and not a results directory of runner.sh"
	fi
}

# prepare_results DIR: DIR emptied for a run (check_results); from here
# on the run's stages and verdict are written there.
prepare_results() {
	local dir=$1
	check_results "$dir"
	rm -rf "$dir"
	mkdir -p "$dir/guest"
	touch "$dir/.mm-frozen-results"
	VERDICT_DIRS+=("$dir")
	STAGES_FILE="$dir/stages.tsv"
}

# ---------------------------------------------------------------- the trap

# SIGINT and SIGTERM: stop what runs, keep the results, exit 128+signal.
# shellcheck disable=SC2317
on_signal() { # on_signal NAME NUMBER
	trap - INT TERM
	printf '\nrunner.sh: %s: stopping\n' "$1" >&2
	exit $((128 + $2))
}

# Whatever the end: the children stopped, what each results directory
# ran on, the command's report, each verdict and its JUnit and KCIDB
# reports written, the temporary files removed.
# shellcheck disable=SC2317
on_exit() {
	local status=$? dir
	trap - ERR INT TERM
	EXITING=1
	# An internal error anywhere, in a subshell whose caller went on too
	# (a crashed verdict module in a pipeline), is the run's outcome.
	! grep -qx "$E_INTERNAL" "$RUN_TMP/died" 2>/dev/null || status=$E_INTERNAL
	stop_children
	read_unread_ktap
	# What each directory's run ran on; a matrix's sources record theirs.
	if [ "$COMMAND" != matrix ]; then
		for dir in "${VERDICT_DIRS[@]}"; do
			record_checkout "$dir" "$SOURCE_LABEL" "$RUN_NAME" "$SRC_REPO" \
				"$PATCHES" "${APPLIED[@]}" ||
				printf 'runner.sh: %s/checkout.json not written\n' "$dir" >&2
		done
	fi
	[ ${#EXIT_REPORT[@]} = 0 ] || "${EXIT_REPORT[0]}" "$status" "${EXIT_REPORT[@]:1}" || true
	for dir in "${VERDICT_DIRS[@]}"; do
		mmf_py verdict finish "$dir" --variant "$RUN_NAME" \
			--outcome "$(outcome_of "$status")" --exit "$status" || true
	done
	# Once every verdict is final: a series' reports read its tip's.
	for dir in "${VERDICT_DIRS[@]}"; do
		{ mmf_py junit "$dir" && mmf_py kcidb "$dir"; } ||
			printf 'runner.sh: the reports of %s (junit.xml, kcidb.json) not written\n' "$dir" >&2
	done
	rm -rf "$RUN_TMP"
	exit "$status"
}

# core_init: the run's temporary directory (TMPDIR, so that every mktemp
# lands there), its clock and the traps.
core_init() {
	RUN_T0=$(now)
	RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/mm-frozen-run.XXXXXX")
	export TMPDIR=$RUN_TMP
	# The lock's descriptor, which the build and the guest inherit
	# (GUARDED); until lock_work takes the lock, /dev/null.
	exec {LOCK_FD}< /dev/null
	set -E
	trap 'on_err "$LINENO" "$BASH_COMMAND"' ERR
	trap on_exit EXIT
	trap 'on_signal SIGINT 2' INT
	trap 'on_signal SIGTERM 15' TERM
}

# child_runner OUT COMMAND ARG...: a runner.sh with this run's options
# that COMMAND takes (child_options: a mutants run's --tests reach its
# runs, not the bench of a mutant) and ARG..., COMMAND among them
# (bench's passes, matrix's sources, the mutants), its output to the
# file OUT ("-": this run's own), in a group
# of its own that the trap stops (GUARDED): a signal to this run stops
# it too, rather than wait for its end; its exit status.  The child's
# output alone goes to OUT: what the trap prints meanwhile is the run's
# own.
child_runner() {
	local out=$1
	local -a options
	mapfile -t options < <(child_options "$2")
	shift 2
	if [ "$out" = - ]; then
		"${GUARDED[@]}" "$MMF_ROOT/runner.sh" "${options[@]}" "$@" &
	else
		"${GUARDED[@]}" "$MMF_ROOT/runner.sh" "${options[@]}" "$@" > "$out" 2>&1 &
	fi
	wait_child "$!"
}

# ---------------------------------------------------------------- the lock

# lock_work DIR WHAT NO-WAIT: one run per work directory: a second one
# waits, saying for whom, or when NO-WAIT is 1 fails at once.  The kernel
# drops the lock of a run that was killed.  The runners that a run starts
# (bench's, matrix's) inherit its lock's descriptor, MMF_LOCK_FD: the same
# open lock, which flock grants them at once, so that no other run gets in
# between them.
lock_work() {
	local no_wait=$3 holder
	mkdir -p "$1"
	if [ -n "${MMF_LOCK_FD:-}" ] &&
		[ "$(readlink "/proc/self/fd/$MMF_LOCK_FD")" = "$(readlink -f "$1/.lock")" ]; then
		LOCK_FD=$MMF_LOCK_FD
		flock -n "$LOCK_FD" || die "$E_INTERNAL" "the lock inherited from the parent run is not held"
		return
	fi
	exec {LOCK_FD}>> "$1/.lock"
	export MMF_LOCK_FD=$LOCK_FD
	if ! flock -n "$LOCK_FD"; then
		holder=$(head -n 1 "$1/.lock" 2>/dev/null)
		[ "$no_wait" = 0 ] || die "$E_BUSY" "$1 is in use by ${holder:-another runner.sh}"
		printf 'runner.sh: %s is in use by %s; waiting for it (--no-wait fails at once)\n' \
			"$1" "${holder:-another runner.sh}" >&2
		flock "$LOCK_FD"
	fi
	printf 'pid %s, since %s: runner.sh %s\n' "$$" "$(date +%T)" "$2" > "$1/.lock"
}
