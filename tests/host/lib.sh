# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the harness's own host-side tests (tests/host/test-*.sh).
# Each test runs runner.sh with a private results directory and checks its
# exit status and messages; a failed check prints what it saw and exits 1.

MMF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RUNNER="$MMF_ROOT/runner.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Extra runner.sh options for every test, e.g. MMF_TEST_FLAGS=--baseline
# to exercise the guest tests on the unpatched kernel.
read -r -a TEST_FLAGS <<< "${MMF_TEST_FLAGS:-}"

# run_runner ARGS...: runs runner.sh, output in $TMP/out, status in $STATUS.
run_runner() {
	STATUS=0
	"$RUNNER" "${TEST_FLAGS[@]}" "$@" > "$TMP/out" 2>&1 || STATUS=$?
}

fail() {
	echo "FAIL: $*"
	echo "--- runner.sh output ---"
	cat "$TMP/out"
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

# start_runner NAME ARGS...: runner.sh in the background as a terminal's
# job: in a process group of its own, with SIGINT not ignored (job control
# on: without it a script's background commands ignore SIGINT); its output
# in $TMP/NAME.out, its pid and process group in $RUNNER_PID.
start_runner() {
	local name=$1
	shift
	set -m
	"$RUNNER" "${TEST_FLAGS[@]}" "$@" > "$TMP/$name.out" 2>&1 &
	# shellcheck disable=SC2034 # read by the tests
	RUNNER_PID=$!
	set +m
}

# wait_for_text FILE TEXT SECONDS: until FILE holds TEXT.
wait_for_text() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -q -F -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "no '$2' in $1 after $3 s"
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
