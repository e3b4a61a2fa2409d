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

# The last line: what some of the kernel's mm selftests link with.
readonly REQUIRED_PACKAGES=(
	linux-source-6.12 gcc make flex bison bc libelf-dev libssl-dev cpio
	xz-utils git rsync qemu-system-x86 busybox-static bpftrace trace-cmd
	libtraceevent-dev libtracefs-dev shellcheck ccache jq
	libnuma-dev libcap-dev
)

# Exit codes, also listed in --help.
readonly E_TESTS=1 E_USAGE=2 E_PACKAGES=3 E_PATCH=4 E_BUILD=5 E_HANG=6
readonly E_KERNEL=7

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
  exec -- CMD..  run one command in the guest; prints its output and
                 exits with its status
  upstream [SUITE..]  the kernel's own suites (KUnit slub_kunit, the mm
                 selftests by run_vmtests.sh category) in the guest;
                 results in WORK/results/VARIANT-upstream/upstream.tsv
  upstream-compare  those results beside the baseline's; exit 1 if a
                 test passes on the baseline and fails or is missing here
  summary        the table of pages and refcount atomics per path,
                 patched vs baseline, from the last runs' counts.json
  check-log FILE scan a console or dmesg log for kernel problems
  clean          remove the work directory (sources, builds, results)

Options:
  --baseline          use the unpatched tree (own source worktree and
                      build directory); same as --variant baseline
  --variant NAME      patched (default), baseline, or noknob: patched
                      with CONFIG_DEBUG_FROZEN_PAGES=n (own build directory)
  --work DIR          work directory [\$MMF_WORK, default
                      \${XDG_CACHE_HOME:-~/.cache}/mm-frozen]
  --results DIR       results directory [\$MMF_RESULTS, default
                      WORK/results/VARIANT]
  --patches DIR       patch directory with a "series" file
                      [\$MMF_PATCHES, default: patches/ of this repository]
  --guest-cmd CMD     the guest's test entry for run/boot [\$MMF_GUEST_CMD,
                      default guest-init/tests.sh]
  --tests "NAME..."   run only these programs of the mm-frozen kselftest
                      target (e.g. "frozen_hazard_test plumbing.sh")
  --drop PATCH        the patched series without PATCH (a file name of
                      patches/series, or its number: --drop 0014); may be
                      repeated; own worktree, build and results, named
                      drop-NUMBER
  --timeout SEC       kill the guest after SEC seconds [\$MMF_TIMEOUT,
                      default 1200; upstream 2400]
  --accel MODE        auto, tcg or kvm [\$MMF_ACCEL, default auto: KVM
                      only if a probe boot under KVM finishes, else TCG]
  --jobs N            parallel build jobs [default: nproc]
  --no-install        report missing packages instead of installing them
  -h, --help          this text

Exit status: 0 all tests passed; $E_TESTS a test failed; $E_USAGE usage error;
$E_PACKAGES missing packages; $E_PATCH a patch does not apply; $E_BUILD configure or build
failure; $E_HANG guest timeout; $E_KERNEL kernel panic/Oops/BUG/WARNING in the guest.
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

die() { # die CODE MESSAGE...
	local code=$1
	shift
	printf 'runner.sh: error: %s\n' "$*" >&2
	exit "$code"
}

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
	if [ -n "${RESULTS:-}" ] && [ -d "$RESULTS" ]; then
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

source_version() {
	dpkg-query -W -f='${Version}' "$SOURCE_PACKAGE"
}

# The pristine tree, as a git repository whose first commit is tagged
# $BASE_TAG.  Recreated when apt has installed another linux-source.
prepare_source() {
	local version tmp
	version=$(source_version)
	if [ -d "$SRC_REPO/.git" ] &&
	   [ "$(git -C "$SRC_REPO" tag -l --format='%(contents:subject)' "$BASE_TAG")" = "$SOURCE_PACKAGE $version" ]; then
		say "    $SRC_REPO: $SOURCE_PACKAGE $version (already unpacked)"
		return
	fi
	if [ -e "$SRC_REPO" ]; then
		say "    $SRC_REPO holds another source version: replacing it"
		rm -rf "$SRC_REPO" "$WORK"/linux-*
	fi
	[ -r "$SOURCE_TARBALL" ] || die "$E_PACKAGES" "$SOURCE_TARBALL not found"
	say "    unpacking $SOURCE_TARBALL ($SOURCE_PACKAGE $version)"
	mkdir -p "$WORK"
	tmp=$(mktemp -d "$WORK/unpack.XXXXXX")
	tar -xf "$SOURCE_TARBALL" -C "$tmp" --strip-components=1
	# Debian's tarball ships a .gitignore that ignores the whole top
	# level: force the add so the base commit holds every file.
	git -C "$tmp" init -q -b "$BASE_TAG-branch"
	git -C "$tmp" add -f -A .
	git -C "$tmp" "${GIT_IDENT[@]}" commit -q -m "$SOURCE_PACKAGE $version (pristine)"
	git -C "$tmp" "${GIT_IDENT[@]}" tag -a -m "$SOURCE_PACKAGE $version" "$BASE_TAG"
	mv "$tmp" "$SRC_REPO"
}

