#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ktap.py, the KTAP reader behind every verdict, on the fixtures of
# tests/ktap/: kselftest's nesting, KTAP v1 subtests, SKIP, TODO, XFAIL and
# TIMEOUT, a plan its results do not match, a kernel panic in the middle
# of a test, console noise, and the serial console of a real patched run.
# Each LOG must print its EXPECTED, exit status included, and write a
# verdict.json that agrees.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

n=0
for log in "$MMF_ROOT"/tests/ktap/*.log; do
	expected=${log%.log}.expected
	status=0
	python3 "$MMF_ROOT/ktap.py" --json "$TMP/verdict.json" "$log" > "$TMP/out" 2>&1 ||
		status=$?
	echo "exit $status" >> "$TMP/out"
	diff -u "$expected" "$TMP/out" > "$TMP/diff" ||
		fail "$(basename "$log"): $(cat "$TMP/diff")"
	# the JSON says what the summary line says
	summary=$(grep -E '^run: ' "$TMP/out")
	json=$(jq -r '"run: \(.passed) passed, \(.failed) failed, \(.skipped) skipped"' \
		"$TMP/verdict.json")
	[ "${summary%%skipped*}skipped" = "$json" ] ||
		fail "$(basename "$log"): verdict.json says '$json', the summary '$summary'"
	[ "$(jq -r .verdict "$TMP/verdict.json")" = "$([ "$status" = 0 ] && echo pass || echo fail)" ] ||
		fail "$(basename "$log"): verdict.json's verdict disagrees with exit $status"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no fixtures in tests/ktap"
echo "ktap.py: $n fixtures read as expected"
