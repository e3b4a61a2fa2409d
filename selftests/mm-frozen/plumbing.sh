#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# plumbing.sh - the kernel under test is the one that was built, and it has
# the instruments the other mm-frozen tests rely on: page_ref tracepoints
# that bpftrace can count, and (on the patched kernel) the frozen-page
# allocator entry points.
#
# Environment (set by mm-frozen's runner.sh; optional when run by hand):
#   MMF_KERNELRELEASE  expected "uname -r"
#   MMF_VARIANT        "baseline" for the unpatched kernel, else patched

DIR=$(dirname "$(readlink -f "$0")")
# shellcheck source=/dev/null
. "$DIR/../kselftest/ktap_helpers.sh"

TRACEFS=/sys/kernel/tracing
BPFTRACE_TIMEOUT=180

check_kernel_release() {
	local running

	running=$(uname -r)
	if [ -z "${MMF_KERNELRELEASE:-}" ]; then
		ktap_test_skip "kernel release (MMF_KERNELRELEASE not set; running $running)"
		return
	fi
	ktap_print_msg "running $running, built $MMF_KERNELRELEASE"
	ktap_test_result "uname -r is the built kernel" \
		[ "$running" = "$MMF_KERNELRELEASE" ]
}

check_page_ref_events() {
	ktap_test_result "$TRACEFS/events/page_ref/page_ref_mod_and_test exists" \
		[ -d "$TRACEFS/events/page_ref/page_ref_mod_and_test" ]
}

# Frees pages while bpftrace counts page_ref_mod_and_test for 2 seconds.
count_refcount_atomics() {
	local churn count

	( while :; do /bin/true; done ) &
	churn=$!
	count=$(timeout "$BPFTRACE_TIMEOUT" bpftrace -e '
		tracepoint:page_ref:page_ref_mod_and_test { @events = count(); }
		interval:s:2 { exit(); }' 2>&1 | sed -n 's/^@events: \([0-9]*\)$/\1/p')
	kill "$churn"
	wait "$churn" 2>/dev/null
	echo "${count:-0}"
}

check_bpftrace_counts() {
	local count

	if ! command -v bpftrace >/dev/null; then
		ktap_test_skip "bpftrace counts page_ref_mod_and_test (no bpftrace)"
		return
	fi
	count=$(count_refcount_atomics)
	ktap_print_msg "bpftrace counted $count page_ref_mod_and_test events in 2 s"
	ktap_test_result "bpftrace counts page_ref_mod_and_test events" \
		[ "$count" -gt 0 ]
}

frozen_symbols() {
	awk '$3 ~ /^(__)?alloc_frozen_pages(_noprof)?$|^free_frozen_pages$/ { print $3 }' \
		/proc/kallsyms | sort -u | tr '\n' ' '
}

check_frozen_symbols() {
	local found

	found=$(frozen_symbols)
	ktap_print_msg "frozen-page symbols in /proc/kallsyms: ${found:-none}"
	if [ "${MMF_VARIANT:-patched}" = baseline ]; then
		ktap_test_result "no frozen-page allocator on the baseline kernel" \
			[ -z "$found" ]
	else
		ktap_test_result "alloc_frozen_pages and free_frozen_pages in kallsyms" \
			grep -q 'alloc_frozen_pages.*free_frozen_pages' <<< "$found"
	fi
}

ktap_print_header
if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "must be run as root (reads /proc/kallsyms and tracefs)"
	exit "$KSFT_SKIP"
fi
if [ ! -d "$TRACEFS/events" ]; then
	ktap_skip_all "tracefs is not mounted at $TRACEFS"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 4
check_kernel_release
check_page_ref_events
check_bpftrace_counts
check_frozen_symbols
ktap_finished