# add_worktree DIR: a worktree of the source repository at $BASE_TAG.
add_worktree() {
	rm -rf "$1"
	git -C "$SRC_REPO" worktree prune
	git -C "$SRC_REPO" worktree add -q --detach "$1" "$BASE_TAG"
	say "    created worktree $1 at $BASE_TAG"
}

prepare_baseline_tree() {
	if [ -d "$BASELINE_TREE" ] && git -C "$BASELINE_TREE" rev-parse -q --verify HEAD >/dev/null &&
	   [ "$(git -C "$BASELINE_TREE" rev-parse HEAD)" = "$(git -C "$SRC_REPO" rev-parse "$BASE_TAG^{commit}")" ]; then
		say "    $BASELINE_TREE: pristine $BASE_TAG worktree"
		return
	fi
	add_worktree "$BASELINE_TREE"
}

# A series with patches dropped is applied in a worktree of its own, so
# that switching between it and the whole series rebuilds neither.
prepare_series_tree() {
	if [ "$TREE" != "$SRC_REPO" ] && ! git -C "$TREE" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		add_worktree "$TREE"
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

# Apply every patch to a scratch index first: a patch that does not apply
# is named with the files it conflicts in, and the work tree is untouched.
dry_run_series() {
	local index p err files
	index=$(mktemp)
	err=$(mktemp)
	GIT_INDEX_FILE=$index git -C "$TREE" read-tree "$BASE_TAG"
	while read -r p; do
		if ! GIT_INDEX_FILE=$index git -C "$TREE" apply --cached \
			"$PATCHES/$p" 2> "$err"; then
			files=$(sed -n -e 's/^error: patch failed: \(.*\):[0-9]*$/\1/p' \
				-e 's/^error: \([^:]*\): \(does not exist in index\|already exists in index\)$/\1/p' \
				"$err" | sort -u | tr '\n' ' ')
			sed 's/^/    /' "$err" >&2
			rm -f "$index" "$err"
			die "$E_PATCH" "patch $p does not apply on $BASE_TAG" \
				"(after the patches before it); conflicting files: ${files:-see above}"
		fi
	done < <(series_patches)
	rm -f "$index" "$err"
}

# The stamp lists the applied patches, one "sha256 <TAB> commit" line
# each.  A changed series keeps the commits of its unchanged leading
# patches and applies the rest from there, so the build recompiles only
# what the changed patches touch.
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

apply_patches() {
	local stamp p names=() hashes=() kept start i
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
	dry_run_series
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
		git -C "$TREE" "${GIT_IDENT[@]}" am -q "$PATCHES/${names[i]}" ||
			die "$E_PATCH" "git am failed on ${names[i]} (the dry run passed; see above)"
		printf '%s\t%s\n' "${hashes[i]}" "$(git -C "$TREE" rev-parse HEAD)" >> "$stamp"
	done
	say "    kept $kept, applied $((${#names[@]} - kept)) of ${#names[@]} patches (branch $BRANCH)"
}

# The kselftest target lives in this repository; the tree gets a copy as
# tools/testing/selftests/mm-frozen (untracked, so the build stamps ignore
# it), with the tracing/ scripts inside for its tracing test, and
# "make kselftest TARGETS=mm-frozen" runs it from there.
install_selftests() {
	local dest="$TREE/tools/testing/selftests/mm-frozen"
	rm -rf "$dest"
	cp -r "$MMF_ROOT/selftests/mm-frozen" "$dest"
	cp -r "$MMF_ROOT/tracing" "$dest/tracing"
	say "    $dest"
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

kernel_make() {
	local cc=gcc
	if command -v ccache >/dev/null; then
		cc="ccache gcc"
		export CCACHE_BASEDIR="$WORK"
	fi
	# LOCALVERSION= (set, empty) keeps setlocalversion from appending "+"
	# for a git tree that is not at a release tag.
	make -C "$TREE" O="$BUILD" -j"$JOBS" CC="$cc" LOCALVERSION= "$@"
}

build_stamp() {
	printf '%s %s\n' "$(git -C "$TREE" rev-parse HEAD)" "$(cat "$BUILD/.mm-frozen-config")"
}

# Prints the number of compiled objects now and then, so a long build shows
# it is alive; the build's own output goes to build.log.  The UAPI headers
# are installed here too: "make kselftest" in the guest needs them, and
# under TCG installing them takes minutes.
build_kernel() {
	local log="$BUILD/build.log" stamp="$BUILD/.mm-frozen-built" pid rc
	if [ -f "$BUILD/arch/x86/boot/bzImage" ] && [ -f "$stamp" ] &&
	   [ "$(cat "$stamp")" = "$(build_stamp)" ] &&
	   [ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]; then
		say "    $BUILD/arch/x86/boot/bzImage up to date ($(kernel_release))"
		return
	fi
	rm -f "$stamp"
	say "    make -j$JOBS bzImage modules headers (log: $log)"
	kernel_make bzImage modules headers > "$log" 2>&1 &
	pid=$!
	while ! wait_for "$pid" 60; do
		say "    ... $(grep -c '^  CC ' "$log" || true) objects compiled (+$(elapsed "$STAGE_T0")s)"
	done
	rc=0
	wait "$pid" || rc=$?
	if [ "$rc" != 0 ]; then
		if [ -d "$RESULTS" ]; then cp "$log" "$RESULTS/build.log"; fi
		printf '    --- last lines of %s ---\n' "$log" >&2
		tail -n 40 "$log" | sed 's/^/    /' >&2
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
# ends by itself.  The verdict is cached per machine in the work dir.
choose_accel() {
	local probe="$WORK/kvm-probe" log
	case "$ACCEL" in
	tcg|kvm) printf '%s\n' "$ACCEL"; return ;;
	esac
	if [ ! -f "$probe" ]; then
		if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
			log=$(mktemp)
			timeout -k 2 20 qemu-system-x86_64 -accel kvm -cpu host -m 256 \
				-nodefaults -no-reboot -display none -serial "file:$log" \
				-kernel "$BUILD/arch/x86/boot/bzImage" \
				-append "console=ttyS0 panic=-1" >/dev/null 2>&1 || true
			if grep -q 'Linux version' "$log" && grep -q 'Kernel panic' "$log"; then
				echo kvm > "$probe"
			else
				echo tcg > "$probe"
			fi
			rm -f "$log"
		else
			echo tcg > "$probe"
		fi
	fi
	cat "$probe"
}

qemu_accel_args() {
	if [ "$1" = kvm ]; then
		printf '%s\n' -accel kvm -cpu host
	else
		printf '%s\n' -accel tcg -cpu max
	fi
}

# Test timeouts are meant for real hardware; TCG is about ten times slower.
timeout_scale() {
	if [ "$1" = kvm ]; then echo 1; else echo 10; fi
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
		printf 'cd %q || exit 125\n' "$PWD"
		printf '%q ' "$@"
		printf '\n'
	} > "$guest/cmd"
}

# run_qemu ACCEL MODE: boots the built kernel with the host root and the
# results share; MODE is "batch" (console to console.log, kernel lines
# hidden on screen) or "shell" (console on this terminal).
run_qemu() {
	local accel=$1 mode=$2 rc kernel="$BUILD/arch/x86/boot/bzImage"
	local -a args
	case "$RESULTS$MMF_ROOT" in
	*[[:space:]]*) die "$E_USAGE" "paths on the guest's command line must not" \
		"contain spaces: $RESULTS, $MMF_ROOT" ;;
	esac
	mapfile -t args < <(qemu_accel_args "$accel")
	# shellcheck disable=SC2054 # commas belong to qemu's option syntax
	args+=(-smp 2 -m 2G -nodefaults -no-reboot -display none -monitor none
		-kernel "$kernel" -initrd "$INITRAMFS"
		-append "console=ttyS0 loglevel=5 printk.devkmsg=on panic=-1 MMF_RESULTS=$RESULTS MMF_STAGE2=$MMF_ROOT/guest-init/stage2.sh MMF_MODE=$mode"
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
	set +e
	timeout -k 10 "$TIMEOUT" qemu-system-x86_64 "${args[@]}" < /dev/null |
		show_guest_output
	rc=${PIPESTATUS[0]}
	set -e
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		printf '    --- last console lines (%s) ---\n' "$RESULTS/console.log" >&2
		tail -n 25 "$RESULTS/console.log" | sed 's/^/    /' >&2
		die "$E_HANG" "the guest did not finish within ${TIMEOUT}s and was killed"
	fi
	[ "$rc" = 0 ] || die "$E_HANG" "qemu-system-x86_64 exited with status $rc; see $RESULTS/console.log"
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
# "WARNING:" itself does not trip it.  Tests mark their windows in the log
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
		!match($0, /^\[ *[0-9]+\.[0-9]+\] /) { next }
		{ ts = substr($0, 1, RLENGTH - 1); text = substr($0, RLENGTH + 1) }
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
			print $0 (test != "" ? "  [during test " test "]" : "")
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
		printf '    --- last console lines ---\n' >&2
		tail -n 25 "$RESULTS/console.log" | sed 's/^/    /' >&2
		die "$E_HANG" "the guest stopped before its command finished"
	fi
	cat "$status_file"
}

# ktap_counts LOG: "passed failed skipped" over the leaf results.  Lines
# nested under a kselftest wrapper ("# ok 3 ...") are the leaves; a
# wrapper's own "not ok" counts when its program printed no failing leaf
# (it crashed or timed out), and a wrapper without leaves counts as one.
ktap_counts() {
	awk '
	function leaf(line) {
		if (line ~ /not ok/) { fail++; prog_fail++ }
		else if (line ~ /# *(SKIP|skip)/) skip++
		else pass++
		prog_leaves++
	}
	/^(# )+(not )?ok [0-9]+/ { leaf($0); next }
	/^(not )?ok [0-9]+/ {
		if ($0 ~ /^not ok/ && prog_fail == 0) fail++
		else if (prog_leaves == 0) leaf($0)
		prog_fail = prog_leaves = 0
	}
	END { printf "%d %d %d\n", pass, fail, skip }' "$1"
}

# KTAP verdict: in 6.12 neither run_kselftest.sh nor "make run_tests"
# exits non-zero when a test fails, so the result lines decide.
ktap_verdict() {
	local log="$RESULTS/guest/output.log" status=$1 pass fail skip
	read -r pass fail skip < <(ktap_counts "$log")
	printf '{ "variant": "%s", "kernelrelease": "%s", "guest_status": %s, "passed": %s, "failed": %s, "skipped": %s }\n' \
		"$VARIANT" "$(kernel_release)" "$status" "$pass" "$fail" "$skip" > "$RESULTS/verdict.json"
	if [ "$fail" -gt 0 ]; then
		say "    failed tests:"
		grep -E '^(# )*not ok [0-9]+' "$log" | sed 's/^/      /'
	fi
	[ "$status" = 0 ] || say "    the guest's test command exited with status $status"
	say ""
	say "$VARIANT: $pass passed, $fail failed, $skip skipped"
	[ "$fail" = 0 ] && [ "$status" = 0 ] && [ "$((pass + skip))" -gt 0 ]
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
	write_guest_cmd "$accel" "$@"
	run_qemu "$accel" "$mode"
}

boot_and_test() {
	local status verdict
	boot_guest batch "${GUEST_CMD[@]}"
	stage "Check the guest's kernel log and results"
	check_kernel_log
	status=$(guest_status)
	verdict=0
	ktap_verdict "$status" || verdict=$E_TESTS
	[ "$QUIET" = 1 ] || print_summary
	say "    results: $RESULTS"
	[ "$verdict" = 0 ] || exit "$verdict"
}

# summary_cell VARIANT SECTION: "pages atomics/page" from that variant's
# last counts.json (written by the guest's frozen_pages_test), or "-".
summary_cell() {
	local counts="$WORK/results/$1/counts.json"
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
	printf '(from %s/results/{patched,baseline}/counts.json)\n' "$WORK"
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
}

stages_to_kernel() {
	stage "Check Debian packages"
	check_packages
	stage "Prepare the $SOURCE_PACKAGE source tree"
	prepare_source
	if [ "$VARIANT" = baseline ]; then
		prepare_baseline_tree
	else
		stage "Apply patches/ ($PATCHES)${DROPPED[*]:+, without ${DROPPED[*]}}"
		prepare_series_tree
		apply_patches
	fi
	stage "Place selftests/mm-frozen in the tree"
	install_selftests
	stage "Configure ($VARIANT)"
	configure_kernel
	stage "Build the kernel ($VARIANT)"
	build_kernel
}

cmd_run() {
	prepare_results
	exec > >(tee -a "$RESULTS/runner.log") 2>&1
	say "mm-frozen: variant $VARIANT, work $WORK, results $RESULTS"
	stages_to_kernel
	stage "Build the guest initramfs"
	build_initramfs
	stage "Boot the guest and run ${GUEST_CMD[*]}"
	boot_and_test
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

cmd_exec() {
	local status
	[ $# -gt 0 ] || die "$E_USAGE" "exec needs a command: runner.sh exec -- CMD"
	QUIET=1
	prepare_results
	boot_guest batch "$@"
	check_kernel_log
	status=$(guest_status)
	cat "$RESULTS/guest/output.log"
	exit "$status"
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
	say "mm-frozen: the kernel's own suites on $VARIANT, work $WORK, results $RESULTS"
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
	local mine="$WORK/results/$VARIANT-upstream/upstream.tsv"
	local base="$WORK/results/baseline-upstream/upstream.tsv"
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
	}' "$base" "$mine"
}

cmd_shell() {
	prepare_results
	boot_guest shell true
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
GUEST_CMD=("${MMF_GUEST_CMD:-$MMF_ROOT/guest-init/tests.sh}")
TESTS=()
SUITES=()
DROP_ARGS=()
DROPPED=()
COMMAND=run

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
	TREE="$WORK/linux-$VARIANT"
	BRANCH="$PATCHED_BRANCH-$VARIANT"
}

parse_args() {
	while [ $# -gt 0 ]; do
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
		--tests) read -r -a TESTS <<< "${2:?--tests needs test names}"; shift ;;
		--no-install) NO_INSTALL=1 ;;
		run|deps|kernel|initramfs|boot|shell|summary|clean|upstream-compare) COMMAND=$1 ;;
		upstream) COMMAND=upstream; shift; SUITES=("$@"); return ;;
		exec) COMMAND="exec"; shift; [ "${1:-}" != -- ] || shift; ARGS=("$@"); return ;;
		check-log) COMMAND="check-log"; shift; ARGS=("$@"); return ;;
		*) usage >&2; die "$E_USAGE" "unknown argument: $1" ;;
		esac
		shift
	done
}

