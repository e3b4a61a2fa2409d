#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# atomics-per-slab-free.sh - page refcount atomics per 1,000 slab page frees,
# for each setting of /sys/kernel/debug/frozen_pages/slab_frozen.
#
# For each setting (default: 0, then 1) it writes the knob, primes the slab
# caches (one round of churn, then every cache shrunk, so that the slabs
# freed while measuring were allocated under the setting being measured),
# starts refcount-paths.bt, makes SLUB free slabs (churn.sh slab: files and
# directories created and deleted in a private tmpfs, then every cache
# shrunk), stops bpftrace and keeps its "slab" row: page frees under
# __free_slab() and the page_ref atomics in them.  The knob is restored on
# exit.  If /sys/kernel/debug/frozen_pages/stats exists, the growth of its
# free_frozen and free_refcounted counters is shown beside each row.
#
# Without the knob (a kernel without CONFIG_DEBUG_FROZEN_PAGES, or without
# mm-frozen's own patches) it says so and measures the kernel as built: one
# row, setting "built-in".  The series alone gives about 0; the unpatched
# kernel about 1000.
#
# USAGE: atomics-per-slab-free.sh [-h] [-r ROUNDS] [-n FILES] [-s SETTINGS] [-t SECONDS]
#
#   -r N         churn rounds per setting (default 2)
#   -n N         files and directories per round (default 2000)
#   -s "0 1"     settings to measure, in order (default "0 1")
#   -t SECONDS   how long to wait for bpftrace to attach (default 300)
#
# Root only, in the mm-frozen guest.  Example (patched kernel with the knob,
# TCG guest, -r 2 -n 1000):
#
#   # ./atomics-per-slab-free.sh -r 2 -n 1000
#   SETTING          SLAB_PAGE_FREES  REFCOUNT_ATOMICS  PER_1000_FREES  STATS_FREE_FROZEN  STATS_FREE_REFCOUNTED
#   slab_frozen=0                445               441             991                  3                    438
#   slab_frozen=1                447                 7              16                439                      7
#
# (The few frozen frees at 0 and refcounted ones at 1 are slabs allocated
# under the other setting; the stats columns count them the same way.)
#
# Exit status: 0 measured, 1 a measurement failed (bpftrace error, no slab
# page frees seen), 2 usage, 4 cannot run here (not root, no bpftrace).
#
# Copyright 2025 The mm-frozen authors.
# Licensed under the GNU General Public License, version 2.

set -u

HERE=$(dirname "$(readlink -f "$0")")
KNOB_DIR=/sys/kernel/debug/frozen_pages
KNOB=$KNOB_DIR/slab_frozen
STATS=$KNOB_DIR/stats
ROUNDS=2
FILES=2000
SETTINGS="0 1"
ATTACH_TIMEOUT=300

usage() {
	sed -n '/^# USAGE/,/^#   -t/s/^# \{0,1\}//p' "$0"
	exit "${1:-0}"
}

die() {
	local status=$1

	shift
	echo "atomics-per-slab-free: $*" >&2
	exit "$status"
}

while getopts hr:n:s:t: opt; do
	case "$opt" in
	h) usage 0 ;;
	r) ROUNDS=$OPTARG ;;
	n) FILES=$OPTARG ;;
	s) SETTINGS=$OPTARG ;;
	t) ATTACH_TIMEOUT=$OPTARG ;;
	*) usage 2 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage 2 >&2
for n in "$ROUNDS" "$FILES" "$ATTACH_TIMEOUT"; do
	case "$n" in
	''|*[!0-9]*) die 2 "-r, -n and -t take numbers" ;;
	esac
done
for s in $SETTINGS; do
	case "$s" in
	0|1) ;;
	*) die 2 "-s: settings are 0 and 1" ;;
	esac
done

[ "$(id -u)" = 0 ] || die 4 "must be run as root"
command -v bpftrace >/dev/null || die 4 "bpftrace is not installed"
[ -r "$HERE/refcount-paths.bt" ] || die 1 "no $HERE/refcount-paths.bt"
[ -x "$HERE/churn.sh" ] || die 1 "no $HERE/churn.sh"

TMP=$(mktemp -d /tmp/atomics-per-slab-free.XXXXXX)
ORIG=
BPF_PID=

