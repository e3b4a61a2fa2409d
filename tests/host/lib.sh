# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the harness's own host-side tests (tests/host/test-*.sh).
# Each test runs runner.sh with a private results directory and checks its
# exit status, its messages and its verdict.json; a failed check prints
# what it saw, the output of the runner it checked, and exits 1.  A test
# that boots a guest says so on a line "# needs: kernel" (run.sh --fast
# leaves it out).
#
# Whatever the end of a test, the one trap below stops what it started:
# each runner's process group, and every qemu whose results are in the
# test's directory (a runner killed with SIGKILL leaves its qemu, in a
# group of its own); their lock goes with them.

MMF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RUNNER="$MMF_ROOT/runner.sh"
TMP=$(mktemp -d)
STARTED=()

# still_running: a runner the test started, or a qemu of its results, runs.
# shellcheck disable=SC2317 # stop_started, still_running: called by the trap
still_running() {
	local pid
	for pid in "${STARTED[@]}"; do
		! kill -0 -- "-$pid" 2>/dev/null || return 0
	done
	pgrep -f -- "MMF_RESULTS=$TMP/" > /dev/null
}

# shellcheck disable=SC2317
stop_started() {
	local pid i
	for pid in "${STARTED[@]}"; do
		kill -TERM -- "-$pid" 2>/dev/null || true
	done
	# each runner stops its guest (SIGKILL after 10 s) and writes its verdict
	for ((i = 0; i < 150; i++)); do
		still_running || break
		sleep 0.1
	done
	for pid in "${STARTED[@]}"; do
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

# fake_target DIR TIMEOUT PROGRAM...: a kselftest installation in DIR with
# a target named mm-frozen whose programs are PROGRAM... (scripts from
# tests/host/data) and whose kselftest timeout is TIMEOUT seconds; the
# runner of the real installation runs it.  Prints the guest command
# that runs it through guest-init/tests.sh.
fake_target() {
	local dir=$1 timeout=$2 real p
	shift 2
	real="$("$RUNNER" "${TEST_FLAGS[@]}" where build)/kselftest-install"
	[ -x "$real/run_kselftest.sh" ] || fail "no kselftests installed in $real: run runner.sh first"
	mkdir -p "$dir/mm-frozen"
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
