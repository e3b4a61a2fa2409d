# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the harness's own host-side tests (tests/host/test-*.sh).
# Each test runs runner.sh with a private results directory and checks its
# exit status, its messages and its verdict.json; a failed check prints
# what it saw, the output of the runner it checked, and exits 1.  A test
# that boots the kernel says so on a line "# needs: kernel" (run.sh --fast
# leaves it out); one that runs with the stand-in guest too, "# guest:
# stand-in or kernel" (see HOST_GUEST below).
#
# Whatever the end of a test, the one trap below stops what it started:
# each runner's process group, and every qemu whose results are in the
# test's directory (a runner killed with SIGKILL leaves its qemu, in a
# group of its own); their lock goes with them.

MMF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RUNNER="$MMF_ROOT/runner.sh"
TMP=$(mktemp -d)
STARTED=()

# running_started: the runners this test started that still run.  Bash
# reaps a runner as soon as it exits, and the kernel may then give its pid
# and process group id to another run's process: a runner that "jobs -r"
# no longer lists is never signalled.
# shellcheck disable=SC2317 # running_started, still_running, stop_started: called by the trap
running_started() {
	local pid
	for pid in "${STARTED[@]}"; do
		! jobs -rp | grep -q -x -- "$pid" || echo "$pid"
	done
}

# still_running: a runner the test started, or a qemu of its results, runs.
still_running() {
	[ -n "$(running_started)" ] || pgrep -f -- "MMF_RESULTS=$TMP/" > /dev/null
}

stop_started() {
	local pid i
	for pid in $(running_started); do
		kill -TERM -- "-$pid" 2>/dev/null || true
	done
	# the guest of a runner killed with SIGKILL, in a group of its own
	pkill -TERM -f -- "MMF_RESULTS=$TMP/" || true
	# each runner stops its guest (SIGKILL after 10 s) and writes its verdict
	for ((i = 0; i < 150; i++)); do
		still_running || break
		sleep 0.1
	done
	for pid in $(running_started); do
		kill -KILL -- "-$pid" 2>/dev/null || true
	done
	pkill -KILL -f -- "MMF_RESULTS=$TMP/" || true
	rm -rf "$TMP"
}
trap stop_started EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Extra runner.sh options for every test, e.g. MMF_TEST_FLAGS=--baseline
# to exercise the guest tests on the unpatched kernel.
read -r -a TEST_FLAGS <<< "${MMF_TEST_FLAGS:-}"

# run_runner ARGS...: runs runner.sh, output in $TMP/out, status in $STATUS.
run_runner() {
	STATUS=0
	"$RUNNER" "${TEST_FLAGS[@]}" "$@" > "$TMP/out" 2>&1 || STATUS=$?
}

# fail MESSAGE [OUTPUT]: the check failed; OUTPUT is the output of the
# runner it checked (default: the last run_runner's).
fail() {
	local out=${2:-$TMP/out}
	echo "FAIL: $*"
	if [ -f "$out" ]; then
		echo "--- runner.sh output ($out) ---"
		cat "$out"
	fi
	exit 1
}

expect_status() {
	[ "$STATUS" = "$1" ] || fail "expected exit status $1, got $STATUS"
}

expect_output() { # expect_output EXTENDED-REGEX
	grep -q -E -- "$1" "$TMP/out" || fail "output does not match: $1"
}

expect_text() { # expect_text FIXED-STRING
	grep -q -F -- "$1" "$TMP/out" || fail "output does not contain: $1"
}

# expect_verdict RESULTS OUTCOME EXIT [OUTPUT]: RESULTS/verdict.json says
# the run ended so.
expect_verdict() {
	local got
	got=$(jq -r '"\(.outcome) \(.exit)"' "$1/verdict.json" 2>/dev/null) ||
		fail "no readable $1/verdict.json" "${4:-}"
	[ "$got" = "$2 $3" ] || fail "verdict.json: outcome and exit '$got', not '$2 $3'" "${4:-}"
}

# start_runner NAME ARGS...: runner.sh in the background as a terminal's
# job: in a process group of its own (job control on), with SIGINT's
# default action, even when this test was started with SIGINT ignored
# (nohup, a background job of a script): bash cannot trap a signal
# ignored when it started.  Its output in $TMP/NAME.out, its pid and
# process group in $RUNNER_PID.  The trap stops it, if the test ends first.
start_runner() {
	local name=$1
	shift
	set -m
	python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$RUNNER" "${TEST_FLAGS[@]}" "$@" > "$TMP/$name.out" 2>&1 &
	RUNNER_PID=$!
	set +m
	STARTED+=("$RUNNER_PID")
}

# wait_for_text FILE TEXT SECONDS [OUTPUT]: until FILE holds TEXT.
wait_for_text() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -q -F -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "no '$2' in $1 after $3 s" "${4:-}"
}

# wait_process started|gone ERE SECONDS WHAT [OUTPUT]: until a process
# whose command line matches ERE runs, or none does; fails after SECONDS,
# saying WHAT did not start, or still runs.
wait_process() {
	local i runs=1
	[ "$1" = started ] || runs=0
	for ((i = 0; i < $3 * 10; i++)); do
		if pgrep -f -- "$2" > /dev/null; then
			[ "$runs" = 0 ] || return 0
		else
			[ "$runs" = 1 ] || return 0
		fi
		sleep 0.1
	done
	if [ "$runs" = 1 ]; then
		fail "$4 did not start within $3 s" "${5:-}"
	fi
	fail "$4 still runs $3 s later" "${5:-}"
}

