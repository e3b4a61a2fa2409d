#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# runner.sh - apply the frozen-pages series to Debian's linux-source-6.12,
# build the kernel and test it in a QEMU guest.
#
# Run "runner.sh --help" for the commands and options.

set -euo pipefail

MMF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly MMF_ROOT

readonly SOURCE_PACKAGE=linux-source-6.12
readonly SOURCE_TARBALL=/usr/src/linux-source-6.12.tar.xz
readonly BASE_TAG=mm-frozen-base
readonly PATCHED_BRANCH=mm-frozen
readonly GIT_IDENT=(-c user.name=mm-frozen-runner -c user.email=mm-frozen@localhost)

# The last line: what some of the kernel's mm selftests link with, and
# what draws the bench's plot.
readonly REQUIRED_PACKAGES=(
	linux-source-6.12 gcc make flex bison bc libelf-dev libssl-dev cpio
	xz-utils git rsync qemu-system-x86 busybox-static bpftrace trace-cmd
	libtraceevent-dev libtracefs-dev shellcheck ccache jq python3
	libnuma-dev libcap-dev patch gnuplot-nox
)

# Exit codes, also listed in --help; 130 and 143 after SIGINT and SIGTERM.
readonly E_TESTS=1 E_USAGE=2 E_PACKAGES=3 E_PATCH=4 E_BUILD=5 E_HANG=6
readonly E_KERNEL=7 E_SERIES=8 E_INTERNAL=9 E_GUEST=10 E_BUSY=11

# Seconds: a TCG guest's boot and setup, in the tests' time; the time of
# a guest command of one's own (exec, --guest-cmd).
readonly BOOT_ALLOWANCE=300 GUEST_TIMEOUT=1200

# Kernel log lines that fail a run: one extended regular expression a line,
# shared with the tests (selftests/mm-frozen/mm_frozen.h).
readonly KERNEL_PROBLEMS_FILE="$MMF_ROOT/selftests/mm-frozen/kernel-problems"

usage() {
	cat <<EOF
Usage: runner.sh [OPTIONS] [COMMAND]

Apply patches/ (the frozen-pages series) to Debian's $SOURCE_PACKAGE,
build the kernel, boot it in qemu-system-x86_64 and run the tests in it.

Commands:
  run            (default) every stage: packages, source, patches,
                 configure, build, initramfs, boot and test
  deps           check the Debian packages, install the missing ones
  kernel         stages up to and including the kernel build
  initramfs      build the guest initramfs only
  boot           boot the already built kernel and run the tests
  shell          boot the built kernel to an interactive shell
  exec -- CMD..  run one command in the guest and print its output; exit
                 0 if it succeeded, $E_TESTS if it failed (its status is printed
                 and kept in guest/status), else the runner's own codes
  upstream [SUITE..]  the kernel's own suites (KUnit slub_kunit, the mm
                 selftests by run_vmtests.sh category) in the guest;
                 results in WORK/results/VARIANT-upstream/upstream.tsv
  upstream-compare  those results beside the baseline's; exit 1 if a
                 test passes on the baseline and fails or is missing here
  series         the series check: how each patch applies (applies,
                 3-way, in-tree, conflict), checkpatch.pl --strict on
                 each, every commit built with the warnings it adds, a
                 table and series.json; then the usual run on the tip
  matrix SPEC..  the series check on each source, then one table; exit
                 $E_TESTS if one of them did not pass
  bench [quick]  what the frozen paths save: refcount atomics counted on
                 the patched kernel, then the cases timed on a kernel
                 without DEBUG_VM (-icount twice, TCG, KVM if it works),
                 a lock RMW on the host; bench.json, a table, bench.png;
                 exit 1 if the guard fails.  quick: the patched kernel
                 only, counted and once under -icount (make check)
  summary        the table of pages and refcount atomics per path,
                 patched vs baseline, from the last runs' counts.json
  check-log FILE scan a console or dmesg log for kernel problems
  where [NAME]   the paths these options lead to: work, source (the
                 source repository), tree, build, results; one by NAME
  clean          remove the work directory (sources, builds, results)

Options:
  --source SPEC       the tree to apply the series to [default:
                      "installed", the installed $SOURCE_PACKAGE]: linux-source-X[=VERSION]
                      (apt-get download, never installed), a tarball, or
                      PATH@REF of a git repository (a shared clone; the
                      repository is not written to); trees, builds and
                      results of its own in WORK/sources/NAME
  --no-bisect         series: build only the tip, not every commit
  --no-test           series: stop after the table, no guest run
  --baseline          use the unpatched tree (own source worktree and
                      build directory); same as --variant baseline
  --variant NAME      patched (default), baseline, noknob: patched
                      with CONFIG_DEBUG_FROZEN_PAGES=n, or bench: patched
                      without DEBUG_VM and DEBUG_PAGE_REF (each its own
                      build directory)
  --work DIR          work directory [\$MMF_WORK, default
                      \${XDG_CACHE_HOME:-~/.cache}/mm-frozen]
  --results DIR       results directory [\$MMF_RESULTS, default
                      WORK/results/VARIANT]
  --patches DIR       patch directory with a "series" file
                      [\$MMF_PATCHES, default: patches/ of this repository]
  --guest-cmd CMD     the guest's test entry for run/boot [\$MMF_GUEST_CMD,
                      default guest-init/tests.sh]
  --tests NAME[,NAME] run only these programs of the mm-frozen kselftest
                      target (e.g. frozen_hazard_test,plumbing.sh)
  --drop PATCH        the patched series without PATCH (a file name of
                      patches/series, or its number: --drop 0014); may be
                      repeated; own worktree, build and results, named
                      drop-NUMBER
  --timeout SEC       kill the guest after SEC seconds [\$MMF_TIMEOUT;
                      default for the tests: $BOOT_ALLOWANCE plus each program's
                      kselftest timeout (settings, x10 under TCG);
                      exec, shell, --guest-cmd $GUEST_TIMEOUT; upstream 2400]
  --accel MODE        auto, tcg, kvm or icount [\$MMF_ACCEL, default auto:
                      KVM only if a probe boot under KVM finishes, else
                      TCG; icount: one-thread TCG whose clock counts
                      instructions, -icount shift=0,sleep=off]
  --jobs N            parallel build jobs [default: nproc]
  --no-install        report missing packages instead of installing them
  --no-wait           fail at once if another run holds the work directory
                      (default: wait for it, saying for whom)
  -h, --help          this text

Exit status: 0 all tests passed; $E_TESTS a test failed; $E_USAGE usage error;
$E_PACKAGES missing packages; $E_PATCH a patch does not apply; $E_BUILD configure or build
failure; $E_HANG the guest did not finish in time; $E_KERNEL kernel panic, Oops,
BUG, WARNING... in the guest's log; $E_SERIES a patch adds compiler warnings
or checkpatch errors; $E_INTERNAL internal error (the failing command is shown);
$E_GUEST qemu failed, or the guest stopped before its command finished;
$E_BUSY the work directory is in use (--no-wait); 130, 143 interrupted by
SIGINT, SIGTERM.  verdict.json says which, in every outcome.
EOF
}

# ---------------------------------------------------------------- output

now() { date +%s.%N; }

elapsed() { # elapsed START -> seconds with one decimal
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'
}

STAGE_NO=0
STAGE_NAME=
STAGE_T0=
RUN_T0=$(now)
QUIET=0

say() { [ "$QUIET" = 1 ] || printf '%s\n' "$*"; }

# Each run has a directory of its own for temporary files (TMPDIR, so that
# every mktemp lands there), removed when the run ends, however it ends.
RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/mm-frozen-run.XXXXXX")
export TMPDIR=$RUN_TMP

die() { # die CODE MESSAGE...
	local code=$1
	shift
	printf 'runner.sh: error: %s\n' "$*" >&2
	# A die in a command substitution ends only its subshell: on_err
	# passes the code on instead of calling it an internal error.
	echo "$code" >> "$RUN_TMP/died"
	exit "$code"
}

# An unanticipated failure (set -e): one code of its own, E_INTERNAL, with
# the command that failed; a code that die gave, passed on as it is.
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

# The process groups of the build and of the guest, when they run.
CHILD_GROUPS=()

# shellcheck disable=SC2317 # stop_children to on_exit: called by traps
stop_children() {
	local pgid
	for pgid in "${CHILD_GROUPS[@]}"; do
		# the leader alone, if it has not made its group yet
		kill -TERM -- "-$pgid" 2>/dev/null || kill -TERM "$pgid" 2>/dev/null || true
	done
	for pgid in "${CHILD_GROUPS[@]}"; do
		wait_for_group "$pgid" 10 || kill -KILL -- "-$pgid" 2>/dev/null || true
	done
	CHILD_GROUPS=()
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

# SIGINT and SIGTERM: stop what runs, keep the results, exit 128+signal.
# shellcheck disable=SC2317
on_signal() { # on_signal NAME NUMBER
	trap - INT TERM
	printf '\nrunner.sh: %s: stopping\n' "$1" >&2
	exit $((128 + $2))
}

# Whatever the end: the children stopped, the report of the command
# (EXIT_REPORT) and the verdict written, the temporary files removed.
# shellcheck disable=SC2317
on_exit() {
	local status=$?
	trap - ERR INT TERM
	stop_children
	[ -z "$EXIT_REPORT" ] || "$EXIT_REPORT" "$status" || true
	[ "$RESULTS_READY" = 0 ] || finish_verdict "$status" || true
	rm -rf "$RUN_TMP" "${CLEANUP[@]}"
	exit "$status"
}

# What an exit status says happened, in verdict.json.
# shellcheck disable=SC2317
outcome_of() {
	case "$1" in
	0) echo passed ;;
	"$E_TESTS") echo tests-failed ;;
	"$E_USAGE") echo usage-error ;;
	"$E_PACKAGES") echo missing-packages ;;
	"$E_PATCH") echo patch-does-not-apply ;;
	"$E_BUILD") echo build-failed ;;
	"$E_HANG") echo guest-timeout ;;
	"$E_KERNEL") echo kernel-problem ;;
	"$E_SERIES") echo series-adds-warnings ;;
	"$E_GUEST") echo guest-failed ;;
	"$E_BUSY") echo work-directory-busy ;;
	130|143) echo interrupted ;;
	*) echo internal-error ;;
	esac
}

# verdict.json in every outcome: the tests' verdict (ktap_verdict) when
# there is one, with how the run ended and its exit status.
# shellcheck disable=SC2317
finish_verdict() {
	local status=$1 json="$RESULTS/verdict.json" tmp
	tmp=$(mktemp)
	[ -s "$json" ] || jq -n --arg variant "$VARIANT" '{ variant: $variant }' > "$json"
	jq --arg outcome "$(outcome_of "$status")" --argjson exit "$status" \
		--slurpfile guest <(cat "$RESULTS/guest/status" 2>/dev/null) \
		'. + { outcome: $outcome, exit: $exit }
		 + (if $guest[0] != null then { guest_status: $guest[0] } else {} end)' \
		"$json" > "$tmp" && mv "$tmp" "$json"
}

RESULTS_READY=0
EXIT_REPORT=
CLEANUP=()
# The work directory's lock; until it is taken, a descriptor that
# children can close as well ({LOCK_FD}>&-), so that a build or a guest
# left by a killed run does not keep the lock.
exec {LOCK_FD}< /dev/null

