#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# runner.sh - apply the frozen-pages series to Debian's linux-source-6.12,
# build the kernel and test it in a QEMU guest.  "runner.sh --help" lists
# the commands and options.
#
# This file holds the constants, the options, the command table and
# main.  The stages live in lib/*.sh, by concern, and the verdicts in
# lib/mmfrozen/ (Python).  Sourced, it defines everything and runs
# nothing, for the tests.

MMF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly MMF_ROOT

readonly SOURCE_PACKAGE=linux-source-6.12
readonly SOURCE_TARBALL=/usr/src/linux-source-6.12.tar.xz
# The other Debian trees that "runner.sh sources" offers a matrix, each
# at its newest version: the series' port stops at their first conflict.
readonly OTHER_SOURCE_PACKAGES=(linux-source-6.1)
readonly BASE_TAG=mm-frozen-base
readonly PATCHED_BRANCH=mm-frozen
readonly GIT_IDENT=(-c user.name=mm-frozen-runner -c user.email=mm-frozen@localhost)

# Installed without what they recommend, so every package used is here.
# The fifth line: what some of the kernel's mm selftests link with, what
# draws the bench's plot, what check the JUnit and KCIDB reports
# against their schemas, and what reads the workflow for its glue
# (mmfrozen.workflow); the last, the guest's insmod and modprobe (the
# guest runs the host's root), the host tests' pgrep and ps, and what
# finds libtraceevent for the mm-frozen programs.
readonly REQUIRED_PACKAGES=(
	linux-source-6.12 gcc make flex bison bc libelf-dev libssl-dev cpio
	xz-utils git rsync qemu-system-x86 busybox-static bpftrace trace-cmd
	libtraceevent-dev libtracefs-dev shellcheck ccache jq python3
	libnuma-dev libcap-dev patch gnuplot-nox libxml2-utils python3-jsonschema python3-yaml
	kmod procps pkg-config coccinelle
)

# Seconds: a TCG guest's boot and setup, in the tests' time; the time of
# a guest command of one's own (exec, --guest-cmd); the time of
# the kernel's own suites.
readonly BOOT_ALLOWANCE=30 GUEST_TIMEOUT=1200 UPSTREAM_TIMEOUT=2400

readonly VARIANTS='patched baseline noknob bench kasan coverage' ACCELS='auto tcg kvm icount'

# Kernel log lines that fail a run: one extended regular expression a line,
# shared with the tests (selftests/mm-frozen/mm_frozen.h).
readonly KERNEL_PROBLEMS_FILE="$MMF_ROOT/selftests/mm-frozen/kernel-problems"

# The mutants of the series ("runner.sh mutants"): a patch each.
readonly MUTANTS_DIR="$MMF_ROOT/tests/mutants"

# The status each test must have, a file per variant (VARIANT.txt).
readonly EXPECTED_DIR="$MMF_ROOT/tests/expected"

. "$MMF_ROOT/lib/core.sh"
. "$MMF_ROOT/lib/source.sh"
. "$MMF_ROOT/lib/patches.sh"
. "$MMF_ROOT/lib/build.sh"
. "$MMF_ROOT/lib/guest.sh"
. "$MMF_ROOT/lib/run.sh"
. "$MMF_ROOT/lib/upstream.sh"
. "$MMF_ROOT/lib/series.sh"
. "$MMF_ROOT/lib/bench.sh"
. "$MMF_ROOT/lib/mutants.sh"
. "$MMF_ROOT/lib/coverage.sh"
. "$MMF_ROOT/lib/callers.sh"

# ---------------------------------------------------------------- options

