#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# upstream-compare puts the patched and baseline results side by side: a
# test that passes on the baseline and fails or is missing on the patched
# kernel is a regression (exit status 1); a test failing on both is listed,
# and the tests of a suite that did not run on the patched kernel too.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

results() { # results VARIANT LINE...: VARIANT's upstream.tsv, '|' for tabs
	local dir="$TMP/work/results/$1-upstream"
	shift
	mkdir -p "$dir"
	printf '%s\n' "$@" | tr '|' '\t' > "$dir/upstream.tsv"
}

results baseline 'mm:cow:cow|pass|pass:423 skip:232' \
	'mm:thp:khugepaged|fail|exit=127' 'mm:ksm:ksm_tests -U|pass|' \
	'kunit:slub_test:test_leak_destroy|pass|' 'kunit:slub_test:slub_test|pass|'
results patched 'mm:cow:cow|pass|pass:423 skip:232' \
	'mm:thp:khugepaged|fail|exit=127' 'mm:ksm:ksm_tests -U|pass|' \
	'kunit:slub_test:test_leak_destroy|pass|' 'kunit:slub_test:slub_test|pass|'
run_runner --work "$TMP/work" upstream-compare
expect_status 0
expect_output '^mm:thp:khugepaged +fail +fail +fails on both'
expect_output '5 tests: 0 regression\(s\), 1 failing on both'

# cow fails; test_leak_destroy is missing from a suite that ran; thp and
# ksm did not run at all.
results patched 'mm:cow:cow|fail|exit=1' 'kunit:slub_test:slub_test|pass|'
run_runner --work "$TMP/work" upstream-compare
expect_status 1
expect_output '^mm:cow:cow +fail +pass +REGRESSION'
expect_output '^kunit:slub_test:test_leak_destroy +missing +pass +REGRESSION'
expect_output '^mm:ksm:ksm_tests -U +not-run +pass +suite not run here'
expect_output '5 tests: 2 regression\(s\), 0 failing on both'

rm "$TMP/work/results/baseline-upstream/upstream.tsv"
run_runner --work "$TMP/work" upstream-compare
expect_status 2
expect_output 'run runner.sh --baseline upstream first'
echo "upstream-compare: regressions and tests failing on both told apart"