# One run per work directory: a second one waits, saying for whom, or
# with --no-wait fails at once.  The kernel drops the lock of a run that
# was killed.
lock_work() {
	local holder
	mkdir -p "$WORK"
	exec {LOCK_FD}>> "$WORK/.lock"
	if ! flock -n "$LOCK_FD"; then
		holder=$(head -n 1 "$WORK/.lock" 2>/dev/null)
		[ "$NO_WAIT" = 0 ] ||
			die "$E_BUSY" "$WORK is in use by ${holder:-another runner.sh}"
		printf 'runner.sh: %s is in use by %s; waiting for it (--no-wait fails at once)\n' \
			"$WORK" "${holder:-another runner.sh}" >&2
		flock "$LOCK_FD"
	fi
	printf 'pid %s, since %s: runner.sh %s\n' "$$" "$(date +%T)" "$COMMAND" > "$WORK/.lock"
}
set -E
trap 'on_err "$LINENO" "$BASH_COMMAND"' ERR
trap on_exit EXIT
trap 'on_signal SIGINT 2' INT
trap 'on_signal SIGTERM 15' TERM

stage() {
	stage_end
	STAGE_NO=$((STAGE_NO + 1))
	STAGE_NAME=$1
	STAGE_T0=$(now)
	say "[$STAGE_NO] $STAGE_NAME  (+$(elapsed "$RUN_T0")s)"
}

stage_end() {
	[ -n "$STAGE_NAME" ] || return 0
	local took
	took=$(elapsed "$STAGE_T0")
	say "    done in ${took}s"
	if [ "$RESULTS_READY" = 1 ]; then
		printf '%s\t%s\t%s\n' "$STAGE_NO" "$STAGE_NAME" "$took" \
			>> "$RESULTS/stages.tsv"
	fi
	STAGE_NAME=
}

# ---------------------------------------------------------------- stages

check_packages() {
	local missing=() pkg
	for pkg in "${REQUIRED_PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$pkg")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		say "    all ${#REQUIRED_PACKAGES[@]} packages present"
		return
	fi
	say "    missing: ${missing[*]}"
	if [ "$NO_INSTALL" = 1 ] || [ "$(id -u)" != 0 ]; then
		die "$E_PACKAGES" "missing Debian packages; install them with:" \
			"apt-get install ${missing[*]}"
	fi
	mkdir -p "$WORK"
	say "    installing with apt-get (log: $WORK/apt.log)"
	if ! { apt-get update &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"; } \
		> "$WORK/apt.log" 2>&1; then
		tail -n 20 "$WORK/apt.log" >&2
		die "$E_PACKAGES" "apt-get could not install: ${missing[*]}"
	fi
}

# ---------------------------------------------------------------- sources

# --source SPEC names the tree the series goes on: none or "installed" for
# the installed $SOURCE_PACKAGE; PACKAGE[=VERSION] for a Debian linux-source package,
# fetched with apt-get download and unpacked, never installed; the path of
# a source tarball; or PATH@REF for a commit of a local git repository.
# Each source other than the installed one has a directory of its own,
# WORK/sources/NAME, for its trees, builds and results.
resolve_source() {
	local spec=$SOURCE_SPEC name
	case "$spec" in
	''|installed)
		SOURCE_KIND=installed
		SRC_WORK=$WORK
		return
		;;
	linux-source-*)
		SOURCE_KIND=deb
		DEB_PACKAGE=${spec%%=*}
		DEB_VERSION=${spec#*=}
		if [ "$DEB_VERSION" = "$spec" ]; then
			DEB_VERSION=$(apt-cache policy "$DEB_PACKAGE" 2>/dev/null |
				awk '$1 == "Candidate:" { print $2 }')
		fi
		case "$DEB_VERSION" in
		''|'(none)') die "$E_USAGE" "--source $spec: apt knows no version of $DEB_PACKAGE" ;;
		esac
		apt-cache madison "$DEB_PACKAGE" | awk -F ' *[|] *' -v v="$DEB_VERSION" '$2 == v { found = 1 } END { exit !found }' ||
			die "$E_USAGE" "--source $spec: apt knows no version $DEB_VERSION of" \
				"$DEB_PACKAGE (apt-cache madison $DEB_PACKAGE lists them)"
		name="${DEB_PACKAGE}_$DEB_VERSION"
		;;
	*@*)
		[ -d "${spec%@*}" ] || die "$E_USAGE" "--source $spec: ${spec%@*} is not a directory"
		SOURCE_KIND=git
		GIT_PATH=$(cd "${spec%@*}" && pwd)
		GIT_REF=${spec##*@}
		GIT_COMMIT=$(git -C "$GIT_PATH" rev-parse -q --verify "$GIT_REF^{commit}") ||
			die "$E_USAGE" "--source $spec: $GIT_REF is not a commit of $GIT_PATH"
		name="git-$(basename "$GIT_PATH")-$GIT_REF"
		;;
	*)
		[ -f "$spec" ] || die "$E_USAGE" "--source $spec: not a linux-source package," \
			"a tarball or PATH@REF of a git repository"
		SOURCE_KIND=tarball
		TARBALL=$(realpath "$spec")
		name=$(basename "$TARBALL")
		name=${name%.tar*}
		;;
	esac
	SRC_WORK="$WORK/sources/$(printf '%s' "$name" | tr -c 'A-Za-z0-9._+-' '_')"
}

# What the base commit's tag records: a source whose id changed (apt
# installed another linux-source, the tarball or the ref moved) is
# unpacked again.
source_id() {
	case "$SOURCE_KIND" in
	installed) printf '%s %s\n' "$SOURCE_PACKAGE" "$(dpkg-query -W -f='${Version}' "$SOURCE_PACKAGE")" ;;
	deb) printf '%s %s\n' "$DEB_PACKAGE" "$DEB_VERSION" ;;
	tarball) printf 'tarball %s %s\n' "$TARBALL" "$(stat -c '%s %Y' "$TARBALL")" ;;
	git) printf 'git %s %s\n' "$GIT_PATH" "$GIT_COMMIT" ;;
	esac
}

source_label() {
	if [ "$SOURCE_KIND" = installed ]; then
		printf '%s (installed)\n' "$SOURCE_PACKAGE"
	else
		printf '%s\n' "$SOURCE_SPEC"
	fi
}

# fetch_deb: sets TARBALL to the kernel tarball of the package, which is
# downloaded into WORK/downloads (and kept there) and unpacked beside it.
fetch_deb() {
	local dir="$WORK/downloads" deb
	deb="$dir/${DEB_PACKAGE}_${DEB_VERSION//:/%3a}_all.deb"
	mkdir -p "$dir"
	if [ ! -f "$deb" ]; then
		say "    apt-get download $DEB_PACKAGE=$DEB_VERSION (log: $dir/download.log)"
		if ! (cd "$dir" && apt-get download "$DEB_PACKAGE=$DEB_VERSION") > "$dir/download.log" 2>&1; then
			tail -n 5 "$dir/download.log" >&2
			die "$E_PACKAGES" "apt-get download $DEB_PACKAGE=$DEB_VERSION failed"
		fi
	fi
	rm -rf "$dir/unpacked"
	dpkg-deb -x "$deb" "$dir/unpacked"
	TARBALL=$(find "$dir/unpacked/usr/src" -maxdepth 1 -name 'linux-source-*.tar.*' | head -n 1)
	[ -n "$TARBALL" ] || die "$E_PACKAGES" "$deb holds no linux-source tarball"
}

# import_tarball DIR: the tarball's tree as the first commit of a new git
# repository in DIR.
import_tarball() {
	[ -r "$TARBALL" ] || die "$E_PACKAGES" "$TARBALL not found"
	say "    unpacking $TARBALL"
	tar -xf "$TARBALL" -C "$1" --strip-components=1
	# Debian's tarball ships a .gitignore that ignores the whole top
	# level: force the add so the base commit holds every file.
	git -C "$1" init -q -b "$BASE_TAG-branch"
	git -C "$1" add -f -A .
	git -C "$1" "${GIT_IDENT[@]}" commit -q -m "$(source_id) (pristine)"
}

# import_git DIR: a clone of the user's repository that borrows its
# objects (git clone --shared) and writes nothing to it.
import_git() {
	say "    git clone --shared $GIT_PATH, checkout $GIT_REF ($GIT_COMMIT)"
	git clone -q --shared --no-checkout --no-tags "$GIT_PATH" "$1"
	git -C "$1" checkout -q --detach "$GIT_COMMIT"
}

# The pristine tree, as a git repository whose base commit is tagged
# $BASE_TAG with the source's id.  A 3-way merge of a patch needs the
# blobs it was made on: a source other than the installed one borrows the
# installed source's objects, when they are there.
prepare_source() {
	local id tmp default_objects="$WORK/linux/.git/objects"
	id=$(source_id)
	if [ -d "$SRC_REPO/.git" ] &&
	   [ "$(git -C "$SRC_REPO" tag -l --format='%(contents:subject)' "$BASE_TAG")" = "$id" ]; then
		say "    $SRC_REPO: $id (already unpacked)"
		return
	fi
	if [ -e "$SRC_REPO" ]; then
		say "    $SRC_REPO holds another source: replacing it"
		rm -rf "$SRC_REPO" "$SRC_WORK"/linux-*
	fi
	[ "$SOURCE_KIND" != deb ] || fetch_deb
	mkdir -p "$SRC_WORK"
	tmp=$(mktemp -d "$SRC_WORK/unpack.XXXXXX")
	case "$SOURCE_KIND" in
	installed) TARBALL=$SOURCE_TARBALL; import_tarball "$tmp" ;;
	deb) import_tarball "$tmp"; rm -rf "$WORK/downloads/unpacked" ;;
	tarball) import_tarball "$tmp" ;;
	git) import_git "$tmp" ;;
	esac
	git -C "$tmp" "${GIT_IDENT[@]}" tag -f -a -m "$id" "$BASE_TAG" >/dev/null
	if [ "$SOURCE_KIND" != installed ] && [ -d "$default_objects" ]; then
		printf '%s\n' "$default_objects" >> "$tmp/.git/objects/info/alternates"
	fi
	mv "$tmp" "$SRC_REPO"
	say "    $SRC_REPO: $id"
}

# checkout_worktree DIR COMMIT: DIR as a worktree of the source repository,
# detached at COMMIT.  An existing one is moved, not recreated, so the
# build directory inside it stays and rebuilds only what changed.
checkout_worktree() {
	if git -C "$1" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		git -C "$1" checkout -q -f --detach "$2"
		return
	fi
	rm -rf "$1"
	git -C "$SRC_REPO" worktree prune
	git -C "$SRC_REPO" worktree add -q --detach "$1" "$2"
	say "    created worktree $1 at $(git -C "$1" describe --always --tags)"
}

prepare_baseline_tree() {
	checkout_worktree "$BASELINE_TREE" "$BASE_TAG"
	say "    $BASELINE_TREE: pristine $BASE_TAG"
}

# A series with patches dropped is applied in a worktree of its own, so
# that switching between it and the whole series rebuilds neither.
prepare_series_tree() {
	if [ "$TREE" != "$SRC_REPO" ] && ! git -C "$TREE" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		checkout_worktree "$TREE" "$BASE_TAG"
	fi
}

# The patch file names that the series file lists, in order.
listed_patches() {
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$PATCHES/series"
}

# The patches to apply: those listed, but for the ones --drop names.
series_patches() {
	listed_patches | grep -v -x -F -f <(printf '%s\n' "${DROPPED[@]}")
}

# ---------------------------------------------------------------- apply check

