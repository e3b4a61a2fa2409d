#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A loss fails the run.  Two guests recorded from real runs of the
# patched kernel, each of which kselftest and the verdict alone call
# green: frozen_pages_test with mm_frozen_test.ko gone, each of its cases
# a SKIP (the contig cases, mm_frozen_cases.ko's, pass); and a
# target that lost all its programs but plumbing.sh.  Held to
# tests/expected/patched.txt, each exits 1 (tests-failed), names every
# pass that became a skip, with the test's reason, and every program
# gone missing; verdict.json, junit.xml and kcidb.json say the same.
# guest: stand-in
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

expect="$MMF_ROOT/tests/expected/patched.txt"
cmd=$(fake_target "$TMP/ks" 60) || fail "$cmd"
pages='selftests: mm-frozen: frozen_pages_test'
gone='cannot open mm_frozen_test/mm_frozen_test.ko beside frozen_pages_test (module not built?): No such file or directory'

# differences RESULTS: verdict.json's differences, a line each.
differences() {
	jq -r '.expected.differences[].text' "$1/verdict.json"
}

scenario module-not-loaded
run_runner --results "$TMP/green" --guest-cmd "$cmd" --tests frozen_pages_test boot
expect_status 0
expect_text 'statuses not compared: no expectation file'

run_runner --results "$TMP/m" --guest-cmd "$cmd" --tests frozen_pages_test --expect "$expect" boot
expect_status 1
expect_verdict "$TMP/m" tests-failed 1
for t in frozen.slab_free_without_refcount_atomic frozen.slab_free_reaches_free_frozen_pages \
	frozen.free_pages_one_atomic_to_zero frozen.alloc_refcount \
	knob.slab_frozen_0_one_atomic knob.slab_frozen_1_no_atomic; do
	expect_text "    pass -> skip: $pages / $t ($gone)"
done
expect_text "patched: 6 passed, 0 failed, 6 skipped, 6 not as expected ($expect)"
[ "$(differences "$TMP/m" | wc -l)" = 6 ] || fail "verdict.json: not 6 differences: $(differences "$TMP/m")"
[ "$(xmllint --xpath 'count(//testsuite[@name="expected-statuses"]/testcase/failure)' "$TMP/m/junit.xml")" = 6 ] ||
	fail "junit.xml: not 6 failures in expected-statuses"
[ "$(jq -r '.tests[] | select(.path == "kselftest.mm-frozen.expected_statuses") | .status' "$TMP/m/kcidb.json")" = FAIL ] ||
	fail "kcidb.json: expected_statuses is not FAIL"

scenario programs-missing
run_runner --results "$TMP/p" --guest-cmd "$cmd" --expect "$expect" boot
expect_status 1
expect_verdict "$TMP/p" tests-failed 1
for p in frozen_pages_test frozen_knob_test frozen_hazard_test frozen_fault_test \
	frozen_pressure_test frozen_bench_test.sh tracing_scripts.sh; do
	expect_output "^    missing: selftests: mm-frozen: $p \(expected pass, and its [0-9]+ subtests\)$"
done
[ "$(differences "$TMP/p" | wc -l)" = 7 ] || fail "verdict.json: not 7 differences: $(differences "$TMP/p")"
[ "$(jq '[.tests[] | select(.status == "MISS")] | length' "$TMP/p/kcidb.json")" = 7 ] ||
	fail "kcidb.json: not a MISS for each of the 7 programs"
echo "expected statuses: a module that did not load (6 passes became skips, each named) and" \
	"7 programs missing fail the run (exit 1), green without the file"