# The whole script is read before main runs (see the last line), so editing
# runner.sh while it runs cannot change a run in progress.
main() {
	parse_args "$@"
	case "$ACCEL" in auto|tcg|kvm) ;; *) die "$E_USAGE" "--accel must be auto, tcg or kvm" ;; esac
	case "$VARIANT" in patched|baseline|noknob) ;; *) die "$E_USAGE" "--variant must be patched, baseline or noknob" ;; esac
	# The kernel's own suites take about twice as long as ours.
	if [ "$COMMAND" = upstream ]; then : "${TIMEOUT:=2400}"; else : "${TIMEOUT:=1200}"; fi
	[[ "$TIMEOUT" =~ ^[0-9]+$ ]] || die "$E_USAGE" "--timeout needs a number of seconds"
	[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || die "$E_USAGE" "--jobs needs a positive number"
	case "$WORK" in /*) ;; *) WORK="$PWD/$WORK" ;; esac
	case "$PATCHES" in /*) ;; *) PATCHES="$PWD/$PATCHES" ;; esac

	SRC_REPO="$WORK/linux"
	BASELINE_TREE="$WORK/linux-baseline"
	INITRAMFS="$WORK/initramfs.cpio.gz"
	CONFIG_VARIANT=$VARIANT
	BRANCH=$PATCHED_BRANCH
	if [ "$VARIANT" = baseline ]; then
		TREE=$BASELINE_TREE
	else
		TREE=$SRC_REPO
	fi
	[ ${#DROP_ARGS[@]} = 0 ] || resolve_drops
	BUILD="$WORK/build/$VARIANT"
	[ ${#TESTS[@]} = 0 ] || GUEST_CMD+=("${TESTS[@]}")
	case "$COMMAND" in
	exec|shell|upstream) RESULTS=${RESULTS:-$WORK/results/$VARIANT-$COMMAND} ;;
	*) RESULTS=${RESULTS:-$WORK/results/$VARIANT} ;;
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
	check-log) cmd_check_log "${ARGS[@]}" ;;
	summary) print_summary ;;
	clean) rm -rf "$WORK"; say "removed $WORK" ;;
	esac
}

ARGS=()
main "$@"; exit
