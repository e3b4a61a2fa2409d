#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# expect-reports.sh - the reports of the real runs that make check made
# in the work directory pass their schemas: every junit.xml against
# tests/schemas/junit.xsd (xmllint).  The patched run's must hold a
# testsuite a kselftest program, and the older 6.12's series check
# (MMF_OLDER_SOURCE) its series suite and its tip's.  One TAP result a
# file.
#
# Usage: tests/expect-reports.sh [RUNNER-OPTIONS...]

set -u
cd "$(dirname "$0")/.." || exit 1

WORK=$(./runner.sh "$@" where work)
OLDER=$(./runner.sh "$@" --source "${MMF_OLDER_SOURCE:-linux-source-6.12=6.12.107-1~deb12u1}" \
	where source)
OLDER="$(dirname "$OLDER")/results/patched-series"
n=0 failed=0

# result DESCRIPTION PROBLEM...: one TAP line, and the problems.
result() {
	n=$((n + 1))
	if [ $# = 1 ]; then
		echo "ok $n $1"
		return
	fi
	failed=$((failed + 1))
	echo "not ok $n $1"
	printf '# %s\n' "${@:2}"
}

# check_junit FILE SUITE...: FILE is valid and holds the SUITEs.
check_junit() {
	local file=$1 problems=() out suite
	shift
	if [ ! -f "$file" ]; then
		result "$file" "not written"
		return
	fi
	out=$(xmllint --noout --schema tests/schemas/junit.xsd "$file" 2>&1) ||
		problems+=("$(head -n 5 <<< "$out")")
	for suite in "$@"; do
		grep -q -F "<testsuite name=\"$suite\"" "$file" || problems+=("no testsuite $suite")
	done
	result "$file: valid JUnit, $(grep -c '<testcase ' "$file") testcases" "${problems[@]}"
}

# The files the suite's own steps must have written, then every other.
declare -A named=([$WORK/results/patched/junit.xml]=1 [$OLDER/junit.xml]=1 [$OLDER/tip/junit.xml]=1)
programs=(kselftest.mm-frozen.frozen_hazard_test kselftest.mm-frozen.tracing_scripts.sh kernel-log run)
echo "TAP version 13"
check_junit "$WORK/results/patched/junit.xml" "${programs[@]}"
check_junit "$OLDER/junit.xml" series "${programs[@]}"
check_junit "$OLDER/tip/junit.xml" "${programs[@]}"
while read -r file; do
	[ -n "${named[$file]:-}" ] || check_junit "$file"
done < <(find "$WORK/results" "$WORK/sources" -name junit.xml 2>/dev/null | sort)
echo "1..$n"
echo "reports: $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