# index_apply INDEX ARGS...: git apply on a scratch index of the tree.
index_apply() {
	GIT_INDEX_FILE=$1 git -C "$TREE" apply --cached "${@:2}"
}

# reverses_from INDEX I PATCH...: whether patches I.. of the list are all in
# the tree already, the last one on top: they apply in reverse, in
# reverse order.
reverses_from() {
	local copy i ok=0
	copy=$(mktemp)
	cp "$1" "$copy"
	for ((i = $# - 3; i >= $2; i--)); do
		index_apply "$copy" -R "$PATCHES/${*:i+3:1}" 2>/dev/null || { ok=1; break; }
	done
	rm -f "$copy"
	return "$ok"
}

# conflict_hunks INDEX PATCH ERRORS: "FILE: hunks at LINE, LINE" for each
# file of PATCH with hunks that do not apply to the scratch index, and
# "FILE: missing" or "FILE: exists" from git apply's ERRORS.  GNU patch,
# without fuzz, finds the hunks on the files as the index has them: git
# apply stops at a file's first failing hunk.
conflict_hunks() {
	local dir f
	dir=$(mktemp -d)
	while read -r f; do
		mkdir -p "$dir/$(dirname "$f")"
		GIT_INDEX_FILE=$1 git -C "$TREE" show ":$f" > "$dir/$f" 2>/dev/null || rm -f "$dir/$f"
	done < <(git -C "$TREE" apply --numstat "$2" | cut -f3)
	{
		patch -p1 -f -F0 --dry-run -d "$dir" < "$2" 2>&1 | awk '
			/^checking file / { file = substr($0, 15) }
			/^Hunk #[0-9]+ FAILED at / { at[file] = at[file] (at[file] == "" ? "" : ", ") $5 + 0 }
			END { for (f in at) printf "%s: hunks at %s\n", f, at[f] }'
		sed -n -e 's/^error: \([^:]*\): does not exist in index$/\1: missing/p' \
			-e 's/^error: \([^:]*\): already exists in index$/\1: exists/p' "$3"
	} | sort
	rm -rf "$dir"
}

# check_apply OUT: how each patch applies, in order, on a scratch index
# that starts at $BASE_TAG and takes each patch that applies; the work
# tree is not touched.  One "PATCH <TAB> STATUS <TAB> DETAIL" line each:
#   applies   git apply takes it as it is
#   in-tree   the tree has it already: it applies in reverse, alone, or
#             with every patch after it (a tree that holds the series)
#   3-way     only a 3-way merge takes it
#   conflict  none of these; DETAIL names the files and hunks
# Stops after the first conflict, and then returns 1.
check_apply() {
	local out=$1 index three err names=() i p hunks
	mapfile -t names < <(series_patches)
	index=$(mktemp)
	three=$(mktemp)
	err=$(mktemp)
	: > "$out"
	GIT_INDEX_FILE=$index git -C "$TREE" read-tree "$BASE_TAG"
	for ((i = 0; i < ${#names[@]}; i++)); do
		p=$PATCHES/${names[i]}
		if index_apply "$index" "$p" 2> "$err"; then
			printf '%s\tapplies\t\n' "${names[i]}"
		elif index_apply "$index" -R --check "$p" 2>/dev/null; then
			printf '%s\tin-tree\tapplies in reverse\n' "${names[i]}"
		elif reverses_from "$index" "$i" "${names[@]}"; then
			printf '%s\tin-tree\tthe series from here applies in reverse\n' "${names[@]:i}"
			break
		elif cp "$index" "$three" && index_apply "$three" -3 "$p" >/dev/null 2>&1; then
			cp "$three" "$index"
			printf '%s\t3-way\t\n' "${names[i]}"
		else
			hunks=$(conflict_hunks "$index" "$p" "$err" | paste -s -d ';' | sed 's/;/; /g')
			printf '%s\tconflict\t%s\n' "${names[i]}" "${hunks:-see git apply}"
			break
		fi
	done >> "$out"
	rm -f "$index" "$three" "$err"
	! grep -q -P '\tconflict\t' "$out"
}

# The stamp lists the applied patches, one "sha256 <TAB> commit" line
# each (a patch already in the tree has the commit before it).  A changed
# series keeps the commits of its unchanged leading patches and applies
# the rest from there, so the build recompiles only what the changed
# patches touch.
applied_stamp() {
	printf '%s\n' "$SRC_REPO/.git/mm-frozen-applied"
}

# kept_patches HASH...: how many leading patches of the new series the tree
# holds already; 0 unless HEAD is where the last run left it.
kept_patches() {
	local stamp n=0 hash
	stamp=$(applied_stamp)
	if [ ! -s "$stamp" ] ||
	   [ "$(tail -n 1 "$stamp" | cut -f2)" != "$(git -C "$TREE" rev-parse HEAD)" ]; then
		echo 0
		return
	fi
	while IFS=$'\t' read -r hash _; do
		if [ "$n" -ge $# ] || [ "$hash" != "${*:n+1:1}" ]; then
			break
		fi
		n=$((n + 1))
	done < "$stamp"
	echo "$n"
}

# die_conflict STATUS-FILE: the first conflict that check_apply found.
die_conflict() {
	local p detail
	IFS=$'\t' read -r p _ detail < <(grep -P '\tconflict\t' "$1")
	die "$E_PATCH" "patch $p does not apply on $BASE_TAG" \
		"(after the patches before it); conflicting files:" \
		"$(printf '%s\n' "$detail" | tr ';' '\n' | sed 's/^ *//; s/: \(.*\)/ (\1)/' | paste -s -d ',' | sed 's/,/, /g')"
}

# Each patch as check_apply found it: "git am", "git am -3", or not at all
# for one the tree has already.
apply_patches() {
	local stamp p names=() hashes=() kept start i statuses status in_tree=0
	stamp=$(applied_stamp)
	[ -f "$PATCHES/series" ] || die "$E_PATCH" "no series file in $PATCHES"
	mapfile -t names < <(series_patches)
	[ ${#names[@]} -gt 0 ] || die "$E_PATCH" "no patches to apply in $PATCHES/series"
	for p in "${names[@]}"; do
		[ -f "$PATCHES/$p" ] || die "$E_PATCH" "series lists $p, not found in $PATCHES"
		hashes+=("$(sha256sum < "$PATCHES/$p" | cut -d' ' -f1)")
	done
	kept=$(kept_patches "${hashes[@]}")
	if [ "$kept" = "${#names[@]}" ] && [ "$(wc -l < "$stamp")" = "$kept" ]; then
		say "    ${#names[@]} patches already applied (branch $BRANCH)"
		return
	fi
	if [ -n "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]; then
		die "$E_PATCH" "$TREE has uncommitted changes and the series" \
			"changed; commit or discard them first"
	fi
	statuses=$(mktemp)
	check_apply "$statuses" || die_conflict "$statuses"
	start=$BASE_TAG
	[ "$kept" = 0 ] || start=$(sed -n "${kept}p" "$stamp" | cut -f2)
	git -C "$TREE" am --abort >/dev/null 2>&1 || true
	git -C "$TREE" checkout -q -B "$BRANCH" "$start"
	if [ "$kept" = 0 ]; then
		: > "$stamp"
	else
		sed -i "$((kept + 1)),\$d" "$stamp"
	fi
	for ((i = kept; i < ${#names[@]}; i++)); do
		status=$(sed -n "$((i + 1))p" "$statuses" | cut -f2)
		case "$status" in
		applies) git -C "$TREE" "${GIT_IDENT[@]}" am -q "$PATCHES/${names[i]}" ;;
		3-way) git -C "$TREE" "${GIT_IDENT[@]}" am -q -3 "$PATCHES/${names[i]}" ;;
		in-tree) in_tree=$((in_tree + 1)) ;;
		esac || die "$E_PATCH" "git am failed on ${names[i]} (the check passed; see above)"
		printf '%s\t%s\n' "${hashes[i]}" "$(git -C "$TREE" rev-parse HEAD)" >> "$stamp"
	done
	rm -f "$statuses"
	say "    of ${#names[@]} patches: kept $kept, applied $((${#names[@]} - kept - in_tree))," \
		"already in the tree $in_tree (branch $BRANCH)"
}

# The kselftest target lives in this repository; the tree gets a copy as
# tools/testing/selftests/mm-frozen (untracked, so the build stamps ignore
# it), with the tracing/ scripts inside for its tracing test, and
# "make kselftest TARGETS=mm-frozen" runs it from there.  rsync keeps the
# files' times, so that make rebuilds only what was edited.
install_selftests() {
	local dest="$TREE/tools/testing/selftests/mm-frozen"

	mkdir -p "$dest"
	rsync -a --delete --exclude tracing "$MMF_ROOT/selftests/mm-frozen/" "$dest/"
	rsync -a --delete "$MMF_ROOT/tracing/" "$dest/tracing/"
	say "    $dest"
}

# The mm-frozen kselftests and their test modules, built and installed on
# the host (KSELFTEST_DIR): the guest only runs them, with the installed
# run_kselftest.sh.  Under TCG the guest needs over a minute to build them.
build_selftests() {
	local log="$BUILD/kselftest.log"

	say "    make -C tools/testing/selftests TARGETS=mm-frozen install (log: $log)"
	if ! MMF_BUILD=$BUILD make -C "$TREE/tools/testing/selftests" O="$BUILD" \
		TARGETS=mm-frozen INSTALL_PATH="$KSELFTEST_DIR" install > "$log" 2>&1; then
		show_build_failure "$log"
		die "$E_BUILD" "the mm-frozen kselftests did not build; log: $log"
	fi
	say "    installed in $KSELFTEST_DIR"
}

# The config fragments, in the order they are merged: a later one
# overrides an earlier one.  A series with patches dropped is configured
# as the whole series, with a release name of its own.
config_fragments() {
	printf '%s\n' "$MMF_ROOT/config/mm-frozen.config"
	if [ -f "$MMF_ROOT/config/variant-$CONFIG_VARIANT.config" ]; then
		printf '%s\n' "$MMF_ROOT/config/variant-$CONFIG_VARIANT.config"
	fi
	if [ "$VARIANT" != "$CONFIG_VARIANT" ]; then
		mkdir -p "$BUILD"
		printf 'CONFIG_LOCALVERSION="-mm-frozen-%s"\n' "$VARIANT" > "$BUILD/release.config"
		printf '%s\n' "$BUILD/release.config"
	fi
}

config_hash() {
	{
		config_fragments | xargs cat
		git -C "$TREE" rev-parse HEAD
	} | sha256sum | cut -d' ' -f1
}

# Every option the fragments set, as the last fragment setting it says,
# must be in the final .config: Kconfig drops an option whose
# dependencies are unmet without a word.  With patches dropped, an option
# that no Kconfig file of the tree defines is not checked: a dropped patch
# may be what adds it.
verify_config() {
	local line name defined='' missing=() undefined=()
	if [ "$VARIANT" != "$CONFIG_VARIANT" ]; then
		defined=$(git -C "$TREE" grep -h -E '^(menu)?config [A-Z0-9_]+$' -- '*Kconfig*' |
			sed 's/^[a-z]* /CONFIG_/')
	fi
	while read -r line; do
		name=${line#"# "}
		name=${name%%[= ]*}
		if [ -n "$defined" ] && ! grep -q -x -F "$name" <<< "$defined"; then
			undefined+=("$name")
			continue
		fi
		case "$line" in
		CONFIG_*=*)
			grep -qxF "$line" "$BUILD/.config" || missing+=("$line")
			;;
		"# CONFIG_"*" is not set")
			! grep -q "^$name=" "$BUILD/.config" || missing+=("$line")
			;;
		esac
	done < <(config_fragments | xargs cat | awk '
		match($0, /^(# )?CONFIG_[A-Za-z0-9_]+/) {
			name = substr($0, RSTART, RLENGTH); sub(/^# /, "", name)
			if (!(name in last)) order[++n] = name
			last[name] = $0
		}
		END { for (i = 1; i <= n; i++) print last[order[i]] }')
	[ ${#undefined[@]} = 0 ] || say "    not defined in this tree, not checked: ${undefined[*]}"
	if [ ${#missing[@]} -gt 0 ]; then
		printf '    not in the final .config: %s\n' "${missing[@]}" >&2
		die "$E_BUILD" "the config fragment asks for options Kconfig did not set" \
			"(unmet dependencies?); see $BUILD/config.log"
	fi
}

configure_kernel() {
	local hash stamp="$BUILD/.mm-frozen-config"
	hash=$(config_hash)
	mkdir -p "$BUILD"
	if [ -f "$BUILD/.config" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then
		say "    $BUILD/.config up to date"
		return
	fi
	# shellcheck disable=SC2046 # one argument per fragment file
	if ! { make -C "$TREE" O="$BUILD" allnoconfig &&
		"$TREE/scripts/kconfig/merge_config.sh" -m -O "$BUILD" \
			"$BUILD/.config" $(config_fragments) &&
		make -C "$TREE" O="$BUILD" olddefconfig; } > "$BUILD/config.log" 2>&1; then
		tail -n 30 "$BUILD/config.log" >&2
		die "$E_BUILD" "kernel configuration failed; log: $BUILD/config.log"
	fi
	verify_config
	printf '%s\n' "$hash" > "$stamp"
	say "    configured $BUILD/.config from $(config_fragments | xargs -n1 basename | tr '\n' ' ')"
}

# build_dir TREE VARIANT: the build directory of VARIANT, inside its tree.
# A direct subdirectory of the source tree is the one place kbuild names
# the sources by a relative path (srctree "..").  The compiler then sees
# the same paths in every tree, and ccache serves a file compiled in one
# tree, source or variant to the others (preprocessor mode: autoconf.h
# differs by the release name).
build_dir() {
	printf '%s/.build-%s\n' "$1" "$2"
}

# kernel_make_command ARGS...: MAKE_COMMAND, make in the tree and build
# directory with ARGS, through ccache when it is installed.
kernel_make_command() {
	local cc=gcc
	if command -v ccache >/dev/null; then
		cc="ccache gcc"
	fi
	# LOCALVERSION= (set, empty) keeps setlocalversion from appending "+"
	# for a git tree that is not at a release tag.
	MAKE_COMMAND=(env CCACHE_BASEDIR="$WORK" make -C "$TREE" O="$BUILD" -j"$JOBS"
		CC="$cc" LOCALVERSION= "$@")
}

kernel_make() {
	kernel_make_command "$@"
	"${MAKE_COMMAND[@]}"
}

build_stamp() {
	printf '%s %s\n' "$(git -C "$TREE" rev-parse HEAD)" "$(cat "$BUILD/.mm-frozen-config")"
}

# Prints the number of compiled objects now and then, so a long build shows
# it is alive; the build's own output goes to build.log.  The UAPI headers
# are installed here too: "make kselftest" in the guest needs them, and
# under TCG installing them takes minutes.
# make_logged LOG TARGET...: kernel_make with its output in LOG and, each
# minute, the number of objects compiled so far; returns make's status.
# The build runs in a process group of its own (setsid), which an
# interrupted run stops whole (on_exit).
make_logged() {
	local log=$1 pid rc=0
	shift
	kernel_make_command "$@"
	setsid -w "${MAKE_COMMAND[@]}" > "$log" 2>&1 {LOCK_FD}>&- &
	pid=$!
	CHILD_GROUPS=("$pid")
	while ! wait_for "$pid" 60; do
		say "    ... $(grep -c '^  CC ' "$log" || true) objects compiled (+$(elapsed "$STAGE_T0")s)"
	done
	wait "$pid" || rc=$?
	CHILD_GROUPS=()
	return "$rc"
}

# show_build_failure LOG: the compiler's errors and the last lines of LOG.
show_build_failure() {
	printf '    --- errors in %s ---\n' "$1" >&2
	grep -E ': (fatal )?error:|\*\*\*|Error [0-9]' "$1" | head -n 20 | sed 's/^/    /' >&2
	printf '    --- last lines ---\n' >&2
	tail -n 25 "$1" | sed 's/^/    /' >&2
}

build_kernel() {
	local log="$BUILD/build.log" stamp="$BUILD/.mm-frozen-built" rc=0
	if [ -f "$BUILD/arch/x86/boot/bzImage" ] && [ -f "$stamp" ] &&
	   [ "$(cat "$stamp")" = "$(build_stamp)" ] &&
	   [ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]; then
		say "    $BUILD/arch/x86/boot/bzImage up to date ($(kernel_release))"
		return
	fi
	rm -f "$stamp"
	say "    make -j$JOBS bzImage modules headers (log: $log)"
	make_logged "$log" bzImage modules headers || rc=$?
	if [ "$rc" != 0 ]; then
		if [ -d "$RESULTS" ]; then cp "$log" "$RESULTS/build.log"; fi
		show_build_failure "$log"
		die "$E_BUILD" "kernel build failed (exit $rc); full log: $log"
	fi
	build_stamp > "$stamp"
	say "    built $(kernel_release): $(grep -c '^  CC ' "$log" || true) objects," \
		"$(grep -c 'warning:' "$log" || true) warnings"
}

wait_for() { # wait_for PID SECONDS: true once PID has exited
	local i
	for ((i = 0; i < $2; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 1
	done
	! kill -0 "$1" 2>/dev/null
}

kernel_release() {
	make -s -C "$TREE" O="$BUILD" LOCALVERSION= kernelrelease 2>/dev/null
}

# The kernel's mm selftests, built on the host against the build's UAPI
# headers (the guest would need minutes under TCG), with the scripts
# run_vmtests.sh calls.  A program that does not build is reported by
# run_vmtests.sh as a failure, on every kernel that lacks it.
build_mm_selftests() {
	local log="$BUILD/mm-selftests.log" failed
	say "    make -C tools/testing/selftests TARGETS=mm (log: $log)"
	if ! make -k -C "$TREE/tools/testing/selftests" O="$BUILD" TARGETS=mm \
		-j"$JOBS" > "$log" 2>&1; then
		failed=$(sed -n 's|.*kselftest/mm/\([^] ]*\)\] Error.*|\1|p' "$log" | sort -u | tr '\n' ' ')
		say "    did not build: ${failed:-see $log}"
	fi
	cp "$TREE/tools/testing/selftests/mm/"*.sh "$BUILD/kselftest/mm/"
}

# The guest's modprobe finds the build's modules (slub_kunit, test_vmalloc)
# in BUILD/modroot, which guest-init/upstream.sh links into /lib/modules.
install_modules() {
	local log="$BUILD/modules_install.log"
	if ! kernel_make INSTALL_MOD_PATH="$BUILD/modroot" modules_install > "$log" 2>&1; then
		tail -n 20 "$log" | sed 's/^/    /' >&2
		die "$E_BUILD" "make modules_install failed; log: $log"
	fi
	say "    modules of $(kernel_release) in $BUILD/modroot"
}

# The initramfs holds only busybox and guest-init/init: the guest's root
# is the host's, over 9p.  gen_init_cpio (from the kernel build) writes
# the device node without needing mknod.
build_initramfs() {
	local list stamp="$INITRAMFS.stamp" hash
	hash=$(cat /bin/busybox "$MMF_ROOT/guest-init/init" | sha256sum | cut -d' ' -f1)
	if [ -f "$INITRAMFS" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then
		say "    $INITRAMFS up to date"
		return
	fi
	[ -x "$BUILD/usr/gen_init_cpio" ] ||
		die "$E_BUILD" "$BUILD/usr/gen_init_cpio missing: build the kernel first"
	list=$(mktemp)
	cat > "$list" <<EOF
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /bin 0755 0 0
file /bin/busybox /bin/busybox 0755 0 0
file /init $MMF_ROOT/guest-init/init 0755 0 0
dir /proc 0755 0 0
dir /sys 0755 0 0
EOF
	"$BUILD/usr/gen_init_cpio" "$list" | gzip -9 > "$INITRAMFS.tmp"
	rm -f "$list"
	mv "$INITRAMFS.tmp" "$INITRAMFS"
	printf '%s\n' "$hash" > "$stamp"
	say "    wrote $INITRAMFS"
}

# ---------------------------------------------------------------- guest

# On these machines /dev/kvm exists but a KVM guest can hang after the
# firmware: use KVM only when a probe boot prints the kernel banner and
# ends by itself.  The verdict is kept in the work dir with what it
# depends on, the host's kernel, QEMU's version and /dev/kvm's access,
# and probed again when one of them changes.
choose_accel() {
	local probe="$WORK/kvm-probe" key log verdict=tcg
	case "$ACCEL" in
	tcg|kvm|icount) printf '%s\n' "$ACCEL"; return ;;
	esac
	key="$(uname -r) $(qemu-system-x86_64 --version | head -n 1)"
	[ -r /dev/kvm ] && [ -w /dev/kvm ] && key+=" /dev/kvm" || key+=" no /dev/kvm"
	if [ "$(sed -n 2p "$probe" 2>/dev/null)" != "$key" ]; then
		if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
			log=$(mktemp)
			timeout -k 2 20 qemu-system-x86_64 -accel kvm -cpu host -m 256 \
				-nodefaults -no-reboot -display none -serial "file:$log" \
				-kernel "$BUILD/arch/x86/boot/bzImage" \
				-append "console=ttyS0 panic=-1" >/dev/null 2>&1 {LOCK_FD}>&- || true
			if grep -q 'Linux version' "$log" && grep -q 'Kernel panic' "$log"; then
				verdict=kvm
			fi
		fi
		printf '%s\n%s\n' "$verdict" "$key" > "$probe"
	fi
	head -n 1 "$probe"
}

qemu_accel_args() {
	case "$1" in
	kvm) printf '%s\n' -accel kvm -cpu host ;;
	# guest time counts instructions: one nanosecond each (shift=0)
	icount) printf '%s\n' -accel tcg,thread=single -icount shift=0,sleep=off -cpu max ;;
	*) printf '%s\n' -accel tcg -cpu max ;;
	esac
}

# Test timeouts are meant for real hardware; TCG is about ten times slower.
timeout_scale() {
	if [ "$1" = kvm ]; then echo 1; else echo 10; fi
}

# The kernel's own stall and hang detectors, with their timeouts scaled
# like the tests' (RCU stalls after 21 s, hung tasks after 120 s, soft
# lockups after twice watchdog_thresh, 10 s, which is at most 60): their
# reports fail a run, so they must not fire for emulation's slowness.
stall_args() { # stall_args ACCEL
	local scale thresh
	scale=$(timeout_scale "$1")
	thresh=$((10 * scale))
	[ "$thresh" -le 60 ] || thresh=60
	printf 'rcupdate.rcu_cpu_stall_timeout=%d sysctl.kernel.hung_task_timeout_secs=%d watchdog_thresh=%d\n' \
		$((21 * scale)) $((120 * scale)) "$thresh"
}

# write_guest_cmd ACCEL CMD...: the script stage2.sh runs in the guest.
write_guest_cmd() {
	local guest="$RESULTS/guest" accel=$1
	shift
	mkdir -p "$guest"
	rm -f "$guest/status" "$guest/output.log" "$guest/dmesg.txt"
	{
		printf '# written by runner.sh; run by guest-init/stage2.sh\n'
		printf 'export MMF_ROOT=%q MMF_VARIANT=%q MMF_RESULTS=%q MMF_KERNELRELEASE=%q\n' \
			"$MMF_ROOT" "$VARIANT" "$RESULTS" "$(kernel_release)"
		printf 'export MMF_BUILD=%q MMF_TREE=%q MMF_ACCEL=%q MMF_TIMEOUT_SCALE=%q\n' \
			"$BUILD" "$TREE" "$accel" "$(timeout_scale "$accel")"
		printf 'export MMF_KSELFTEST=%q\n' "$KSELFTEST_DIR"
		printf 'cd %q || exit 125\n' "$PWD"
		printf '%q ' "$@"
		printf '\n'
	} > "$guest/cmd"
}

# run_qemu ACCEL MODE: boots the built kernel with the host root and the
# results share; MODE is "batch" (console to console.log, kernel lines
# hidden on screen) or "shell" (console on this terminal).
run_qemu() {
	local accel=$1 mode=$2 rc pid reader kernel="$BUILD/arch/x86/boot/bzImage"
	local -a args
	case "$RESULTS$MMF_ROOT" in
	*[[:space:]]*) die "$E_USAGE" "paths on the guest's command line must not" \
		"contain spaces: $RESULTS, $MMF_ROOT" ;;
	esac
	mapfile -t args < <(qemu_accel_args "$accel")
	# shellcheck disable=SC2054 # commas belong to qemu's option syntax
	args+=(-smp 2 -m 2G -nodefaults -no-reboot -display none -monitor none
		-kernel "$kernel" -initrd "$INITRAMFS"
		-append "console=ttyS0 loglevel=5 printk.devkmsg=on panic=-1 $(stall_args "$accel") MMF_RESULTS=$RESULTS MMF_STAGE2=$MMF_ROOT/guest-init/stage2.sh MMF_MODE=$mode"
		-chardev "stdio,id=console,signal=off,logfile=$RESULTS/console.log"
		-serial chardev:console
		-fsdev "local,id=hostroot,path=/,readonly=on,security_model=none,multidevs=remap"
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
		-fsdev "local,id=results,path=$RESULTS,security_model=none,multidevs=remap"
		-device virtio-9p-pci,fsdev=results,mount_tag=results)
	printf 'qemu-system-x86_64 %s\n' "${args[*]}" > "$RESULTS/qemu.cmdline"
	say "    qemu-system-x86_64 ($accel, 2 vCPUs, 2 GiB), timeout ${TIMEOUT}s; console: $RESULTS/console.log"
	rm -f "$RESULTS/console.log"
	if [ "$mode" = shell ]; then
		qemu-system-x86_64 "${args[@]}"
		return
	fi
	# timeout puts itself and qemu in a process group of its own, which
	# an interrupted run stops whole (on_exit).  The console goes through
	# a FIFO, whose reader is waited for: all of it is shown before the
	# runner goes on.
	mkfifo "$RUN_TMP/console"
	show_guest_output < "$RUN_TMP/console" &
	reader=$!
	timeout -k 10 "$TIMEOUT" qemu-system-x86_64 "${args[@]}" < /dev/null \
		2> "$RESULTS/qemu.log" > "$RUN_TMP/console" {LOCK_FD}>&- &
	pid=$!
	CHILD_GROUPS=("$pid")
	wait "$pid" && rc=0 || rc=$?
	CHILD_GROUPS=()
	wait "$reader" || true
	rm -f "$RUN_TMP/console"
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		show_last_console_lines
		die "$E_HANG" "the guest did not finish within ${TIMEOUT}s and was killed"
	fi
	if [ "$rc" != 0 ]; then
		printf '    --- %s ---\n' "$RESULTS/qemu.log" >&2
		tail -n 10 "$RESULTS/qemu.log" | sed 's/^/    /' >&2
		die "$E_GUEST" "qemu-system-x86_64 failed (status $rc)"
	fi
}

show_last_console_lines() {
	printf '    --- last console lines (%s) ---\n' "$RESULTS/console.log" >&2
	tail -n 25 "$RESULTS/console.log" 2>/dev/null | sed 's/^/    /' >&2
}

# Live view of the guest: its command's output; kernel lines (which carry
# a printk timestamp) stay in console.log.
show_guest_output() {
	if [ "$QUIET" = 1 ]; then
		cat > /dev/null
	else
		grep --line-buffered -v -E '^\[ *[0-9]+\.[0-9]+\] ' | sed -u 's/^/    guest| /'
	fi
}

# The patterns of KERNEL_PROBLEMS_FILE as one extended regular expression.
kernel_problem_ere() {
	grep -v -e '^#' -e '^$' "$KERNEL_PROBLEMS_FILE" | paste -s -d '|'
}

# kernel_problems FILE...: the kernel log lines that fail a run.  Only
# lines with the kernel's printk timestamp count, so that a test printing
# "WARNING:" itself does not trip it; on the serial console a kernel line
# can start in the middle of a line that user space had not ended ("# #
# bvec[  367.37] frozen_pages: ..."), and counts from its timestamp.  Tests mark their windows in the log
# ("mm-frozen: test begin NAME", "... end NAME"): a problem line in a
# window names its test; a window may declare the report it provokes
# ("mm-frozen: test expect COUNT ERE"), and then exactly COUNT lines
# matching ERE are not problems, but any other count is one.
kernel_problems() {
	local f ere
	ere=$(kernel_problem_ere)
	for f in "$@"; do
		[ -f "$f" ] || continue
		awk -v problems="$ere" '
		function check_expected(where) {
			if (want_ere != "" && seen != want)
				printf "%s mm-frozen: test %s: expected %d kernel line(s) matching /%s/, saw %d%s\n", \
					ts, test, want, want_ere, seen, where
		}
		{ sub(/\r$/, "") }
		!match($0, /\[ *[0-9]+\.[0-9]+\] /) { next }
		{ ts = substr($0, RSTART, RLENGTH - 1); text = substr($0, RSTART + RLENGTH) }
		text ~ /^mm-frozen: test begin / {
			test = substr(text, 23); want_ere = ""; want = seen = 0; next
		}
		text ~ /^mm-frozen: test expect [0-9]+ / {
			want_ere = substr(text, 24); want = want_ere + 0
			sub(/^[0-9]+ /, "", want_ere); next
		}
		text ~ /^mm-frozen: test end / { check_expected(""); test = want_ere = ""; next }
		text ~ problems {
			if (want_ere != "" && text ~ want_ere) { seen++; next }
			print ts " " text (test != "" ? "  [during test " test "]" : "")
		}
		END { check_expected(" (the log ends in the test)") }' "$f"
	done | awk '!seen[$0]++'
}

check_kernel_log() {
	local problems
	problems=$(kernel_problems "$RESULTS/console.log" "$RESULTS/guest/dmesg.txt")
	[ -z "$problems" ] && return 0
	printf '%s\n' "$problems" > "$RESULTS/kernel-problems.txt"
	printf '    --- kernel problems in the guest log ---\n' >&2
	printf '%s\n' "$problems" | head -n 40 | sed 's/^/    /' >&2
	die "$E_KERNEL" "the guest kernel reported $(printf '%s\n' "$problems" | wc -l)" \
		"problem line(s); see $RESULTS/kernel-problems.txt and console.log"
}

guest_status() {
	local status_file="$RESULTS/guest/status"
	if [ ! -s "$status_file" ]; then
		show_last_console_lines
		die "$E_GUEST" "the guest stopped before its command finished"
	fi
	cat "$status_file"
}

# KTAP verdict: in 6.12 neither run_kselftest.sh nor "make run_tests"
# exits non-zero when a test fails, so the results decide, read by ktap.py
# (which also calls a test whose results stop short of its plan crashed);
# verdict.json gets its counts and tree, the kernel release and the guest
# command's exit status.
# A guest that did not finish (no status) is read from its console: the
# output file may not hold the last lines, and the test in progress is
# one that crashed.
ktap_verdict() { # ktap_verdict [GUEST-STATUS]
	local status=${1:-null} log="$RESULTS/guest/output.log" verdict=0 json

	[ "$status" != null ] || log="$RESULTS/console.log"
	json=$(mktemp)
	say ""
	python3 "$MMF_ROOT/ktap.py" --name "$VARIANT" --json "$json" "$log" || verdict=1
	jq --arg release "$(kernel_release)" --argjson status "$status" \
		'{ variant, kernelrelease: $release, guest_status: $status } + .' \
		"$json" > "$RESULTS/verdict.json"
	rm -f "$json"
	case "$status" in
	0) ;;
	null) say "    the guest did not finish its test command" ;;
	*) say "    the guest's test command exited with status $status" ;;
	esac
	[ "$verdict" = 0 ] && [ "$status" = 0 ]
}

# boot_guest MODE CMD...: boots the built kernel and has the guest run CMD
# (MODE batch) or give a shell (MODE shell).
boot_guest() {
	local mode=$1 accel
	shift
	[ -f "$BUILD/arch/x86/boot/bzImage" ] ||
		die "$E_BUILD" "$BUILD/arch/x86/boot/bzImage not built: run runner.sh kernel first"
	build_initramfs
	accel=$(choose_accel)
	: "${TIMEOUT:=$(guest_timeout "$accel")}"
	write_guest_cmd "$accel" "$@"
	run_qemu "$accel" "$mode"
}

# The whole guest's time for the tests: a boot's allowance, and the
# kselftest timeout of each program it runs (settings, times the TCG
# scale), so that kselftest kills a test that overruns (a "# TIMEOUT"
# result, the next program runs) long before the guest is killed.  A
# guest command of one's own (--guest-cmd) gets GUEST_TIMEOUT.
guest_timeout() { # guest_timeout ACCEL
	local per n
	if [ "${GUEST_CMD[0]}" != "$MMF_ROOT/guest-init/tests.sh" ]; then
		echo "$GUEST_TIMEOUT"
		return
	fi
	per=$(sed -n 's/^timeout=//p' "$MMF_ROOT/selftests/mm-frozen/settings")
	per=$((per * $(timeout_scale "$1")))
	n=${#TESTS[@]}
	[ "$n" -gt 0 ] || n=$(grep -c . "$KSELFTEST_DIR/kselftest-list.txt")
	echo $((BOOT_ALLOWANCE + n * per))
}

# The tests' verdict comes first, so that verdict.json holds their counts
# whatever the kernel log says; a guest that did not finish is explained
# by its kernel log, if that shows a problem (E_KERNEL), else it stopped
# early (E_GUEST).
boot_and_test() {
	local verdict=0
	boot_guest batch "${GUEST_CMD[@]}"
	stage "Check the guest's kernel log and results"
	ktap_verdict "$(cat "$RESULTS/guest/status" 2>/dev/null)" || verdict=$E_TESTS
	check_kernel_log
	guest_status > /dev/null
	[ "$QUIET" = 1 ] || print_summary
	say "    results: $RESULTS"
	[ "$verdict" = 0 ] || exit "$verdict"
}

# summary_cell VARIANT SECTION: "pages atomics/page" from that variant's
# last counts.json (written by the guest's frozen_pages_test), or "-".
summary_cell() {
	local counts="$SRC_WORK/results/$1/counts.json"
	[ -f "$counts" ] || { echo "-"; return; }
	jq -r --arg s "$2" '.[$s] // empty
		| "\(.traced) \(if .traced > 0 then .atomics / .traced * 100 | round / 100 else "-" end)"' \
		"$counts" 2>/dev/null | grep . || echo "-"
}

# One screen: per path, the pages followed from allocation to free and
# the refcount atomics per page, on each kernel.
print_summary() {
	local section label p b
	printf '\n%-34s %21s %21s\n' "path" "patched" "baseline"
	printf '%-34s %10s %10s %10s %10s\n' "" "pages" "atomics/pg" "pages" "atomics/pg"
	while read -r section label; do
		read -r -a p <<< "$(summary_cell patched "$section")"
		read -r -a b <<< "$(summary_cell baseline "$section")"
		printf '%-34s %10s %10s %10s %10s\n' "$label" \
			"${p[0]}" "${p[1]:--}" "${b[0]}" "${b[1]:--}"
	done <<'EOF'
slab slab pages, kmem_cache_destroy
knob_1 slab pages, slab_frozen=1
knob_0 slab pages, slab_frozen=0
free_pages alloc_pages()/__free_pages()
EOF
	printf '(from %s/results/{patched,baseline}/counts.json)\n' "$SRC_WORK"
}

# ---------------------------------------------------------------- series check

# checkpatch_patches N: the tree's own checkpatch.pl --strict on the first N
# patches of the series; "PATCH <TAB> ERRORS <TAB> WARNINGS <TAB> CHECKS"
# lines in $RESULTS/checkpatch.tsv ("-" when it printed no totals), each
# report in $RESULTS/checkpatch/.
checkpatch_patches() {
	local p out totals
	mkdir -p "$RESULTS/checkpatch"
	: > "$RESULTS/checkpatch.tsv"
	while read -r p; do
		out="$RESULTS/checkpatch/${p%.patch}.txt"
		# The exit status only says "something found": the totals tell what.
		(cd "$SRC_REPO" && perl scripts/checkpatch.pl --strict "$PATCHES/$p") > "$out" 2>&1 ||
			[ -s "$out" ]
		totals=$(sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1\t\2\t\3/p' "$out")
		printf '%s\t%s\n' "$p" "${totals:-$'-\t-\t-'}" >> "$RESULTS/checkpatch.tsv"
	done < <(series_patches | head -n "$1")
	say "    $(awk -F '\t' '{ e += $2; w += $3; c += $4 } END { printf "%d errors, %d warnings, %d checks", e, w, c }' \
		"$RESULTS/checkpatch.tsv"), patches checked: $1 (reports: $RESULTS/checkpatch/)"
}

# update_warnings LOG MAP: MAP ("STEP <TAB> COUNT" lines) updated with the
# warnings of each build step LOG shows (kbuild's "  CC      mm/slub.o";
# make -Otarget keeps a step's output together), and the new total
# printed.  A step not rebuilt keeps its count: its inputs did not change,
# nor would its warnings.  So the total is that of a full build, and the
# difference between two commits counts exactly what the second adds.
update_warnings() {
	local new
	new=$(mktemp)
	touch "$2"
	awk -F '\t' '
		FNR == NR { count[$1] = $2; next }
		/^  [A-Z][A-Z0-9_]*( \[M\])? +[^ ]/ {
			step = $0; sub(/^ +/, "", step); gsub(/ +/, " ", step)
			count[step] = 0; next
		}
		/[Ww]arning:|WARNING:/ { count[step == "" ? "(no step)" : step]++ }
		END { for (s in count) printf "%s\t%d\n", s, count[s] }' "$2" "$1" | sort > "$new"
	mv "$new" "$2"
	awk -F '\t' '{ n += $2 } END { print n + 0 }' "$2"
}

# build_commit NAME: builds the bisect tree's HEAD, its log in
# $RESULTS/build/NAME.log; sets WARNINGS to the build's total.
build_commit() {
	local log="$RESULTS/build/$1.log"
	mkdir -p "$RESULTS/build"
	configure_kernel
	make_logged "$log" -Otarget bzImage modules || {
		show_build_failure "$log"
		return 1
	}
	WARNINGS=$(update_warnings "$log" "$BUILD/.mm-frozen-warnings")
}

# bisect_build: the base and then each commit of the applied series, in a
# worktree of their own (linux-bisect) built incrementally on the
# project's config.  "PATCH <TAB> STATUS <TAB> SECONDS <TAB> ADDED <TAB>
# TOTAL" lines in $RESULTS/build.tsv, the base first; a patch already in
# the tree has no commit ("in-tree").  Returns 1 at the first commit that
# does not build.
bisect_build() {
	local TREE="$SRC_WORK/linux-bisect" VARIANT=bisect CONFIG_VARIANT=patched BUILD
	local names=() commits=() i name prev t0 last WARNINGS
	BUILD=$(build_dir "$TREE" "$VARIANT")
	mapfile -t names < <(series_patches)
	mapfile -t commits < <(cut -f2 "$(applied_stamp)")
	: > "$RESULTS/build.tsv"
	prev=$(git -C "$SRC_REPO" rev-parse "$BASE_TAG^{commit}")
	checkout_worktree "$TREE" "$prev"
	for ((i = -1; i < ${#names[@]}; i++)); do
		name="(base)"
		if [ "$i" -ge 0 ]; then
			name=${names[i]}
			if [ "${commits[i]}" = "$prev" ]; then
				printf '%s\tin-tree\t\t\t\n' "$name" >> "$RESULTS/build.tsv"
				continue
			fi
			git -C "$TREE" checkout -q --detach "${commits[i]}"
			prev=${commits[i]}
		fi
		say "    $(git -C "$TREE" log -1 --format='%h %s')"
		t0=$SECONDS
		if ! build_commit "${name//[()]/}"; then
			printf '%s\tfail\t%s\t\t\n' "$name" "$((SECONDS - t0))" >> "$RESULTS/build.tsv"
			return 1
		fi
		printf '%s\tok\t%s\t%s\t%s\n' "$name" "$((SECONDS - t0))" \
			"$((WARNINGS - ${last:-$WARNINGS}))" "$WARNINGS" >> "$RESULTS/build.tsv"
		say "      built in $((SECONDS - t0))s, $WARNINGS warnings"
		last=$WARNINGS
	done
}

# shellcheck disable=SC2317 # called by cmd_series's EXIT trap
# series_report: the per-patch table of the series check on screen and
# as $SERIES_RESULTS/series.json, from what the stages wrote so far; the
# test verdict of the tip too, once there is one.
series_report() {
	local dir=$SERIES_RESULTS
	jq -n --arg source "$(source_label)" --argjson exit "${1:-0}" \
		--rawfile apply "$dir/apply.tsv" --rawfile checkpatch "$dir/checkpatch.tsv" \
		--rawfile build "$dir/build.tsv" --rawfile names <(series_patches) \
		--slurpfile tests <(cat "$dir/tip/verdict.json" 2>/dev/null) '
	def rows($t): $t | split("\n") | map(select(length > 0) | split("\t"))
		| map({ key: .[0], value: .[1:] }) | from_entries;
	def num: if . == "-" or . == "" or . == null then null else tonumber end;
	(rows($apply)) as $a | (rows($checkpatch)) as $c | (rows($build)) as $b
	| {
		source: $source, exit: $exit,
		base: ($b["(base)"] | if . then { build: .[0], seconds: (.[1] | num), warnings: (.[3] | num) } else null end),
		patches: [ $names | split("\n")[] | select(length > 0) as $p | {
			patch: $p,
			apply: ($a[$p] | if . then { status: .[0], detail: .[1] } else null end),
			build: ($b[$p] | if . then { status: .[0], seconds: (.[1] | num),
				warnings_added: (.[2] | num), warnings: (.[3] | num) } else null end),
			checkpatch: ($c[$p] | if . then { errors: (.[0] | num), warnings: (.[1] | num),
				checks: (.[2] | num) } else null end)
		} ],
		tests: ($tests[0] // null)
	}' > "$dir/series.json"
	jq -r '
	def cell($v; $text): if $v == null then "-" else "\($v) \($text)" end;
	(.patches[] | [
		(.patch | if length > 52 then .[0:49] + "..." else . end),
		(.apply | if . == null then "-" elif .status == "applies" then "OK"
			elif .status == "conflict" then "FAIL conflict" else "WARN \(.status)" end),
		(.build | if . == null or .status == "in-tree" then "-" elif .status == "ok"
			then "OK \(.seconds)s" else "FAIL" end),
		(.build | if . == null or .warnings_added == null then "-"
			elif .warnings_added > 0 then "FAIL +\(.warnings_added)" else "OK \(.warnings_added)" end),
		(.checkpatch | if . == null or .errors == null then "-" else
			"\(if .errors > 0 then "FAIL" elif .warnings + .checks > 0 then "WARN" else "OK" end) \(.errors)/\(.warnings)/\(.checks)" end)
	] | @tsv),
	(.patches[] | select(.apply.status == "conflict") | "conflict\t\(.patch): \(.apply.detail)")
	' "$dir/series.json" | awk -F '\t' '
		BEGIN { printf "\n%-52s  %-14s %-8s %-9s %s\n", "PATCH", "APPLY", "BUILD", "WARNINGS", "CHECKPATCH (E/W/C)" }
		$1 == "conflict" { printf "  %s\n", $2; next }
		{ printf "%-52s  %-14s %-8s %-9s %s\n", $1, $2, $3, $4, $5 }'
	jq -r '"base: \(.base | if . then "built in \(.seconds)s, \(.warnings) warnings" else "not built" end)"
		+ (if .tests then "; tests on the tip: \(.tests.passed) passed, \(.tests.failed) failed, \(.tests.skipped) skipped" else "" end)' \
		"$dir/series.json"
	say "(table: $dir/series.json)"
}

# The series check's verdict, from its tables: E_PATCH for a conflict,
# E_BUILD for a commit that does not build, E_SERIES for one that adds
# compiler warnings or checkpatch errors, else 0.
series_verdict() {
	if grep -q -P '\tconflict\t' "$RESULTS/apply.tsv"; then return "$E_PATCH"; fi
	if grep -q -P '\tfail\t' "$RESULTS/build.tsv"; then return "$E_BUILD"; fi
	if awk -F '\t' '$2 == "ok" && $4 > 0 { found = 1 } END { exit !found }' "$RESULTS/build.tsv" ||
	   awk -F '\t' '$2 ~ /^[0-9]+$/ && $2 > 0 { found = 1 } END { exit !found }' "$RESULTS/checkpatch.tsv"; then
		return "$E_SERIES"
	fi
}

# runner.sh series: how each patch applies, checkpatch.pl on each, every
# commit built (unless --no-bisect), the table; then, if the series is
# fit, the usual run on its tip (unless --no-test), results in tip/.
cmd_series() {
	local reached verdict=0
	prepare_results
	SERIES_RESULTS=$RESULTS
	touch "$RESULTS/apply.tsv" "$RESULTS/checkpatch.tsv" "$RESULTS/build.tsv"
	exec > >(tee -a "$RESULTS/runner.log") 2>&1
	EXIT_REPORT=series_report
	say "mm-frozen: series check of $PATCHES on $(source_label), results $RESULTS"
	stage "Check Debian packages"
	check_packages
	stage "Prepare the source tree: $(source_label)"
	prepare_source
	stage "Check how each patch applies"
	check_apply "$RESULTS/apply.tsv" || verdict=$E_PATCH
	cut -f1,2 "$RESULTS/apply.tsv" | sed 's/^/    /; s/\t/: /'
	reached=$(wc -l < "$RESULTS/apply.tsv")
	stage "checkpatch.pl --strict on each patch"
	checkpatch_patches "$reached"
	[ "$verdict" = 0 ] || die_conflict "$RESULTS/apply.tsv"
	stage "Apply the series (branch $BRANCH)"
	apply_patches
	if [ "$BISECT" = 1 ]; then
		stage "Build every commit in turn ($SRC_WORK/linux-bisect)"
		bisect_build || die "$E_BUILD" "$(tail -n 1 "$RESULTS/build.tsv" | cut -f1) does not build; log: $RESULTS/build/"
	fi
	series_verdict || die "$?" "the series adds compiler warnings or checkpatch errors (see the table)"
	[ "$RUN_TESTS" = 1 ] || return 0
	stage_end
	RESULTS="$SERIES_RESULTS/tip"
	prepare_results
	stages_build
	stages_test
	stage_end
}

# runner.sh bench [full|quick]: what the frozen paths save.  The kernel's
# frozen_pages/bench (CONFIG_FROZEN_PAGES_BENCH) runs each case in the
# guest (guest-init/bench.sh), one child runner.sh a pass: the refcount
# atomics counted on the patched kernel, which has DEBUG_PAGE_REF's
# tracepoints (untimed); then the clocks on the bench kernel, which lacks
# DEBUG_VM and DEBUG_PAGE_REF: -icount twice (instructions, to show they
# reproduce), plain TCG (emulated time), KVM when the probe allows it.  A
# lock RMW is timed natively on the host.  bench/report.py writes
# bench.json, the table and bench.png, and checks the guard.  "quick",
# the guard of make check: the patched kernel only, counted and once
# under -icount, with fewer rounds.
cmd_bench() {
	local size=${ARGS[0]:-full} timed=bench clocks=(icount-1 icount-2 tcg)
	local -a child=("$MMF_ROOT/runner.sh" "${CHILD_ARGS[@]}" ${SOURCE_SPEC:+--source "$SOURCE_SPEC"})
	local -a script=("$MMF_ROOT/guest-init/bench.sh")
	local clock status=0

	case "$size" in
	full) ;;
	quick) timed=patched clocks=(icount-1) ;;
	*) die "$E_USAGE" "bench takes full or quick, not $size" ;;
	esac
	prepare_results
	exec > >(tee -a "$RESULTS/runner.log") 2>&1
	stage "Build the kernels: patched (the counts), $timed (the clocks)"
	"${child[@]}" kernel > "$RESULTS/kernel-patched.log" 2>&1 ||
		bench_child_failed "$RESULTS/kernel-patched.log"
	"${child[@]}" --variant "$timed" kernel > "$RESULTS/kernel-$timed.log" 2>&1 ||
		bench_child_failed "$RESULTS/kernel-$timed.log"
	# the probe boots the patched kernel
	[ "$size" = quick ] || [ "$(choose_accel)" != kvm ] || clocks+=(kvm)
	stage "Count the refcount atomics of each case (patched kernel, untimed)"
	bench_pass count patched tcg "${script[@]}" count "$size"
	for clock in "${clocks[@]}"; do
		stage "Time each case: $clock ($timed kernel)"
		bench_pass "$clock" "$timed" "${clock%-*}" "${script[@]}" time "$size"
	done
	stage "Time a lock RMW on the host (bench/lock-cost.c)"
	host_lock_cost > "$RESULTS/lock-cost.json"
	stage "Report"
	python3 "$MMF_ROOT/bench/report.py" "$RESULTS" | tee "$RESULTS/table.txt" || status=$?
	[ "$status" != 2 ] || die "$E_INTERNAL" "bench/report.py found no results"
	if command -v gnuplot > /dev/null; then
		gnuplot "$RESULTS/bench.gp" && say "    plot: $RESULTS/bench.png"
	fi
	say "    results: $RESULTS (bench.json, table.txt)"
	stage_end
	[ "$status" = 0 ] || exit "$E_TESTS"
}

# bench_pass NAME VARIANT ACCEL CMD...: CMD in a guest of VARIANT under ACCEL,
# run by cmd_bench's child runner.sh (its "child"), results in RESULTS/NAME.
bench_pass() {
	local name=$1 variant=$2 accel=$3 log="$RESULTS/$1.log"
	shift 3
	"${child[@]}" --variant "$variant" --accel "$accel" --results "$RESULTS/$name" \
		exec -- "$@" > "$log" 2>&1 || bench_child_failed "$log"
	printf '%s\t%s\t%s\n' "$name" "$variant" "$accel" >> "$RESULTS/passes.tsv"
	say "    $(grep -c '^bench: ' "$log") cases; $RESULTS/$name"
}

bench_child_failed() { # bench_child_failed LOG: its end, and the run stops
	tail -n 20 "$1" | sed 's/^/    /' >&2
	die "$E_TESTS" "a bench pass failed; log: $1"
}

# The median ns of a lock-prefixed decrement, uncontended and contended,
# as JSON; the program is rebuilt when its source changes.
host_lock_cost() {
	local src="$MMF_ROOT/bench/lock-cost.c" bin="$WORK/lock-cost"
	[ "$bin" -nt "$src" ] || gcc -O2 -Wall -pthread -o "$bin" "$src"
	"$bin" -j
}

# runner.sh matrix SPEC...: the series check on each source, one child
# runner.sh each (with this run's options), then one table: a cell per
# source and patch (the worst of its columns), the test totals per source.
# Exit status E_TESTS when a source's check did not pass.
cmd_matrix() {
	local spec dir json rows=() status
	[ ${#ARGS[@]} -gt 0 ] || die "$E_USAGE" "matrix needs sources: runner.sh matrix SPEC..."
	prepare_results
	for spec in "${ARGS[@]}"; do
		dir=$(SOURCE_SPEC=$spec; resolve_source; printf '%s\n' "$SRC_WORK")
		json="$dir/results/patched-series/series.json"
		say "=== matrix: $spec"
		status=0
		"$MMF_ROOT/runner.sh" "${CHILD_ARGS[@]}" --source "$spec" series || status=$?
		say "=== matrix: $spec: exit $status"
		[ -f "$json" ] || printf '{ "source": "%s", "exit": %s, "patches": [] }\n' "$spec" "$status" > "$json"
		rows+=("$json")
	done
	jq -s '.' "${rows[@]}" > "$RESULTS/matrix.json"
	jq -r '
	def worst: if any(.[]; . == "FAIL") then "FAIL" elif any(.[]; . == "WARN") then "WARN"
		elif length == 0 then "-" else "OK" end;
	(.[0].patches | map(.patch[0:4]) | ["source"] + . + ["exit", "tests"] | @tsv),
	(.[] | [.source] + [.patches[] | [
		(.apply | if . == null then empty elif .status == "applies" then "OK"
			elif .status == "conflict" then "FAIL" else "WARN" end),
		(.build | if . == null or .status == "in-tree" then empty elif .status == "ok" then
			(if .warnings_added > 0 then "FAIL" else "OK" end) else "FAIL" end),
		(.checkpatch | if . == null or .errors == null then empty elif .errors > 0 then "FAIL" else "OK" end)
	] | worst] + [(.exit | tostring),
		(.tests | if . then "\(.passed)/\(.failed)/\(.skipped)" else "-" end)] | @tsv)
	' "$RESULTS/matrix.json" | awk -F '\t' '{
		printf "%-40s", $1
		for (i = 2; i <= NF; i++) printf " %-5s", $i
		printf "\n" }'
	say "(cells: worst of apply, build+warnings, checkpatch; tests: passed/failed/skipped on the tip; $RESULTS/matrix.json)"
	jq -e 'all(.[]; .exit == 0)' "$RESULTS/matrix.json" > /dev/null || exit "$E_TESTS"
}

# ---------------------------------------------------------------- commands

# The results directory is emptied at the start of a run; refuse to empty
# a directory that a previous run did not create.
prepare_results() {
	case "$RESULTS" in
	/*) ;;
	*) RESULTS="$PWD/$RESULTS" ;;
	esac
	if [ -d "$RESULTS" ] && [ -n "$(ls -A "$RESULTS")" ] &&
	   [ ! -f "$RESULTS/.mm-frozen-results" ]; then
		die "$E_USAGE" "$RESULTS is not empty and not a results directory of runner.sh"
	fi
	rm -rf "$RESULTS"
	mkdir -p "$RESULTS/guest"
	touch "$RESULTS/.mm-frozen-results"
	RESULTS_READY=1
}

stages_to_kernel() {
	stage "Check Debian packages"
	check_packages
	stage "Prepare the source tree: $(source_label)"
	prepare_source
	if [ "$VARIANT" = baseline ]; then
		prepare_baseline_tree
	else
		stage "Apply patches/ ($PATCHES)${DROPPED[*]:+, without ${DROPPED[*]}}"
		prepare_series_tree
		apply_patches
	fi
	stages_build
}

# The stages from a tree with the series to a built kernel.
stages_build() {
	stage "Place selftests/mm-frozen in the tree"
	install_selftests
	stage "Configure ($VARIANT)"
	configure_kernel
	stage "Build the kernel ($VARIANT)"
	build_kernel
	stage "Build the mm-frozen kselftests"
	build_selftests
}

stages_test() {
	stage "Build the guest initramfs"
	build_initramfs
	stage "Boot the guest and run ${GUEST_CMD[*]}"
	boot_and_test
}

cmd_run() {
	prepare_results
	exec > >(tee -a "$RESULTS/runner.log") 2>&1
	say "mm-frozen: $(source_label), variant $VARIANT, results $RESULTS"
	stages_to_kernel
	stages_test
	stage_end
	say "mm-frozen: done in $(elapsed "$RUN_T0")s"
}

cmd_boot() {
	prepare_results
	exec > >(tee -a "$RESULTS/runner.log") 2>&1
	stage "Boot the guest and run ${GUEST_CMD[*]}"
	boot_and_test
	stage_end
}

# exec's exit status is the runner's: 0 when CMD succeeded, E_TESTS when
# it failed (its own status is printed, and kept in guest/status and
# verdict.json), any other code for the runner's own failures.
cmd_exec() {
	local status
	[ $# -gt 0 ] || die "$E_USAGE" "exec needs a command: runner.sh exec -- CMD"
	QUIET=1
	prepare_results
	boot_guest batch "$@"
	cat "$RESULTS/guest/output.log" 2>/dev/null || true
	check_kernel_log
	status=$(guest_status)
	if [ "$status" != 0 ]; then
		printf 'runner.sh: the guest command exited with status %s\n' "$status" >&2
		exit "$E_TESTS"
	fi
}

# The guest wrote upstream.tsv; one more result says whether the kernel
# logged problems outside every suite's window.
add_outside_result() {
	local outside
	outside=$(kernel_problems "$RESULTS/console.log" "$RESULTS/guest/dmesg.txt" |
		awk 'index($0, "  [during test ") == 0 { n++ } END { print n + 0 }')
	if [ "$outside" = 0 ]; then
		printf '(kernel log outside the suites)\tpass\t\n'
	else
		printf '(kernel log outside the suites)\tfail\t%s problem line(s)\n' "$outside"
	fi >> "$RESULTS/upstream.tsv"
}

cmd_upstream() {
	local counts
	prepare_results
	exec > >(tee -a "$RESULTS/runner.log") 2>&1
	say "mm-frozen: the kernel's own suites on $(source_label), variant $VARIANT, results $RESULTS"
	stages_to_kernel
	stage "Build the kernel's mm selftests, install the modules"
	build_mm_selftests
	install_modules
	stage "Build the guest initramfs"
	build_initramfs
	stage "Boot the guest and run guest-init/upstream.sh ${SUITES[*]}"
	boot_guest batch "$MMF_ROOT/guest-init/upstream.sh" "${SUITES[@]}"
	stage "Read the results"
	guest_status > /dev/null
	add_outside_result
	counts=$(cut -f2 "$RESULTS/upstream.tsv" | sort | uniq -c | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')
	if grep -q -P '\tfail\t' "$RESULTS/upstream.tsv"; then
		say "    failed:"
		grep -P '\tfail\t' "$RESULTS/upstream.tsv" | sed 's/^/      /'
	fi
	say "$VARIANT upstream: $counts (results: $RESULTS/upstream.tsv)"
	stage_end
}

# The upstream results of this variant and of the baseline, side by side.
# A test that passes on the baseline and fails, or is missing, here is a
# regression, and the exit status is 1; tests that fail on both are listed.
cmd_upstream_compare() {
	local mine="$SRC_WORK/results/$VARIANT-upstream/upstream.tsv"
	local base="$SRC_WORK/results/baseline-upstream/upstream.tsv"
	[ "$VARIANT" != baseline ] || die "$E_USAGE" "upstream-compare compares a patched variant with the baseline"
	[ -f "$mine" ] || die "$E_USAGE" "no $mine: run runner.sh upstream first"
	[ -f "$base" ] || die "$E_USAGE" "no $base: run runner.sh --baseline upstream first"
	awk -F '\t' -v mine="$VARIANT" '
	FNR == NR { base[$1] = $2; base_note[$1] = $3; order[++n] = $1; next }
	{ here[$1] = $2; here_note[$1] = $3; ran[suite($1)] = 1; if (!($1 in base)) order[++n] = $1 }
	# SUITE of SUITE:TEST; a suite that did not run here is not a regression
	function suite(t) { return match(t, /^[^:]+:[^:]+:/) ? substr(t, 1, RLENGTH - 1) : t }
	END {
		printf "%-56s %-8s %-8s\n", "test", mine, "baseline"
		for (i = 1; i <= n; i++) {
			t = order[i]; h = (t in here) ? here[t] : "missing"
			b = (t in base) ? base[t] : "missing"
			mark = ""
			if (h == "missing" && !(suite(t) in ran)) { h = "not-run"; mark = "suite not run here" }
			else if (b == "pass" && (h == "fail" || h == "missing")) { mark = "REGRESSION"; regressions++ }
			else if (h == "fail" && b == "fail") { mark = "fails on both"; both++ }
			else if (h != b) mark = "differs"
			else if (here_note[t] != base_note[t])
				mark = "subtests: " here_note[t] " | baseline " base_note[t]
			printf "%-56s %-8s %-8s %s\n", t, h, b, mark
		}
		printf "\n%d tests: %d regression(s), %d failing on both\n", n, regressions, both
		exit (regressions > 0)
	}' "$base" "$mine" || exit "$E_TESTS"
}

cmd_shell() {
	prepare_results
	boot_guest shell true
}

# The paths the options lead to, for scripts that read what a run left
# ("runner.sh --work DIR where source"), so that they never guess.
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

cmd_check_log() {
	local problems
	if [ $# -ne 1 ] || [ ! -f "$1" ]; then
		die "$E_USAGE" "check-log needs one log file"
	fi
	problems=$(kernel_problems "$1")
	if [ -n "$problems" ]; then
		printf '%s\n' "$problems"
		exit "$E_KERNEL"
	fi
	echo "no kernel problems in $1"
}

# ---------------------------------------------------------------- main

VARIANT=patched
WORK=${MMF_WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/mm-frozen}
RESULTS=${MMF_RESULTS:-}
PATCHES=${MMF_PATCHES:-$MMF_ROOT/patches}
TIMEOUT=${MMF_TIMEOUT:-}
ACCEL=${MMF_ACCEL:-auto}
JOBS=$(nproc)
NO_INSTALL=0
NO_WAIT=0
GUEST_CMD=("${MMF_GUEST_CMD:-$MMF_ROOT/guest-init/tests.sh}")
TESTS=()
SUITES=()
DROP_ARGS=()
DROPPED=()
COMMAND=run
SOURCE_SPEC=
BISECT=1
RUN_TESTS=1
CHILD_ARGS=()

# --drop PATCH...: each names one patch of the series, by file name or by
# the number it starts with.  The variant is named after what it drops and
# has its own worktree, branch, build and results.
resolve_drops() {
	local arg p matches suffix=
	[ "$VARIANT" = patched ] || die "$E_USAGE" "--drop applies to the patched series, not to --variant $VARIANT"
	[ -f "$PATCHES/series" ] || die "$E_PATCH" "no series file in $PATCHES"
	for arg in "${DROP_ARGS[@]}"; do
		mapfile -t matches < <(listed_patches | awk -v a="$arg" '$0 == a' | grep . ||
			listed_patches | awk -v a="$arg" 'index($0, a) == 1')
		[ ${#matches[@]} = 1 ] || die "$E_USAGE" "--drop $arg: ${#matches[@]} patches of $PATCHES/series match, not 1"
		DROPPED+=("${matches[0]}")
		p=${matches[0]%%-*}
		suffix+="-$p"
	done
	VARIANT="drop$suffix"
	TREE="$SRC_WORK/linux-$VARIANT"
	BRANCH="$PATCHED_BRANCH-$VARIANT"
}

# The options, but --source and --results, are kept for the children of
# "matrix".
parse_args() {
	local left word value
	while [ $# -gt 0 ]; do
		left=$# word=$1 value=${2-}
		case "$1" in
		-h|--help) usage; exit 0 ;;
		--baseline) VARIANT=baseline ;;
		--variant) VARIANT=${2:?--variant needs patched, baseline or noknob}; shift ;;
		--work) WORK=${2:?--work needs a directory}; shift ;;
		--results) RESULTS=${2:?--results needs a directory}; shift ;;
		--patches) PATCHES=${2:?--patches needs a directory}; shift ;;
		--guest-cmd) GUEST_CMD=("${2:?--guest-cmd needs a command}"); shift ;;
		--timeout) TIMEOUT=${2:?--timeout needs seconds}; shift ;;
		--accel) ACCEL=${2:?--accel needs auto, tcg or kvm}; shift ;;
		--jobs) JOBS=${2:?--jobs needs a number}; shift ;;
		--drop) DROP_ARGS+=("${2:?--drop needs a patch of the series}"); shift ;;
		--tests) read -r -a TESTS <<< "$(tr , ' ' <<< "${2-}")"; [ ${#TESTS[@]} -gt 0 ] ||
			die "$E_USAGE" "--tests needs test names"; shift ;;
		--no-install) NO_INSTALL=1 ;;
		--no-wait) NO_WAIT=1 ;;
		--source) SOURCE_SPEC=${2:?--source needs a SPEC}; shift ;;
		--no-bisect) BISECT=0 ;;
		--no-test) RUN_TESTS=0 ;;
		run|deps|kernel|initramfs|boot|shell|summary|clean|upstream-compare|series) COMMAND=$1 ;;
		where) COMMAND=where; shift; ARGS=("$@"); return ;;
		matrix) COMMAND=matrix; shift; ARGS=("$@"); return ;;
		bench) COMMAND=bench; shift; ARGS=("$@"); return ;;
		upstream) COMMAND=upstream; shift; SUITES=("$@"); return ;;
		exec) COMMAND="exec"; shift; [ "${1:-}" != -- ] || shift; ARGS=("$@"); return ;;
		check-log) COMMAND="check-log"; shift; ARGS=("$@"); return ;;
		*) usage >&2; die "$E_USAGE" "unknown argument: $1" ;;
		esac
		shift
		case "$word" in
		--source|--results) ;;
		-*)
			CHILD_ARGS+=("$word")
			if [ $((left - $#)) = 2 ]; then CHILD_ARGS+=("$value"); fi
			;;
		esac
	done
}

# The whole script is read before main runs (see the last line), so editing
# runner.sh while it runs cannot change a run in progress.
main() {
	parse_args "$@"
	case "$ACCEL" in auto|tcg|kvm|icount) ;; *) die "$E_USAGE" "--accel must be auto, tcg, kvm or icount" ;; esac
	case "$VARIANT" in patched|baseline|noknob|bench) ;; *) die "$E_USAGE" "--variant must be patched, baseline, noknob or bench" ;; esac
	# run and boot derive the guest's time from the tests' (guest_timeout)
	case "$COMMAND" in
	upstream) : "${TIMEOUT:=2400}" ;;
	exec|shell) : "${TIMEOUT:=1200}" ;;
	esac
	[[ "${TIMEOUT:-0}" =~ ^[0-9]+$ ]] || die "$E_USAGE" "--timeout needs a number of seconds"
	[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || die "$E_USAGE" "--jobs needs a positive number"
	case "$WORK" in /*) ;; *) WORK="$PWD/$WORK" ;; esac
	case "$PATCHES" in /*) ;; *) PATCHES="$PWD/$PATCHES" ;; esac

	resolve_source
	SRC_REPO="$SRC_WORK/linux"
	BASELINE_TREE="$SRC_WORK/linux-baseline"
	INITRAMFS="$WORK/initramfs.cpio.gz"
	CONFIG_VARIANT=$VARIANT
	BRANCH=$PATCHED_BRANCH
	if [ "$VARIANT" = baseline ]; then
		TREE=$BASELINE_TREE
	else
		TREE=$SRC_REPO
	fi
	[ ${#DROP_ARGS[@]} = 0 ] || resolve_drops
	BUILD=$(build_dir "$TREE" "$VARIANT")
	KSELFTEST_DIR="$BUILD/kselftest-install"
	[ ${#TESTS[@]} = 0 ] || GUEST_CMD+=("${TESTS[@]}")
	case "$COMMAND" in
	matrix) RESULTS=${RESULTS:-$WORK/results/matrix} ;;
	bench) RESULTS=${RESULTS:-$SRC_WORK/results/bench} ;;
	exec|shell|upstream|series) RESULTS=${RESULTS:-$SRC_WORK/results/$VARIANT-$COMMAND} ;;
	*) RESULTS=${RESULTS:-$SRC_WORK/results/$VARIANT} ;;
	esac
	case "$COMMAND" in
	run|deps|kernel|initramfs|boot|shell|exec|upstream|series|clean) lock_work ;;
	esac

	case "$COMMAND" in
	run) cmd_run ;;
	deps) stage "Check Debian packages"; check_packages; stage_end ;;
	kernel) stages_to_kernel; stage_end ;;
	initramfs) build_initramfs ;;
	boot) cmd_boot ;;
	shell) cmd_shell ;;
	exec) cmd_exec "${ARGS[@]}" ;;
	upstream) cmd_upstream ;;
	upstream-compare) cmd_upstream_compare ;;
	series) cmd_series ;;
	matrix) cmd_matrix ;;
	bench) cmd_bench ;;
	check-log) cmd_check_log "${ARGS[@]}" ;;
	summary) print_summary ;;
	where) cmd_where "${ARGS[@]}" ;;
	clean) rm -rf "$WORK"; say "removed $WORK" ;;
	esac
}

ARGS=()
main "$@"; exit