# shell_session OPTION... -- LINE...: "runner.sh OPTION... shell" on a
# terminal of its own, 50 rows by 211 columns (tests/host/data/
# pty-session.py), each LINE typed at a prompt of the guest's shell; its
# status in $STATUS, what the terminal showed in $TMP/tty, and in
# $TMP/out without carriage returns and escape sequences (the shell's
# bracketed paste mode).
shell_session() {
	local -a options=()
	while [ "$1" != -- ]; do
		options+=("$1")
		shift
	done
	shift
	STATUS=0
	python3 "$MMF_ROOT/tests/host/data/pty-session.py" 50 211 'mm-frozen:[^ ]*# ' 1200 "$@" -- \
		"$RUNNER" "${TEST_FLAGS[@]}" "${options[@]}" shell > "$TMP/tty" 2>&1 || STATUS=$?
	sed -e 's/\r//g' -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$TMP/tty" > "$TMP/out"
}

# fake_target DIR TIMEOUT PROGRAM...: a kselftest installation in DIR with
# a target named mm-frozen whose programs are PROGRAM... (scripts from
# tests/host/data) and whose kselftest timeout is TIMEOUT seconds; the
# runner of the real installation runs it.  Prints the guest command
# that runs it through guest-init/tests.sh (with the stand-in guest, a
# command that the recorded guest ran).
fake_target() {
	local dir=$1 timeout=$2 real p
	shift 2
	mkdir -p "$dir/mm-frozen"
	if [ "$HOST_GUEST" = stand-in ]; then
		# the recorded guest ran the target: nothing here runs it
		echo "$dir/guest-cmd"
		return
	fi
	real="$("$RUNNER" "${TEST_FLAGS[@]}" where build)/kselftest-install"
	[ -x "$real/run_kselftest.sh" ] || fail "no kselftests installed in $real: run runner.sh first"
	cp -r "$real/run_kselftest.sh" "$real/kselftest" "$dir/"
	echo "timeout=$timeout" > "$dir/mm-frozen/settings"
	: > "$dir/kselftest-list.txt"
	for p in "$@"; do
		cp "$MMF_ROOT/tests/host/data/$p" "$dir/mm-frozen/"
		echo "mm-frozen:$p" >> "$dir/kselftest-list.txt"
	done
	printf '#!/bin/sh\nMMF_KSELFTEST=%s exec %s "$@"\n' "$dir" \
		"$MMF_ROOT/guest-init/tests.sh" > "$dir/guest-cmd"
	chmod +x "$dir/guest-cmd"
	echo "$dir/guest-cmd"
}

# standin_guest WORK: a work directory whose kernel is "built" for the
# stand-in qemu (tests/host/data/qemu/, first on PATH from here on): an
# empty bzImage, built from what the options name (build_inputs), and an
# initramfs that runner.sh takes as up to date.  The guest that boots is
# the scenario of $FAKE_GUEST.
standin_guest() {
	local build
	build=$("$RUNNER" "${TEST_FLAGS[@]}" --work "$1" where build)
	mkdir -p "$build/arch/x86/boot"
	: > "$build/arch/x86/boot/bzImage"
	built_from "$build" "${TEST_FLAGS[@]}" --work "$1"
	: > "$1/initramfs.cpio.gz"
	cat /bin/busybox "$MMF_ROOT/guest-init/init" | sha256sum | cut -d' ' -f1 \
		> "$1/initramfs.cpio.gz.stamp"
	export PATH="$MMF_ROOT/tests/host/data/qemu:$PATH"
}

# built_from BUILD OPTION...: BUILD's record of what it was built from,
# as a build with OPTION... writes it.
built_from() {
	# shellcheck disable=SC2016 # expanded by the child shell
	bash -c '. "$1" && parse_args "${@:3}" && COMMAND=kernel && resolve_run &&
		build_inputs "$BUILD" "$RUN_NAME" "$VARIANT" "${EXTRA_CONFIG[@]}"' \
		_ "$RUNNER" "$@" > "$1/.mm-frozen-inputs"
}

# The guest of a test that says "# guest: stand-in or kernel" (run.sh sets
# MMF_HOST_GUEST): "kernel", the kernel runner.sh built, runs the runner's
# guest command; "stand-in", tests/host/data/qemu/ plays the recorded
# guest that the test names with scenario, in a work directory of the
# test's own, which a test that it runs (test-cleanup's) shares.
HOST_GUEST=${MMF_HOST_GUEST:-kernel}
if [ "$HOST_GUEST" = stand-in ]; then
	export MMF_STANDIN_WORK=${MMF_STANDIN_WORK:-$TMP/work}
	standin_guest "$MMF_STANDIN_WORK"
	TEST_FLAGS+=(--work "$MMF_STANDIN_WORK" --accel tcg)
fi

# scenario NAME: the guest that the stand-in plays from here on:
# tests/host/data/guests/NAME, which a real guest gave for the same command.
scenario() {
	export FAKE_GUEST="$MMF_ROOT/tests/host/data/guests/$1"
}
