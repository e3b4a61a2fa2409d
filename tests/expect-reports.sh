#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# expect-reports.sh - the reports of the real runs that make check made
# in the work directory pass their schemas: every junit.xml against
# tests/schemas/junit.xsd (xmllint), every kcidb.json against
# tests/schemas/kcidb-v5.3.json (python3-jsonschema).  The patched run's
# and the older 6.12's series check (MMF_OLDER_SOURCE) and its tip's must
# be there, and hold a testsuite and a test path of a kselftest program.
# One TAP result a results directory.
#
# Usage: tests/expect-reports.sh [RUNNER-OPTIONS...]

set -u
cd "$(dirname "$0")/.." || exit 1

WORK=$(./runner.sh "$@" where work)
OLDER=$(./runner.sh "$@" --source "${MMF_OLDER_SOURCE:-linux-source-6.12=6.12.107-1~deb12u1}" \
	where source)
OLDER="$(dirname "$OLDER")/results/patched-series"
readonly PROGRAM=kselftest.mm-frozen.frozen_hazard_test
# shellcheck source=tests/tap.sh
. tests/tap.sh

# check_reports DIR [PROGRAM]: DIR's junit.xml and kcidb.json are there
# and valid; with PROGRAM, each holds its results.
check_reports() {
	local dir=$1 problems=() out
	for out in junit.xml kcidb.json; do
		[ -f "$dir/$out" ] || problems+=("no $out")
	done
	if [ ${#problems[@]} = 0 ]; then
		out=$(xmllint --noout --schema tests/schemas/junit.xsd "$dir/junit.xml" 2>&1) ||
			problems+=("$(head -n 5 <<< "$out")")
		out=$(PYTHONPATH=lib python3 -m mmfrozen.kcidb --check tests/schemas/kcidb-v5.3.json \
			"$dir/kcidb.json" 2>&1) || problems+=("$out")
	fi
	if [ $# = 2 ] && [ ${#problems[@]} = 0 ]; then
		grep -q -F "<testsuite name=\"$2\"" "$dir/junit.xml" || problems+=("junit.xml: no testsuite $2")
		jq -e --arg p "$2." '[.tests[].path | startswith($p)] | any' "$dir/kcidb.json" > /dev/null ||
			problems+=("kcidb.json: no test under $2")
	fi
	tap_result "$dir: junit.xml ($(grep -c '<testcase ' "$dir/junit.xml" 2>/dev/null) testcases),\
 kcidb.json ($(jq '.tests | length' "$dir/kcidb.json" 2>/dev/null) tests)" "${problems[@]}"
}

echo "TAP version 13"
declare -A named=()
for dir in "$WORK/results/patched" "$OLDER" "$OLDER/tip"; do
	check_reports "$dir" "$PROGRAM"
	named[$dir]=1
done
while read -r file; do
	[ -n "${named[${file%/*}]:-}" ] || check_reports "${file%/*}"
done < <(find "$WORK/results" "$WORK/sources" -name junit.xml 2>/dev/null | sort)
echo "1..$n"
echo "reports: $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
