#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# upstream.sh [SUITE...] - the kernel's own suites in the mm-frozen guest,
# run by "runner.sh upstream" through stage2.sh.  It only collects: each
# suite's raw output in $MMF_RESULTS/upstream/LOG; when it starts, a line
# "SUITE <TAB> LOG <TAB> TIMEOUT" in suites.tsv there (LOG empty for a
# suite this script does not know); when it ends, "SUITE <TAB> EXIT" in
# exits.tsv.  The host reads them and the kernel log with ktap.py and
# kernel_log.py into upstream.tsv (mmfrozen.upstream collect).
#
#   kunit:slub_test   KUnit's slub_kunit, loaded with modprobe (runner.sh
#                     installs the build's modules); its results are read
#                     from /sys/kernel/debug/kunit/slub_test/results
#   mm:CATEGORY       tools/testing/selftests/mm/run_vmtests.sh -t CATEGORY,
#                     built on the host in $MMF_BUILD/kselftest/mm
#
# Default: every suite of UPSTREAM_SUITES; "full" adds SLOW_SUITES.  Each
# suite runs under a timeout, in a kernel log window of its own (see
# selftests/mm-frozen/mm_frozen.h) that declares the reports it makes on
# purpose (EXPECTED_REPORTS).

set -u

: "${MMF_BUILD:?not set: run through runner.sh}"
: "${MMF_RESULTS:?not set: run through runner.sh}"

# The mm categories that go through what the series changed and finish
# under TCG in about three and a half minutes together (docs/tests.md: the
# kernel's own suites).  SLOW_SUITES take three more: thp (split and
# stress; cow covers THP allocation and freeing) and userfaultfd.  Not
# run: migration (its threads need three CPUs, and two nodes), hugevm and
# pkey (hardware), hmm and memfd_secret (config).
UPSTREAM_SUITES="kunit:slub_test mm:compaction mm:hugetlb mm:gup_test mm:cow
mm:ksm mm:vmalloc mm:mmap mm:mremap mm:mlock mm:madv_populate mm:mkdirty
mm:soft_dirty mm:pagemap"
SLOW_SUITES="mm:thp mm:userfaultfd"

# Reports that a suite makes on purpose: "COUNT ERE", declared in its
# window.  gup_test -ct -F 0x1 0 19 0x1000 dumps those three pages.
declare -A EXPECTED_REPORTS=(
	[mm:gup_test]='3 page dumped because: gup_test: dump_pages\(\) test'
)

MM_DIR="$MMF_BUILD/kselftest/mm"
# 60 s a suite on hardware, scaled like the kselftest timeouts under TCG;
# the longest, thp, took 110-200 s under TCG here.
SUITE_TIMEOUT=$((60 * ${MMF_TIMEOUT_SCALE:-1}))
OUT="$MMF_RESULTS/upstream"

kmsg() {
	echo "<4>mm-frozen: test $*" > /dev/kmsg
}

# run_suite NAME CMD...: CMD's output in OUT, on the console too, within
# the kernel log window NAME.
run_suite() {
	local name=$1 log status
	shift
	log="${name//[:\/]/_}.log"
	printf '%s\t%s\t%s\n' "$name" "$log" "$SUITE_TIMEOUT" >> "$OUT/suites.tsv"
	kmsg "begin $name"
	[ -z "${EXPECTED_REPORTS[$name]:-}" ] || kmsg "expect ${EXPECTED_REPORTS[$name]}"
	echo "# $name: $*"
	timeout -k 10 "$SUITE_TIMEOUT" bash -c '"$@"' "$name" "$@" > "$OUT/$log" 2>&1
	status=$?
	kmsg "end $name"
	sed 's/^/# /' "$OUT/$log"
	printf '%s\t%s\n' "$name" "$status" >> "$OUT/exits.tsv"
}

# KUnit prints its KTAP to debugfs.
kunit_suite() {
	modprobe "$1" || echo "modprobe $1 failed"
	cat "/sys/kernel/debug/kunit/$2/results"
}

mm_suite() {
	cd "$MM_DIR" && ./run_vmtests.sh -t "$1"
}

# run_suite runs them under timeout, in a bash of their own.
export -f kunit_suite mm_suite
export MM_DIR

# Modules from the build: runner.sh installed them in $MMF_BUILD/modroot.
mkdir -p /lib/modules
ln -sfn "$MMF_BUILD/modroot/lib/modules/$(uname -r)" "/lib/modules/$(uname -r)"
rm -rf "$OUT"
mkdir -p "$OUT"
# shellcheck disable=SC2086 # one suite per word
case "${*:-}" in
"") set -- $UPSTREAM_SUITES ;;
full) set -- $UPSTREAM_SUITES $SLOW_SUITES ;;
esac
for suite in "$@"; do
	case "$suite" in
	kunit:slub_test) run_suite "$suite" kunit_suite slub_kunit slub_test ;;
	mm:*) run_suite "$suite" mm_suite "${suite#mm:}" ;;
	*) printf '%s\t\t\n' "$suite" >> "$OUT/suites.tsv" ;;
	esac
done
