#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - the mm-frozen test suite ("make check"): the fast tests (the
# verdicts' unit tests and the host tests that need no kernel), shellcheck
# over every script, the host tests that boot a guest, the full run on the
# patched kernel,
# the callers in its tree that take a page reference on memory that may
# come from kmalloc(), each classified (docs/callers.md),
# the run on the unpatched baseline, where the slab check must fail, the
# hazard tests on the series without its slab refcount fix, where they must
# fail, and the kernel's own slab and mm suites on both kernels, where the
# patched one must not lose a test the baseline passes; the bench's guard
# (no refcount atomic on a frozen path, one per refcounted free, frozen
# page allocation no dearer than refcounted under -icount, each case
# within 3 % of the committed reference); then the
# series check on trees where its verdict is known, and the whole job on
# an older Debian 6.12 (MMF_OLDER_SOURCE); last, the reports those runs
# wrote, against their schemas.  make check-full (MMF_CHECK_FULL=1) adds
# the bisect build of every commit of the series, the tracing check's
# retries, shown on a bpftrace that says it lost events, the expected
# statuses' teeth: the series without its tracepoint, whose skips must
# fail the run, the workflow's glue run here for two trees, the bench
# guard's teeth: a kernel slower on purpose, whose
# cases must move from the reference, the whole
# target under KASAN, kmemleak and page_owner, the sanitizers' teeth:
# bugs put in on purpose that they must report, the series' mutants,
# which the suite must kill, and the coverage of the series' lines, every
# line not run listed with its reason.  Each step is one
# result; at the end, a table of the steps with their verdict and
# seconds, and a line that sums them up.  Options are passed to every
# runner.sh call.
#
# Usage: tests/check.sh [RUNNER-OPTIONS...]

set -u
cd "$(dirname "$0")/.." || exit 1

passed=0 failed=0 failures=() table=()

step() { # step NAME COMMAND...
	local name=$1 t0=$SECONDS verdict=passed
	shift
	echo "=== $name: $*"
	if "$@"; then
		passed=$((passed + 1))
	else
		verdict=FAILED
		failed=$((failed + 1))
		failures+=("$name")
	fi
	echo "=== $name: $verdict ($((SECONDS - t0))s)"
	table+=("$(printf '%-28s %-7s %6d' "$name" "$verdict" $((SECONDS - t0)))")
}

# The Debian packages first (on a new machine: the unit tests check the
# reports with xmllint and python3-jsonschema, shellcheck checks the
# scripts), then the fast tests: they need no kernel, and fail in
# seconds.
step deps ./runner.sh "$@" deps
step test-fast make -s test-fast RUNNER_FLAGS="$*"
step kernel ./runner.sh "$@" kernel
step shellcheck make -s shellcheck
step workflow tests/expect-workflow.sh "$@"
step host-tests env MMF_TEST_FLAGS="$*" tests/host/run.sh --kernel
step patched ./runner.sh "$@"
step callers ./runner.sh "$@" callers
step baseline-fails-slab-check tests/expect-baseline.sh "$@"
step hazards-caught-without-fix tests/expect-caught.sh "$@"
step upstream-suites tests/upstream-suites.sh "$@"
step bench-guard ./runner.sh "$@" bench quick
step series-check tests/expect-series.sh "$@"
step older-6.12 ./runner.sh "$@" --source "${MMF_OLDER_SOURCE:-linux-source-6.12=6.12.107-1~deb12u1}" \
	series --no-bisect
step reports tests/expect-reports.sh "$@"
if [ "${MMF_CHECK_FULL:-0}" = 1 ]; then
	step series-bisect ./runner.sh "$@" series --no-test
	step tracing-retry tests/expect-retry.sh "$@"
	step statuses-lost tests/expect-lost.sh "$@"
	step workflow-glue tests/expect-workflow.sh --glue "$@"
	step bench-slower tests/expect-slower.sh "$@"
	step kasan ./runner.sh "$@" --variant kasan
	step tooth-uaf tests/expect-tooth.sh uaf "$@"
	step tooth-leak tests/expect-tooth.sh leak "$@"
	step tooth-double-free tests/expect-tooth.sh double-free "$@"
	step mutants ./runner.sh "$@" mutants
	step coverage ./runner.sh "$@" coverage
fi

# the steps' times, so that the slow ones show
printf '%-28s %-7s %6s\n' STEP VERDICT SECONDS
printf '%s\n' "${table[@]}"
printf '%-28s %-7s %6d\n' total '' "$SECONDS"
[ $failed = 0 ] || echo "failed steps: ${failures[*]}"
echo "check: $passed passed, $failed failed"
[ $failed = 0 ]