# OPTION|ARGUMENT|SETS|HELP.  SETS: VAR (VAR=ARGUMENT), VAR=VALUE (a
# switch), VAR+ (ARGUMENT's comma-separated words added to the array VAR).  Every command takes an option
# that no command of the command table claims as its own.
option_table() {
	cat <<EOF
--source|SPEC|SOURCE_SPEC|the tree to apply the series to [default "installed", the installed $SOURCE_PACKAGE]: linux-source-X[=VERSION] (apt-get download, never installed), a tarball, or PATH@REF of a git repository (a shared clone, the repository not written to); trees, builds and results of its own in WORK/sources/NAME
--baseline||VARIANT=baseline|the unpatched tree (a worktree and build directory of its own); same as --variant baseline
--variant|NAME|VARIANT|patched (default), baseline, noknob (patched with CONFIG_DEBUG_FROZEN_PAGES=n), bench (patched without DEBUG_VM and DEBUG_PAGE_REF), kasan (patched with generic KASAN, kmemleak and page_owner) or coverage (patched with gcov on the objects that the series changes), each built in a directory of its own
--drop|PATCH|DROP_ARGS+|the series without PATCH (a file name of patches/series, or its number: 0014); may be repeated; its own worktree, build and results, named drop-NUMBER (VARIANT-drop-NUMBER for a variant other than patched)
--with|FILE|WITH_ARGS+|the series with the patch FILE applied on top; may be repeated; its own worktree, build and results, named with-NAME (NAME: FILE's name without .patch)
--mutant|FILE|MUTANT_ARG|the series with the mutant FILE (a patch of tests/mutants/) on top, in the worktree and build directory that every mutant shares (linux-mutant, variant mutant), so that each rebuilds only what it and the one before touched; results of their own, mutant-NAME
--config|FILE|CONFIG_ARGS+|the config fragment FILE merged after the variant's; may be repeated; its own build and results, named config-NAME (NAME: FILE's name without .config)
--patches|DIR|PATCHES|a patch directory with a "series" file [\$MMF_PATCHES, default patches/ of this repository]
--work|DIR|WORK|the work directory [\$MMF_WORK, default \${XDG_CACHE_HOME:-~/.cache}/mm-frozen]
--results|DIR|RESULTS|the results directory [\$MMF_RESULTS, default the command's, below WORK/results]
--jobs|N|JOBS|parallel build jobs [default: nproc]
--accel|MODE|ACCEL|auto, tcg, kvm or icount [\$MMF_ACCEL, default auto: KVM only if a probe boot under KVM finishes, else TCG; icount: one-thread TCG whose clock counts instructions]
--timeout|SEC|TIMEOUT|kill the guest after SEC seconds [\$MMF_TIMEOUT, default the command's: for the tests the boot timeout plus each program's kselftest timeout (x10 under TCG); for shell none, and with one its guest says so a minute before the end]
--boot-timeout|SEC|BOOT_TIMEOUT|stop the guest if its test entry has not started SEC seconds after qemu did [\$MMF_BOOT_TIMEOUT, default $BOOT_ALLOWANCE (x10 under TCG)]
--stop-at-problem||STOP_AT_PROBLEM=1|stop the guest at its kernel's first problem (a panic, Oops, BUG, WARNING...; looked for every $PROBLEM_POLL s) rather than run the tests to their end: the run's verdict is that problem (exit $E_KERNEL); mutants uses it for each mutant
--dry-run||DRY_RUN=1|check the command line and say what it leads to (the command, source, variant, work and results directories), then stop: nothing run, nothing written
--no-install||NO_INSTALL=1|report missing packages instead of installing them
--no-wait||NO_WAIT=1|fail at once if another run holds the work directory (default: wait for it, saying for whom)
--tests|NAME[,NAME]|TESTS+|run only these programs of the mm-frozen kselftest target (e.g. frozen_hazard_test,plumbing.sh)
--expect|FILE|EXPECT|hold the tests to the statuses that FILE expects (lib/mmfrozen/expected.py) [default: tests/expected/VARIANT.txt when the guest runs the mm-frozen target and it exists]; a test with another status, a missing one and an extra one fail the run
--guest-cmd|CMD|GUEST_CMD|the guest's test entry [\$MMF_GUEST_CMD, default guest-init/tests.sh]
--no-bisect||BISECT=0|build only the tip, not every commit
--no-test||RUN_TESTS=0|stop after the table, no guest run
--merge||MERGE=1|matrix: the arguments are results directories of "runner.sh series" jobs run on their own (CI jobs), merged into one table without a tree or a work directory
--trees|FILE|TREES_FILE|matrix --merge: the trees that had a job ("runner.sh sources --json"): each one without results is a row "missing", and fails the matrix
--record||RECORD=1|expect: write the expectation file from the run rather than compare; bench: write the reference of the timed kernel, bench/reference/RELEASE.json, from a run whose guard passed
--json||JSON=1|print JSON: a list of objects (spec, name, package, version) that a CI matrix reads as it is
EOF
}

# ---------------------------------------------------------------- commands

# The command table, one line a command:
# COMMAND|ARGUMENTS|OPTIONS|FLAGS|RESULTS|TIMEOUT|FUNCTION|HELP|EXAMPLE
#   ARGUMENTS  as --help shows them: none; WORD (one); [WORD] (at most
#              one); WORD... (one or more); [WORD...] (any); "-- CMD..."
#              (the rest of the command line)
#   OPTIONS    its own options, beyond those every command takes
#   FLAGS      lock: takes the work directory's lock; quiet: prints only
#              what its guest command printed
#   RESULTS    its results directory: variant (SRC/results/VARIANT),
#              command (SRC/results/VARIANT-COMMAND), bench
#              (SRC/results/bench), matrix (WORK/results/matrix) or none
#   TIMEOUT    the guest's default timeout: seconds, "tests" (derived
#              from the tests', see guest_timeout), or none (shell)
command_table() {
	cat <<EOF
run||--tests,--guest-cmd|lock|variant|tests|cmd_run|(the default) every stage: packages, source, patches, configure, build, initramfs, boot and test|./runner.sh --tests frozen_hazard_test
deps|||lock|||cmd_deps|check the Debian packages, install the missing ones|./runner.sh deps --no-install
kernel|||lock|command||cmd_kernel|the stages up to the kernel build|./runner.sh kernel --baseline
initramfs|||lock|||cmd_initramfs|build the guest's initramfs only|./runner.sh initramfs
boot||--tests,--guest-cmd|lock|variant|tests|cmd_boot|boot the built kernel and run the tests|./runner.sh boot --tests plumbing.sh
shell|||lock|command||cmd_shell|boot the built kernel to an interactive shell in tracing/, with exec's variables and no time limit but --timeout's|./runner.sh shell
exec|-- CMD...||lock,quiet|command|$GUEST_TIMEOUT|cmd_exec|run CMD in the guest and print its output; exit 0 if it succeeded, $E_TESTS if not (its status is printed and kept in guest/status)|./runner.sh exec -- uname -r
upstream|[SUITE...]||lock|command|$UPSTREAM_TIMEOUT|cmd_upstream|the kernel's own suites (KUnit slub_kunit, mm selftests by run_vmtests.sh category; "full" adds the slow ones) into upstream.tsv|./runner.sh upstream kunit:slub_test mm:cow
upstream-compare||||||cmd_upstream_compare|upstream.tsv beside the baseline's; exit $E_TESTS if a test passes on the baseline and fails or is missing here|./runner.sh upstream-compare
series||--no-bisect,--no-test,--tests,--guest-cmd|lock|command|tests|cmd_series|the series check: how each patch applies, checkpatch.pl --strict, every commit built with the warnings it adds, a table and series.json; then the run on the tip|./runner.sh series --source linux-source-6.12=6.12.107-1~deb12u1
mutants|[NAME...]|--tests,--guest-cmd|lock|command||cmd_mutants|each mutant of tests/mutants/ (or those named), a mistake of a rebase put in the series on purpose: built (run --mutant), run (and bench quick, for a mutant whose Expected-killer is the bench), and classified: killed (the failed tests, or the kernel's problem and the test it came in, or the bench's guard), survived, or did not build; a table and mutants.json; exit $E_TESTS unless every mutant was killed|./runner.sh mutants 0011-memcg-refcounted-free
coverage||--tests,--guest-cmd|lock|variant|tests|cmd_coverage|which lines of the series the tests ran: the coverage variant (gcov on the objects that the series changes) built, booted and tested, then each line that the series changes, by patch and hunk: run by the tests, boot only, never run, no code, compiled out or not built; a table, coverage.json and coverage.html|./runner.sh coverage --tests frozen_pages_test
matrix|SPEC...|--no-bisect,--no-test,--tests,--guest-cmd,--merge,--trees|lock|matrix||cmd_matrix|the series check on each source, one table; exit $E_TESTS if one of them did not pass; with --merge, SPEC... are the results directories of series jobs (--trees: those expected)|./runner.sh matrix installed linux-source-6.1 --no-test
sources||--json||||cmd_sources|the trees a matrix covers: the installed $SOURCE_PACKAGE, every other version apt offers, the newest of ${OTHER_SOURCE_PACKAGES[*]}|./runner.sh sources --json
callers|||lock|command||cmd_callers|the callers in the tree with the series that take or drop a page reference on memory that may come from kmalloc(): the semantic patch cocci/slab_page_ref.cocci run by spatch (seconds), each hit with whether Debian's own config (of its linux-headers package of the same version) builds it, held to its class in docs/callers.md; exit $E_TESTS if a hit is not classified there, a row there is not hit, or its hits or build differ|./runner.sh callers
bench|[quick]|--record|lock|bench||cmd_bench|what the frozen paths save: refcount atomics counted, the cases timed (-icount twice, TCG, KVM if it works); bench.json, a table, bench.png; each case held to the timed kernel's reference (bench/reference/RELEASE.json, 3 % either way) when it was recorded with the same tree, QEMU, config and size, else said; exit $E_TESTS if the guard fails; quick: the patched kernel counted and once under -icount; --record: the icount medians kept as the reference of the timed kernel|./runner.sh bench quick --record
expect||--record||variant||cmd_expect|the tests of the variant's last run (its results) against the statuses it must have (tests/expected/VARIANT.txt, or --expect FILE): each difference; exit $E_TESTS if there is one; --record: that file made from the run, to review by hand|./runner.sh expect --baseline --record
summary||||||cmd_summary|pages and refcount atomics per path, patched beside baseline, from the last runs|./runner.sh summary
check-log|FILE|||||cmd_check_log|the kernel problems in a console or dmesg log; exit $E_KERNEL if there are some|./runner.sh check-log console.log
where|[NAME]|||variant||cmd_where|the paths the options lead to: work, source, tree, build, results; or the one NAME|./runner.sh where build --baseline
clean|||lock|||cmd_clean|remove the work directory: sources, builds, results|./runner.sh clean
help|[markdown]|||||cmd_help|this text; markdown: the README's tables of commands and exit codes|./runner.sh help
EOF
}

# table_field TABLE KEY FIELD: FIELD of KEY's line of TABLE; false when
# there is none.
table_field() {
	"$1" | awk -F '|' -v key="$2" -v field="$3" \
		'$1 == key { print $field; found = 1; exit } END { exit !found }'
}

# command_field COMMAND FIELD: FIELD (1 COMMAND, 2 ARGUMENTS ... 9 EXAMPLE)
command_field() {
	table_field command_table "$@"
}

# option_field OPTION FIELD: FIELD (1 OPTION, 2 ARGUMENT, 3 SETS, 4 HELP)
option_field() {
	table_field option_table "$@"
}

# commands_taking OPTION: the commands whose own option it is.
commands_taking() {
	command_table | awk -F '|' -v option="$1" \
		'index("," $3 ",", "," option ",") { printf "%s%s", sep, $1; sep = " " }'
}

# child_options COMMAND: this run's options for a child runner.sh
# (CHILD_ARGS) but those of other commands that COMMAND does not take, a
# word a line.
child_options() {
	local i=0 option words
	while [ "$i" -lt ${#CHILD_ARGS[@]} ]; do
		option=${CHILD_ARGS[i]} words=1
		[ -z "$(option_field "$option" 2)" ] || words=2
		if [ -z "$(commands_taking "$option")" ] ||
			[[ ,$(command_field "$1" 3), == *,$option,* ]]; then
			printf '%s\n' "${CHILD_ARGS[@]:i:words}"
		fi
		i=$((i + words))
	done
}

# ---------------------------------------------------------------- help

# help_item COLUMN NAME TEXT: "  NAME  TEXT", TEXT folded in a column of
# its own from COLUMN on; a NAME too long for it on a line of its own.
help_item() {
	local column=$1
	if [ ${#2} -gt $((column - 3)) ]; then
		printf '  %s\n%*s' "$2" "$column" ''
	else
		printf '  %-*s ' $((column - 3)) "$2"
	fi
	fold -s -w $((78 - column)) <<< "$3" | sed -e 's/ *$//' -e "2,\$s/^/$(printf '%*s' "$column" '')/"
}

usage() {
	local name args opts help option arg
	printf 'Usage: runner.sh [COMMAND] [ARGUMENTS] [OPTIONS]\n\n'
	printf "Apply patches/ (the frozen-pages series) to Debian's %s,\n" "$SOURCE_PACKAGE"
	printf 'build the kernel, boot it in qemu-system-x86_64 and run the tests in it.\n'
	printf 'Options go before or after the command.\n\nCommands:\n'
	while IFS='|' read -r name args opts _ _ _ _ help _; do
		help_item 20 "$name${args:+ $args}" "$help${opts:+ [$(tr , ' ' <<< "$opts")]}"
	done < <(command_table)
	printf '\nOptions of every command:\n'
	while IFS='|' read -r option arg _ help; do
		[ -z "$(commands_taking "$option")" ] || continue
		help_item 20 "$option${arg:+ $arg}" "$help"
	done < <(option_table)
	help_item 20 '-h, --help' 'this text'
	printf '\nOptions of some commands (in [...] above):\n'
	while IFS='|' read -r option arg _ help; do
		[ -n "$(commands_taking "$option")" ] || continue
		help_item 20 "$option${arg:+ $arg}" "$help"
	done < <(option_table)
	printf '\nExit status (also "outcome" and "exit" in verdict.json, in every outcome):\n'
	while IFS='|' read -r code name help; do
		help_item 29 "$(printf '%-4s %s' "$code" "$name")" "$help"
	done < <(exit_code_table)
}

# The README's tables, from the command table and the exit codes.
# shellcheck disable=SC2016 # the backquotes are markdown's
usage_markdown() {
	local name args opts help example code outcome
	printf '| command | what it does | example |\n|---|---|---|\n'
	while IFS='|' read -r name args opts _ _ _ _ help example; do
		printf '| `%s` | %s | `%s` |\n' "$name${args:+ $args}" \
			"$help${opts:+ ($(sed 's/\([^,]*\)/`\1`/g; s/,/, /g' <<< "$opts"))}" "$example"
	done < <(command_table)
	printf '\n| exit | outcome | meaning |\n|---|---|---|\n'
	while IFS='|' read -r code outcome help; do
		printf '| %s | `%s` | %s |\n' "$code" "$outcome" "$help"
	done < <(exit_code_table)
}

cmd_help() { # cmd_help [markdown]
	case "${1:-}" in
	'') usage ;;
	markdown) usage_markdown ;;
	*) die "$E_USAGE" "help takes markdown or nothing, not $1" ;;
	esac
}

# ---------------------------------------------------------------- parsing

# The options' values, set by parse_args alone; the environment gives
# some defaults.
SOURCE_SPEC='' VARIANT=patched PATCHES=${MMF_PATCHES:-$MMF_ROOT/patches}
WORK=${MMF_WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/mm-frozen} RESULTS=${MMF_RESULTS:-}
JOBS=$(nproc) ACCEL=${MMF_ACCEL:-auto} TIMEOUT=${MMF_TIMEOUT:-} BOOT_TIMEOUT=${MMF_BOOT_TIMEOUT:-}
NO_INSTALL=0 NO_WAIT=0 DRY_RUN=0 EXPECT='' GUEST_CMD=${MMF_GUEST_CMD:-$MMF_ROOT/guest-init/tests.sh}
BISECT=1 RUN_TESTS=1 JSON='' MERGE=0 TREES_FILE='' RECORD=0 STOP_AT_PROBLEM=0
TESTS=() DROP_ARGS=() WITH_ARGS=() CONFIG_ARGS=() MUTANT_ARG='' COMMAND='' ARGS=() QUIET=0
# The options given, with their values but for --source and --results,
# for the child runner.sh of matrix and bench; the options given.
CHILD_ARGS=() GIVEN=()

usage_error() { # usage_error MESSAGE...
	die "$E_USAGE" "$* (runner.sh --help)"
}

# set_option OPTION [VALUE]: the variable the option table names, set.
set_option() {
	local sets words
	sets=$(option_field "$1" 3) || usage_error "unknown argument: $1"
	[ $# = 1 ] || [ -n "$2" ] || usage_error "$1 needs $(option_field "$1" 2)"
	case "$sets" in
	*=*) printf -v "${sets%%=*}" '%s' "${sets#*=}" ;;
	*+) local -n array=${sets%+}; IFS=, read -r -a words <<< "$2"; array+=("${words[@]}") ;;
	*) printf -v "$sets" '%s' "$2" ;;
	esac
	GIVEN+=("$1")
	# a child gets what it is given and does what its parent's command
	# says: not the parent's own --record
	case "$1" in --source|--results|--record) ;; *) CHILD_ARGS+=("$@") ;; esac
}

