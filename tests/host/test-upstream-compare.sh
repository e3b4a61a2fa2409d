#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# runner.sh upstream-compare reads the results of "runner.sh upstream" of
# this variant and of the baseline from the work directory: on the real
# runs of tests/fixtures/upstream it exits 0 with the table; with a
# regression, 1; without the baseline's results, 2, saying what to run.
# The comparison itself: tests/unit/test_upstream.py.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

results() { # results VARIANT TSV: VARIANT's upstream.tsv in the work directory
	mkdir -p "$TMP/work/results/$1-upstream"
	cp "$2" "$TMP/work/results/$1-upstream/upstream.tsv"
}

results baseline "$MMF_ROOT/tests/fixtures/upstream/baseline.tsv"
results patched "$MMF_ROOT/tests/fixtures/upstream/patched.tsv"
run_runner --work "$TMP/work" upstream-compare
expect_status 0
expect_output '^60 tests: 0 regression\(s\), 4 failing on both$'

sed -i 's/^\(mm:cow:cow\)\tpass\t/\1\tfail\t/' "$TMP/work/results/patched-upstream/upstream.tsv"
run_runner upstream-compare --work "$TMP/work"
expect_status 1
expect_output '^mm:cow:cow +fail +pass +REGRESSION'

run_runner --work "$TMP/work" --baseline upstream-compare
expect_status 2
expect_text 'upstream-compare compares a patched variant with the baseline'

rm "$TMP/work/results/baseline-upstream/upstream.tsv"
run_runner --work "$TMP/work" upstream-compare
expect_status 2
expect_output 'run runner.sh --baseline upstream first'
echo "upstream-compare: the real runs side by side (exit 0), a regression (exit 1), a missing baseline (exit 2)"
