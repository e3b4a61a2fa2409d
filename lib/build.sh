# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# build.sh - from a tree with the series to what the guest boots and
# runs: the config, the kernel (kbuild, ccache), the mm-frozen kselftests
# and the kernel's own mm selftests built on the host, the modules, the
# initramfs.  Nothing is rebuilt when its inputs did not change.

# build_dir TREE VARIANT: the build directory of VARIANT, inside its tree.
# A direct subdirectory of the source tree is the one place kbuild names
# the sources by a relative path (srctree ".."): the compiler then sees
# the same paths in every tree, and ccache serves a file compiled in one
# tree, source or variant to the others (preprocessor mode: autoconf.h
# differs by the release name).
build_dir() {
	printf '%s/.build-%s\n' "$1" "$2"
}

build_tree() { # build_tree BUILD: the tree whose build_dir BUILD is
	dirname "$1"
}

# ---------------------------------------------------------------- config

# config_fragments BUILD VARIANT CONFIG-VARIANT [EXTRA...]: the config
# fragments, in the order they are merged, a later one overriding an
# earlier one.  A series changed by --drop, --with or --config is
# configured as CONFIG-VARIANT, then the EXTRA fragments (--config), with
# a release name of its own (BUILD/release.config).
config_fragments() {
	printf '%s\n' "$MMF_ROOT/config/mm-frozen.config"
	[ ! -f "$MMF_ROOT/config/variant-$3.config" ] ||
		printf '%s\n' "$MMF_ROOT/config/variant-$3.config"
	[ $# -le 3 ] || printf '%s\n' "${@:4}"
	[ "$2" = "$3" ] || printf '%s\n' "$1/release.config"
}

# config_hash TREE FRAGMENT...: what the .config is made from: the
# fragments, and TREE's Kconfig files and scripts/ (kconfig itself, the
# toolchain probes), as its index has them.  Not its HEAD: a commit that
# changes code alone (a mutant, most commits of the bisect) leaves the
# .config as it was.
config_hash() {
	{ cat "${@:2}"; git -C "$1" ls-files -s -- '*Kconfig*' scripts/; } |
		sha256sum | cut -d' ' -f1
}

# verify_config TREE BUILD SERIES FRAGMENT...: each option the fragments
# set is in BUILD/.config (mmfrozen.kconfig).  When TREE may lack patches
# of the series (SERIES "partial", not "whole"), an option that no
# Kconfig file of TREE defines is not checked, since a missing patch may
# be what adds it.
verify_config() {
	local tree=$1 build=$2 report defined=()
	if [ "$3" = partial ]; then
		git -C "$tree" grep -h -E '^(menu)?config [A-Z0-9_]+$' -- '*Kconfig*' |
			sed 's/^[a-z]* /CONFIG_/' > "$build/kconfig-defined"
		defined=(--defined "$build/kconfig-defined")
	fi
	if ! report=$(mmf_py kconfig --config "$build/.config" "${defined[@]}" "${@:4}"); then
		indent <<< "$report" >&2
		die "$E_BUILD" "the config fragment asks for options Kconfig did not set" \
			"(unmet dependencies?); see $build/config.log"
	fi
	[ -z "$report" ] || indent <<< "$report"
}

# The longest kernel release the kernel takes (include/linux/utsname.h's
# __NEW_UTS_LEN), and the longest version before the variant's suffix.
readonly RELEASE_MAX=64 RELEASE_VERSION_MAX=12

# release_suffix VARIANT: the variant in CONFIG_LOCALVERSION: VARIANT, or,
# when the release would outgrow RELEASE_MAX (a --with patch with a
# name of git format-patch's), its start and a hash of the whole.
release_suffix() {
	local room=$((RELEASE_MAX - RELEASE_VERSION_MAX - ${#PATCHED_BRANCH} - 2))
	if [ ${#1} -le "$room" ]; then
		printf '%s\n' "$1"
	else
		printf '%s-%s\n' "${1:0:room-9}" "$(printf '%s' "$1" | sha256sum | cut -c1-8)"
	fi
}

# configure_kernel TREE BUILD VARIANT CONFIG-VARIANT SERIES [EXTRA...]:
# BUILD/.config from allnoconfig and the fragments, remade when they or
# the tree's Kconfig changed (config_hash); SERIES as for verify_config.
configure_kernel() {
	local tree=$1 build=$2 variant=$3 config_variant=$4 hash stamp="$2/.mm-frozen-config"
	local -a fragments
	mkdir -p "$build"
	[ "$variant" = "$config_variant" ] ||
		printf 'CONFIG_LOCALVERSION="-%s-%s"\n' "$PATCHED_BRANCH" "$(release_suffix "$variant")" \
			> "$build/release.config"
	mapfile -t fragments < <(config_fragments "$build" "$variant" "$config_variant" "${@:6}")
	hash=$(config_hash "$tree" "${fragments[@]}")
	if [ -f "$build/.config" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then
		say "    $build/.config up to date"
		return
	fi
	# in the background, in a group that goes with the runner: a signal
	# is not handled while a foreground child runs
	# shellcheck disable=SC2016 # expanded by the child shell
	"${GUARDED[@]}" bash -c 'make -C "$1" O="$2" allnoconfig &&
		"$1/scripts/kconfig/merge_config.sh" -m -O "$2" "$2/.config" "${@:3}" &&
		make -C "$1" O="$2" olddefconfig' _ "$tree" "$build" "${fragments[@]}" \
		> "$build/config.log" 2>&1 &
	if ! wait_child "$!"; then
		tail -n 30 "$build/config.log" >&2
		die "$E_BUILD" "kernel configuration failed; log: $build/config.log"
	fi
	verify_config "$tree" "$build" "$5" "${fragments[@]}"
	printf '%s\n' "$hash" > "$stamp"
	say "    configured $build/.config from $(printf '%s\n' "${fragments[@]}" | xargs -n1 basename | paste -s -d ' ')"
}

# ---------------------------------------------------------------- kernel

# series_objects TREE: the objects that the series (BASE_TAG to HEAD)
# changes, a line each: those of the C files it changes, and for each
# trace event header it changes, the object that instantiates its events
# (the file that includes it right after "#define CREATE_TRACE_POINTS").
series_objects() {
	local tree=$1 headers
	git -C "$tree" diff --name-only "$BASE_TAG" HEAD -- '*.c' | sed 's/\.c$/.o/'
	headers=$(git -C "$tree" diff --name-only "$BASE_TAG" HEAD -- 'include/trace/events/*.h')
	[ -n "$headers" ] || return 0
	# shellcheck disable=SC2016 # awk's own $0
	git -C "$tree" grep -l -F '#define CREATE_TRACE_POINTS' -- '*.c' |
		(cd "$tree" && xargs awk -v headers="$headers" '
			BEGIN { n = split(headers, h, "\n")
				for (i = 1; i <= n; i++) want["#include <" substr(h[i], 9) ">"] }
			FNR == 1 { armed = 0 }
			/^#define CREATE_TRACE_POINTS/ { armed = 1; next }
			armed && /^#include / { if ($0 in want) print substr(FILENAME, 1, length(FILENAME) - 1) "o"; armed = 0 }')
}

# gcov_profile_args TREE BUILD: for a build with CONFIG_GCOV_KERNEL, the
# make arguments that profile the series' objects (kbuild's
# GCOV_PROFILE_<object>, which a command-line variable sets in every
# directory), a word a line; none for another build.
gcov_profile_args() {
	grep -q -x 'CONFIG_GCOV_KERNEL=y' "$2/.config" 2>/dev/null || return 0
	series_objects "$1" | xargs -r -n1 basename | sort -u | sed 's/^/GCOV_PROFILE_/; s/$/=y/'
}

# debug_prefix_args BUILD: for a build with debug information, the make
# argument that names its build directory "." in that information.  The
# object of a compile with -g holds the directory it was compiled in,
# and ccache hashes that directory, but for the one that
# -fdebug-prefix-map maps: with the map, an object compiled in one build
# directory serves another (the sanitizers' teeth build on the kasan
# variant's objects), and decode_stacktrace.sh reads the same
# "./../mm/slub.c" from every build (decode_reports).
debug_prefix_args() {
	grep -q -x 'CONFIG_DEBUG_INFO=y' "$1/.config" 2>/dev/null || return 0
	printf 'KCFLAGS=-fdebug-prefix-map=%s=.\n' "$1"
}

# kernel_make_command TREE BUILD ARGS...: make in TREE and BUILD with ARGS,
# through ccache when it is installed, a word a line.  ccache keeps the
# gcov build's objects apart: an object compiled with -fprofile-arcs
# embeds the path of its counters, and ccache 4.7 hashes the output
# directory for it, CCACHE_BASEDIR or not (the same file compiled in two
# directories: two misses, each object with its own .gcda path).
kernel_make_command() {
	local cc=gcc
	local -a gcov debug
	mapfile -t gcov < <(gcov_profile_args "$1" "$2")
	mapfile -t debug < <(debug_prefix_args "$2")
	command -v ccache >/dev/null && cc="ccache gcc"
	# LOCALVERSION= (set, empty) keeps setlocalversion from appending "+"
	# for a git tree that is not at a release tag.
	printf '%s\n' env CCACHE_BASEDIR="$WORK" make -C "$1" O="$2" -j"$JOBS" \
		CC="$cc" LOCALVERSION= "${gcov[@]}" "${debug[@]}" "${@:3}"
}

kernel_make() { # kernel_make TREE BUILD ARGS...
	local -a cmd
	mapfile -t cmd < <(kernel_make_command "$@")
	"${cmd[@]}"
}

kernel_release() { # kernel_release TREE BUILD
	make -s -C "$1" O="$2" LOCALVERSION= kernelrelease 2>/dev/null
}

# make_logged LOG TREE BUILD TARGET...: kernel_make with its output in LOG
# and, each minute, the number of objects compiled so far (a long build
# shows it is alive); returns make's status.  The build runs in a process
# group of its own that goes with the runner (GUARDED).
make_logged() {
	local log=$1 pid
	local -a cmd
	mapfile -t cmd < <(kernel_make_command "${@:2}")
	"${GUARDED[@]}" "${cmd[@]}" > "$log" 2>&1 &
	pid=$!
	track_child "$pid"
	while ! wait_for "$pid" 60; do
		say "    ... $(grep -c '^  CC ' "$log" || true) objects compiled (+$(elapsed "$STAGE_T0")s)"
	done
	wait_child "$pid"
}

# show_build_failure LOG: the compiler's errors and the last lines of LOG.
show_build_failure() {
	printf '    --- errors in %s ---\n' "$1" >&2
	grep -E ': (fatal )?error:|\*\*\*|Error [0-9]' "$1" | head -n 20 | indent >&2
	printf '    --- last lines ---\n' >&2
	tail -n 25 "$1" | indent >&2
}

# build_inputs BUILD VARIANT CONFIG-VARIANT [EXTRA...]: what the kernel
# in BUILD is built from, a line each: "patch SHA256 NAME" for each patch
# this run applies (APPLIED; none on the baseline), then "config
# SHA256 NAME" for each config fragment (config_fragments), but the
# release name's, which the variant, and so BUILD, decides.  A build
# records them in BUILD/.mm-frozen-inputs, for check_build.
build_inputs() {
	local kind file
	{
		for file in "${APPLIED[@]}"; do
			printf 'patch %s\n' "$(patch_file "$PATCHES" "$file")"
		done
		config_fragments "$@" | grep -v -x -F "$1/release.config" | sed 's/^/config /'
	} | while read -r kind file; do
		printf '%s %s %s\n' "$kind" "$(sha256sum < "$file" | cut -d' ' -f1)" "$(basename "$file")"
	done
}

# only_in LABEL LINES OTHER: each of LINES that OTHER lacks, after LABEL.
only_in() {
	awk -v label="$1" 'NR == FNR { other[$0]; next } !($0 in other) { print "    " label $0 }' \
		<(printf '%s\n' "$3") <(printf '%s\n' "$2")
}

# check_build BUILD VARIANT CONFIG-VARIANT [EXTRA...]: the kernel in
# BUILD is the one these name (build_inputs), for a command that boots
# it without building (boot, shell, exec): the mutants share one build
# directory, and patches/ may have changed since the build.  Else a
# usage error that shows both.
check_build() {
	local built wanted
	# no kernel at all: booting it says so
	[ -f "$1/arch/x86/boot/bzImage" ] || return 0
	wanted=$(build_inputs "$@")
	built=$(cat "$1/.mm-frozen-inputs" 2>/dev/null) ||
		die "$E_USAGE" "$1 has no record of what it was built from: build it" \
			"(runner.sh kernel with the same options)"
	[ "$built" != "$wanted" ] || return 0
	only_in 'built from:     ' "$built" "$wanted" >&2
	only_in 'options name:   ' "$wanted" "$built" >&2
	die "$E_USAGE" "the kernel in $1 was built from other patches or config than" \
		"the options name (above); runner.sh kernel with the same options builds it"
}

build_stamp() { # build_stamp TREE BUILD: what the kernel is built from
	printf '%s %s\n' "$(git -C "$1" rev-parse HEAD)" "$(cat "$2/.mm-frozen-config")"
}

# build_kernel TREE BUILD [RESULTS]: bzImage, the modules and the UAPI
# headers ("make kselftest" in the guest needs them, and under TCG
# installing them takes minutes); a failed build's log is copied into
# RESULTS.
build_kernel() {
	local tree=$1 build=$2 results=${3:-} log="$2/build.log" stamp="$2/.mm-frozen-built" rc=0
	if [ -f "$build/arch/x86/boot/bzImage" ] && [ -f "$stamp" ] &&
	   [ "$(cat "$stamp")" = "$(build_stamp "$tree" "$build")" ] &&
	   [ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ]; then
		say "    $build/arch/x86/boot/bzImage up to date ($(kernel_release "$tree" "$build"))"
		return
	fi
	rm -f "$stamp" "$build/.mm-frozen-inputs"
	say "    make -j$JOBS bzImage modules headers (log: $log)"
	make_logged "$log" "$tree" "$build" bzImage modules headers || rc=$?
	if [ "$rc" != 0 ]; then
		[ -z "$results" ] || cp "$log" "$results/build.log"
		show_build_failure "$log"
		die "$E_BUILD" "kernel build failed (exit $rc); full log: $log"
	fi
	build_stamp "$tree" "$build" > "$stamp"
	say "    built $(kernel_release "$tree" "$build"): $(grep -c '^  CC ' "$log" || true) objects," \
		"$(grep -c 'warning:' "$log" || true) warnings"
}

# ---------------------------------------------------------------- selftests

# selftests_copy TREE: the tree's copy of the kselftest target, where its
# test modules are built (in mm_frozen_test/).
selftests_copy() {
	printf '%s\n' "$1/tools/testing/selftests/mm-frozen"
}

# install_selftests TREE: the kselftest target lives in this repository;
# the tree gets a copy as tools/testing/selftests/mm-frozen (untracked, so
# the build stamps ignore it), with the tracing/ scripts inside for its
# tracing test, and "make kselftest TARGETS=mm-frozen" runs it from
# there.  rsync compares contents and gives what it copies the time of
# the copy, not the source's: a file edited after the last copy but
# before the last build would otherwise look older than what was built
# from it, and make would keep the stale program.
install_selftests() {
	local dest
	dest=$(selftests_copy "$1")
	mkdir -p "$dest"
	rsync -rlp --checksum --delete --exclude tracing \
		"$MMF_ROOT/selftests/mm-frozen/" "$dest/"
	rsync -rlp --checksum --delete "$MMF_ROOT/tracing/" "$dest/tracing/"
	say "    $dest"
}

# build_selftests TREE BUILD DEST: the mm-frozen kselftests and their test
# modules, built and installed on the host into DEST: the guest only runs
# them, with the installed run_kselftest.sh.  Under TCG the guest needs
# over a minute to build them.
build_selftests() {
	local log="$2/kselftest.log"
	say "    make -C tools/testing/selftests TARGETS=mm-frozen install (log: $log)"
	if ! MMF_BUILD=$2 make -C "$1/tools/testing/selftests" O="$2" \
		TARGETS=mm-frozen INSTALL_PATH="$3" install > "$log" 2>&1; then
		show_build_failure "$log"
		die "$E_BUILD" "the mm-frozen kselftests did not build; log: $log"
	fi
	say "    installed in $3"
}

# build_mm_selftests TREE BUILD: the kernel's mm selftests, built on the
# host against the build's UAPI headers (the guest would need minutes
# under TCG), with the scripts run_vmtests.sh calls.  A program that does
# not build is reported by run_vmtests.sh as a failure, on every kernel
# that lacks it.
build_mm_selftests() {
	local log="$2/mm-selftests.log" failed
	say "    make -C tools/testing/selftests TARGETS=mm (log: $log)"
	if ! make -k -C "$1/tools/testing/selftests" O="$2" TARGETS=mm -j"$JOBS" > "$log" 2>&1; then
		failed=$(sed -n 's|.*kselftest/mm/\([^] ]*\)\] Error.*|\1|p' "$log" | sort -u | paste -s -d ' ')
		say "    did not build: ${failed:-see $log}"
	fi
	cp "$1/tools/testing/selftests/mm/"*.sh "$2/kselftest/mm/"
}

# install_modules TREE BUILD: the guest's modprobe finds the build's
# modules (slub_kunit, test_vmalloc) in BUILD/modroot, which
# guest-init/upstream.sh links into /lib/modules.
install_modules() {
	local log="$2/modules_install.log"
	if ! kernel_make "$1" "$2" INSTALL_MOD_PATH="$2/modroot" modules_install > "$log" 2>&1; then
		tail -n 20 "$log" | indent >&2
		die "$E_BUILD" "make modules_install failed; log: $log"
	fi
	say "    modules of $(kernel_release "$1" "$2") in $2/modroot"
}

# build_initramfs INITRAMFS BUILD: busybox and guest-init/init only: the
# guest's root is the host's, over 9p.  gen_init_cpio (from the kernel
# build) writes the device node without needing mknod.
build_initramfs() {
	local initramfs=$1 list stamp="$1.stamp" hash
	hash=$(cat /bin/busybox "$MMF_ROOT/guest-init/init" | sha256sum | cut -d' ' -f1)
	if [ -f "$initramfs" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then
		say "    $initramfs up to date"
		return
	fi
	[ -x "$2/usr/gen_init_cpio" ] ||
		die "$E_BUILD" "$2/usr/gen_init_cpio missing: build the kernel first"
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
	"$2/usr/gen_init_cpio" "$list" | gzip -9 > "$initramfs.tmp"
	rm -f "$list"
	mv "$initramfs.tmp" "$initramfs"
	printf '%s\n' "$hash" > "$stamp"
	say "    wrote $initramfs"
}