# parse_args ARG...: COMMAND, its ARGS and the options, which may come
# before or after the command.  "--" ends the options; so does exec's
# first word, which starts the guest's command line.
parse_args() {
	local -a argv=("$@")
	local i=0 arg value
	while [ "$i" -lt ${#argv[@]} ]; do
		arg=${argv[i]}
		i=$((i + 1))
		case "$arg" in
		-h|--help) COMMAND=help ARGS=(); return ;;
		--) ARGS+=("${argv[@]:i}"); return ;;
		-*)
			value=$(option_field "$arg" 2) || value=''
			if [ -z "$value" ]; then
				set_option "$arg"
			elif [ "$i" -lt ${#argv[@]} ]; then
				set_option "$arg" "${argv[i]}"
				i=$((i + 1))
			else
				usage_error "$arg needs $value"
			fi
			;;
		*)
			if [ -z "$COMMAND" ] && command_field "$arg" 1 > /dev/null; then
				COMMAND=$arg
				continue
			fi
			ARGS+=("$arg")
			[ "$COMMAND" != exec ] || { ARGS+=("${argv[@]:i}"); return; }
			;;
		esac
	done
}

# check_command: the command's arguments and options are those its line
# of the table allows.
check_command() {
	local args own option
	args=$(command_field "$COMMAND" 2)
	own=$(command_field "$COMMAND" 3)
	for option in "${GIVEN[@]}"; do
		[ -n "$(commands_taking "$option")" ] || continue
		[[ ,$own, == *,$option,* ]] ||
			usage_error "$COMMAND does not take $option (only $(commands_taking "$option") do)"
	done
	case "$args" in
	'') [ ${#ARGS[@]} = 0 ] || usage_error "unknown argument: ${ARGS[0]} ($COMMAND takes none)" ;;
	'['*'...]') ;;
	'['*) [ ${#ARGS[@]} -le 1 ] || usage_error "$COMMAND takes $args, not: ${ARGS[*]}" ;;
	*...) [ ${#ARGS[@]} -ge 1 ] || usage_error "$COMMAND needs $args: runner.sh $COMMAND $args" ;;
	*) [ ${#ARGS[@]} = 1 ] || usage_error "$COMMAND needs one $args: runner.sh $COMMAND $args" ;;
	esac
}

# check_options: values the options may not take.
check_options() {
	[[ " $ACCELS " == *" $ACCEL "* ]] || usage_error "--accel must be one of: $ACCELS"
	[[ " $VARIANTS " == *" $VARIANT "* ]] || usage_error "--variant must be one of: $VARIANTS"
	[[ $TIMEOUT =~ ^[0-9]*$ ]] || usage_error "--timeout needs a number of seconds"
	[[ $BOOT_TIMEOUT =~ ^([1-9][0-9]*)?$ ]] || usage_error "--boot-timeout needs a positive number of seconds"
	[[ $JOBS =~ ^[1-9][0-9]*$ ]] || usage_error "--jobs needs a positive number"
	[ -z "$TREES_FILE" ] || [ "$MERGE" = 1 ] || usage_error "--trees goes with matrix --merge"
	local changes=$((${#DROP_ARGS[@]} + ${#WITH_ARGS[@]}))
	[ -z "$MUTANT_ARG" ] || changes=$((changes + 1))
	[ "$changes" = 0 ] || [ "$VARIANT" != baseline ] ||
		usage_error "--drop, --with and --mutant change the series, which the baseline does not have"
	[ -z "$MUTANT_ARG" ] || [ "$changes" = 1 ] ||
		usage_error "--mutant is the whole series and the mutant: no --drop, no --with"
	case "$COMMAND" in
	coverage)
		[[ " patched coverage " == *" $VARIANT "* ]] ||
			usage_error "coverage runs the coverage variant, not $VARIANT"
		VARIANT=coverage ;;
	mutants)
		[ "$changes" = 0 ] ||
			usage_error "mutants are the whole series and a mutant each, by name: no --drop, --with or --mutant"
		mutant_files "${ARGS[@]}" > /dev/null ;;
	series|matrix)
		[ "$VARIANT" != baseline ] || usage_error "$COMMAND checks the series, not the baseline"
		[ "$((${#WITH_ARGS[@]} + ${#CONFIG_ARGS[@]}))${MUTANT_ARG}" = 0 ] ||
			usage_error "$COMMAND checks the series as patches/ has it: no --with, --config or --mutant"
		;;
	esac
}

absolute() { # absolute PATH
	case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac
}

# extra_file OPTION FILE SUFFIX: FILE's absolute path; a usage error if
# it is not a readable file or its name without SUFFIX, which names the
# variant, is not a word of letters, digits, ".", "_" and "-".
extra_file() {
	local path
	path=$(absolute "$2")
	[[ -f $path && -r $path ]] || usage_error "$1 $2: no such file"
	[[ $(basename "$path" "$3") =~ ^[A-Za-z0-9._-]+$ ]] ||
		usage_error "$1 $2: its name must be letters, digits, \".\", \"_\" and \"-\""
	printf '%s\n' "$path"
}

# run_name_of VARIANT: the name of a run of the kernel variant VARIANT
# with this run's --drop, --with, --mutant and --config (SERIES_CHANGE,
# CONFIG_CHANGE), which builds in a directory of its own and names its
# results: "patched" goes when something else names it.
run_name_of() {
	[ -n "$SERIES_CHANGE$CONFIG_CHANGE" ] || { echo "$1"; return; }
	printf '%s\n' "$1" "$SERIES_CHANGE" "$CONFIG_CHANGE" |
		grep -v -x -e '' -e patched | paste -s -d -
}

# resolve_run_series: the changes to the series (--drop, --with,
# --mutant) and to the config (--config), each file checked, the names
# they give the run's tree and build (SERIES_CHANGE, CONFIG_CHANGE), and
# the patches the run applies (APPLIED), in order: those of the series
# but for the DROPPED ones, then the WITH files, by path; none on the
# baseline, and none without a series file (applying says so).
resolve_run_series() {
	local drop file
	DROPPED=() WITH=() EXTRA_CONFIG=() SERIES_CHANGE='' CONFIG_CHANGE='' APPLIED=()
	for drop in "${DROP_ARGS[@]}"; do
		DROPPED+=("$(resolve_drop "$PATCHES" "$drop")")
		SERIES_CHANGE="${SERIES_CHANGE:-drop}-${DROPPED[-1]%%-*}"
	done
	for file in "${WITH_ARGS[@]}"; do
		WITH+=("$(extra_file --with "$file" .patch)")
		SERIES_CHANGE+="${SERIES_CHANGE:+-}with-$(basename "${WITH[-1]}" .patch)"
	done
	if [ -n "$MUTANT_ARG" ]; then
		WITH+=("$(extra_file --mutant "$MUTANT_ARG" .patch)")
		SERIES_CHANGE=mutant
	fi
	for file in "${CONFIG_ARGS[@]}"; do
		EXTRA_CONFIG+=("$(extra_file --config "$file" .config)")
		CONFIG_CHANGE+="${CONFIG_CHANGE:+-}config-$(basename "${EXTRA_CONFIG[-1]}" .config)"
	done
	if [ "$VARIANT" != baseline ] && [ -f "$PATCHES/series" ]; then
		mapfile -t APPLIED < <(series_patches "$PATCHES" "${DROPPED[@]}")
		APPLIED+=("${WITH[@]}")
	fi
}

# resolve_run_results: the command's results directory (the command
# table's RESULTS field), unless --results gave one; checked.
resolve_run_results() {
	case "$(command_field "$COMMAND" 5)" in
	variant) RESULTS=${RESULTS:-$SRC_WORK/results/$RUN_NAME${MUTANT_ARG:+-$(basename "${WITH[-1]}" .patch)}} ;;
	command) RESULTS=${RESULTS:-$SRC_WORK/results/$RUN_NAME-$COMMAND} ;;
	bench) RESULTS=${RESULTS:-$SRC_WORK/results/bench} ;;
	matrix) RESULTS=${RESULTS:-$WORK/results/matrix} ;;
	*) RESULTS='' ;;
	esac
	if [ -n "$RESULTS" ]; then
		RESULTS=$(absolute "$RESULTS")
		check_results "$RESULTS"
	fi
}

