#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# upstream.sh [SUITE...] - the kernel's own suites in the mm-frozen guest,
# run by "runner.sh upstream" through stage2.sh; prints one KTAP result
# per test, named SUITE:TEST, and writes each to $MMF_RESULTS/upstream.tsv
# as "TEST <TAB> pass|fail|skip <TAB> DIRECTIVE":
#
#   kunit:slub_test   KUnit's slub_kunit, loaded with modprobe (runner.sh
#                     installs the build's modules); its results are read
#                     from /sys/kernel/debug/kunit/slub_test/results
#   mm:CATEGORY       tools/testing/selftests/mm/run_vmtests.sh -t CATEGORY,
#                     built on the host in $MMF_BUILD/kselftest/mm
#
# Default: every suite of UPSTREAM_SUITES; "full" adds SLOW_SUITES.  Each
# suite runs in a kernel log
# window of its own (see selftests/mm-frozen/mm_frozen.h) under a timeout,
# and gets one more result: whether the kernel logged a problem meanwhile,
# but for the reports a suite makes on purpose (EXPECTED_REPORTS).  A
# program's result carries the totals of its own subtests, so that a pass
# that skipped everything shows as such.

set -u

: "${MMF_BUILD:?not set: run through runner.sh}"
: "${MMF_ROOT:?not set: run through runner.sh}"
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
PROBLEMS=$(grep -v -e '^#' -e '^$' "$MMF_ROOT/selftests/mm-frozen/kernel-problems")
LOG=/tmp/mm-frozen-upstream
TSV="$MMF_RESULTS/upstream.tsv"
nr=0

kmsg() {
	echo "<4>mm-frozen: test $*" > /dev/kmsg
}

result() { # result ok|not-ok NAME [DIRECTIVE]
	local verdict=pass
	nr=$((nr + 1))
	if [ "$1" = ok ]; then
		echo "ok $nr $2${3:+ # $3}"
		[[ ${3:-} != [Ss][Kk][Ii][Pp]* ]] || verdict=skip
	else
		echo "not ok $nr $2${3:+ # $3}"
		verdict=fail
	fi
	printf '%s\t%s\t%s\n' "$2" "$verdict" "${3:-}" >> "$TSV"
}

# The kernel log lines of the suite's window that are problems, but for
# exactly the reports it declared; a different number of those is one.
window_problems() {
	local lines expected=${EXPECTED_REPORTS[$1]:-} count ere seen
	lines=$(dmesg | sed -n "/mm-frozen: test begin $1\$/,/mm-frozen: test end $1\$/p" |
		sed 's/^\[[^]]*\] //' | grep -E -e "$PROBLEMS" | grep -v '^mm-frozen: test ')
	if [ -n "$expected" ]; then
		count=${expected%% *} ere=${expected#* }
		seen=$(grep -c -E -e "$ere" <<< "$lines")
		lines=$(grep -v -E -e "$ere" <<< "$lines")
		[ "$seen" = "$count" ] ||
			lines+=$'\n'"expected $count line(s) matching /$ere/, saw $seen"
	fi
	sed '/^$/d' <<< "$lines"
}

# The results of a suite's output: "ok|not-ok NAME DIRECTIVE" a line, the
# directive followed by the totals of the program's own subtests.
suite_results() {
	awk '/Totals: pass:/ { totals = $0; sub(/.*Totals: /, "", totals) }
	/^(not )?ok [0-9]+ / {
		verdict = $1 == "not" ? "not-ok" : "ok"
		name = $0; sub(/^(not )?ok [0-9]+ /, "", name)
		directive = ""
		if (index(name, " # ")) {
			directive = substr(name, index(name, " # ") + 3)
			name = substr(name, 1, index(name, " # ") - 1)
		}
		if (totals != "")
			directive = directive (directive != "" ? "; " : "") totals
		print verdict "\t" name "\t" directive
		totals = ""
	}' "$1"
}

# run_suite NAME CMD...: CMD's KTAP results, renamed NAME:TEST, then the
# kernel log check.  A suite that times out or prints no result fails.
run_suite() {
	local name=$1 out status problems verdict test directive
	shift
	out="$LOG/${name//[:\/]/_}.log"
	kmsg "begin $name"
	[ -z "${EXPECTED_REPORTS[$name]:-}" ] || kmsg "expect ${EXPECTED_REPORTS[$name]}"
	echo "# $name: $*"
	timeout -k 10 "$SUITE_TIMEOUT" bash -c '"$@"' "$name" "$@" > "$out" 2>&1
	status=$?
	kmsg "end $name"
	sed 's/^/# /' "$out"
	while IFS=$'\t' read -r verdict test directive; do
		result "$verdict" "$name:$test" "$directive"
	done < <(suite_results "$out")
	[ "$status" != 124 ] || result not-ok "$name:(timeout)" "killed after ${SUITE_TIMEOUT}s"
	problems=$(window_problems "$name")
	if [ -n "$problems" ]; then
		printf '# kernel: %s\n' "${problems//$'\n'/$'\n'# kernel: }"
		result not-ok "$name:(kernel log)" "$(wc -l <<< "$problems") problem line(s)"
	else
		result ok "$name:(kernel log)"
	fi
}

# KUnit prints its KTAP to debugfs, the test cases indented.
kunit_suite() {
	modprobe "$1" || echo "modprobe $1 failed"
	sed 's/^[[:space:]]*//' "/sys/kernel/debug/kunit/$2/results"
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
mkdir -p "$LOG"
: > "$TSV"
# shellcheck disable=SC2086 # one suite per word
case "${*:-}" in
"") set -- $UPSTREAM_SUITES ;;
full) set -- $UPSTREAM_SUITES $SLOW_SUITES ;;
esac
suites=("$@")
echo "TAP version 13"
for suite in "${suites[@]}"; do
	case "$suite" in
	kunit:slub_test) run_suite "$suite" kunit_suite slub_kunit slub_test ;;
	mm:*) run_suite "$suite" mm_suite "${suite#mm:}" ;;
	*) result not-ok "$suite" "unknown suite" ;;
	esac
done
echo "1..$nr"