cleanup() {
	if [ -n "$BPF_PID" ]; then
		kill -INT "$BPF_PID" 2>/dev/null
		wait "$BPF_PID" 2>/dev/null
	fi
	if [ -n "$ORIG" ]; then
		echo "$ORIG" > "$KNOB" || echo "atomics-per-slab-free: could not restore $KNOB to $ORIG" >&2
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# stats_counter NAME: a counter of the stats file, "-" without one.
stats_counter() {
	[ -r "$STATS" ] || { echo -; return; }
	awk -v name="$1" '$1 == name { print $2; found = 1 } END { if (!found) print "-" }' "$STATS"
}

delta() {
	case "$1$2" in
	*-*) echo - ;;
	*) echo $(($2 - $1)) ;;
	esac
}

# attached_probes PID: perf events and BPF links bpftrace PID holds open.
attached_probes() {
	find "/proc/$1/fd" -lname 'anon_inode:\[perf_event\]' -o \
		-lname 'anon_inode:bpf_link' 2>/dev/null | wc -l
}

# wait_attached OUT: wait until bpftrace ($BPF_PID, writing OUT) has
# attached every probe of its "Attaching N probes..." line.  Its BEGIN
# probe runs before the others are attached: "Tracing..." is not enough.
wait_attached() {
	local out=$1 i n=

	for ((i = 0; i < ATTACH_TIMEOUT * 5; i++)); do
		kill -0 "$BPF_PID" 2>/dev/null || return 1
		[ -n "$n" ] || n=$(sed -n 's/^Attaching \([0-9]*\) probes.*/\1/p' "$out")
		if [ -n "$n" ] && [ "$(attached_probes "$BPF_PID")" -ge "$n" ]; then
			return 0
		fi
		sleep 0.2
	done
	return 1
}

# measure LABEL: one table row on stdout, progress on stderr.
measure() {
	local label=$1 out=$TMP/refcount-paths.out i row frees atomics per1000
	local frozen0 refc0 frozen1 refc1 status

	"$HERE/churn.sh" -q -r 1 -n "$FILES" slab || die 1 "churn.sh failed"
	bpftrace "$HERE/refcount-paths.bt" > "$out" 2>&1 &
	BPF_PID=$!
	wait_attached "$out" || {
		sed 's/^/  bpftrace: /' "$out" >&2
		die 1 "refcount-paths.bt did not start"
	}
	frozen0=$(stats_counter free_frozen)
	refc0=$(stats_counter free_refcounted)
	"$HERE/churn.sh" -q -r "$ROUNDS" -n "$FILES" slab || die 1 "churn.sh failed"
	frozen1=$(stats_counter free_frozen)
	refc1=$(stats_counter free_refcounted)
	kill -INT "$BPF_PID"
	wait "$BPF_PID"
	status=$?
	BPF_PID=
	row=$(awk '$1 == "slab" && NF == 4 { print $2, $3 }' "$out")
	if [ "$status" != 0 ] || [ -z "$row" ]; then
		sed 's/^/  bpftrace: /' "$out" >&2
		die 1 "refcount-paths.bt failed (status $status) or printed no slab row"
	fi
	read -r frees atomics <<< "$row"
	if [ "$frees" -eq 0 ]; then
		die 1 "$label: no slab page frees seen (is __free_slab traced?)"
	fi
	per1000=$(((atomics * 1000 + frees / 2) / frees))
	printf '%-16s %15s %17s %15s %18s %22s\n' "$label" "$frees" "$atomics" \
		"$per1000" "$(delta "$frozen0" "$frozen1")" "$(delta "$refc0" "$refc1")"
}

printf '%-16s %15s %17s %15s %18s %22s\n' SETTING SLAB_PAGE_FREES \
	REFCOUNT_ATOMICS PER_1000_FREES STATS_FREE_FROZEN STATS_FREE_REFCOUNTED
if [ ! -e "$KNOB" ]; then
	echo "atomics-per-slab-free: $KNOB does not exist (kernel without" \
		"CONFIG_DEBUG_FROZEN_PAGES or mm-frozen's knob patch):" \
		"measuring the kernel as built" >&2
	measure built-in
	exit 0
fi
ORIG=$(cat "$KNOB") || die 1 "cannot read $KNOB"
case "$ORIG" in
0|1) ;;
*) die 1 "$KNOB reads '$ORIG', not 0 or 1" ;;
esac
for s in $SETTINGS; do
	echo "$s" > "$KNOB" || die 1 "cannot write $s to $KNOB"
	[ "$(cat "$KNOB")" = "$s" ] || die 1 "$KNOB did not take $s"
	measure "slab_frozen=$s"
done