# resolve_run: what the options lead to, once: the source, the tree, the
# build, the results, the timeout; from here on every option and these
# are read only.  A series changed by --drop or --with has a worktree of
# its own, named by the changes; a config changed by --config, a build
# directory of its own.
resolve_run() {
	local source
	WORK=$(absolute "$WORK")
	PATCHES=$(absolute "$PATCHES")
	if [ -n "$EXPECT" ]; then
		EXPECT=$(absolute "$EXPECT")
		[[ -f $EXPECT && -r $EXPECT ]] || usage_error "--expect $EXPECT: no such file"
	fi
	source=$(resolve_source "$SOURCE_SPEC" "$WORK")
	{ read -r SOURCE_KIND; read -r SOURCE_LABEL; read -r SOURCE_LOCATOR
	  read -r SOURCE_COMMIT; read -r SRC_WORK; } <<< "$source"
	SRC_REPO="$SRC_WORK/linux"
	INITRAMFS="$WORK/initramfs.cpio.gz"
	BRANCH=$PATCHED_BRANCH TREE=$SRC_REPO
	[ "$VARIANT" != baseline ] || TREE="$SRC_WORK/linux-baseline"
	resolve_run_series
	if [ -n "$SERIES_CHANGE" ]; then
		TREE="$SRC_WORK/linux-$SERIES_CHANGE" BRANCH="$PATCHED_BRANCH-$SERIES_CHANGE"
	fi
	RUN_NAME=$(run_name_of "$VARIANT")
	BUILD=$(build_dir "$TREE" "$RUN_NAME")
	KSELFTEST_DIR="$BUILD/kselftest-install"
	resolve_run_results
	GUEST_COMMAND=("$GUEST_CMD" "${TESTS[@]}")
	EXPECTED_FILE=$(expectation_file "$EXPECT" "$RUN_NAME" "$GUEST_CMD")
	[ -z "$EXPECTED_FILE" ] || mmf_py expected check "$EXPECTED_FILE" ||
		usage_error "the expected statuses in $EXPECTED_FILE cannot be read"
	[ -n "$TIMEOUT" ] || [ "$(command_field "$COMMAND" 6)" = tests ] ||
		TIMEOUT=$(command_field "$COMMAND" 6)
	[[ ,$(command_field "$COMMAND" 4), != *,quiet,* ]] || QUIET=1
	readonly SOURCE_SPEC VARIANT PATCHES WORK RESULTS JOBS ACCEL TIMEOUT BOOT_TIMEOUT NO_INSTALL \
		NO_WAIT DRY_RUN EXPECT GUEST_CMD BISECT RUN_TESTS JSON MERGE TREES_FILE RECORD STOP_AT_PROBLEM TESTS DROP_ARGS WITH_ARGS CONFIG_ARGS MUTANT_ARG COMMAND ARGS CHILD_ARGS GIVEN \
		SOURCE_KIND SOURCE_LABEL SOURCE_LOCATOR SOURCE_COMMIT SRC_WORK SRC_REPO \
		INITRAMFS RUN_NAME BRANCH TREE DROPPED WITH APPLIED EXTRA_CONFIG SERIES_CHANGE CONFIG_CHANGE \
		BUILD KSELFTEST_DIR GUEST_COMMAND EXPECTED_FILE QUIET
}

main() {
	set -euo pipefail
	core_init
	parse_args "$@"
	: "${COMMAND:=run}"
	[ "$COMMAND" != help ] || { cmd_help "${ARGS[@]}"; return; }
	check_command
	check_options
	resolve_run
	if [ "$DRY_RUN" = 1 ]; then
		printf 'runner.sh %s%s: %s, variant %s, work %s, results %s\n' "$COMMAND" \
			"${ARGS[*]:+ ${ARGS[*]}}" "$SOURCE_LABEL" "$RUN_NAME" "$WORK" "${RESULTS:-(none)}"
		return
	fi
	# matrix --merge reads results directories only: no work directory
	if [[ ,$(command_field "$COMMAND" 4), == *,lock,* ]] && [ "$MERGE" = 0 ]; then
		lock_work "$WORK" "$COMMAND" "$NO_WAIT"
	fi
	"$(command_field "$COMMAND" 7)" "${ARGS[@]}"
}

# The whole script is read before main runs, so editing runner.sh while
# it runs cannot change a run in progress.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	main "$@"
	exit
fi
