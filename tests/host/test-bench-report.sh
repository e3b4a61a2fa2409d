#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/report.py's guard, on made-up passes: it passes when the frozen
# path has no refcount atomic and the refcounted one one per free, and
# fails, naming the case, when a frozen path executes an atomic, when
# the count misses the refcounted path's atomics, when the hist triggers
# dropped events, and when under -icount frozen page allocation costs
# more instructions than refcounted.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# passes DIR A-ATOMICS B-ATOMICS DROPPED A-NS B-NS: a count pass of the
# case pages-0 (100 operations) and an -icount pass of two rounds.
passes() {
	local dir=$1
	mkdir -p "$dir/count/bench" "$dir/icount-1/bench"
	printf '%s\n' "page_ref_set A 0" "page_ref_set B 100" \
		"page_ref_mod_and_test A $2" "page_ref_mod_and_test B $3" \
		"dropped $4" "iters 100" > "$dir/count/bench/pages-0.count"
	printf '%s\n' "case pages order 0 iters 100 rounds 2" \
		"0 $5 $6" "1 $5 $6" > "$dir/icount-1/bench/pages-0.rounds"
}

report() { # report DIR: report.py's output in $TMP/out, status in $STATUS
	STATUS=0
	python3 "$MMF_ROOT/bench/report.py" "$1" > "$TMP/out" 2>&1 || STATUS=$?
}

passes "$TMP/good" 0 100 0 90000 100000
report "$TMP/good"
expect_status 0
expect_output '^pages-0 +0 1 +900 +1000 +0\.900'
expect_text 'guard: passed'
[ "$(jq -r .guard.passed "$TMP/good/bench.json")" = true ] || fail "bench.json: guard not passed"

passes "$TMP/frozen-atomic" 3 100 0 90000 100000
report "$TMP/frozen-atomic"
expect_status 1
expect_text 'pages-0: the frozen path executed 3 refcount atomics'

passes "$TMP/blind" 0 0 0 90000 100000
report "$TMP/blind"
expect_status 1
expect_text 'pages-0: the refcounted path executed 0 refcount atomics for 100 frees'

passes "$TMP/dropped" 0 100 7 90000 100000
report "$TMP/dropped"
expect_status 1
expect_text 'pages-0: the hist triggers dropped 7 events'

passes "$TMP/dearer" 0 100 0 110000 100000
report "$TMP/dearer"
expect_status 1
expect_text 'pages-0: under -icount the frozen path executed 1100.0 instructions per operation, the refcounted one 1000.0'

mkdir "$TMP/empty"
report "$TMP/empty"
expect_status 2
echo "bench report: the guard passes on good counts and fails on a frozen atomic, a blind count, drops and dearer frozen pages"
