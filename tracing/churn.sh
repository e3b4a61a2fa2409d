#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# churn.sh - make the kernel free pages on the three paths that the mm-frozen
# tracing scripts tell apart, without any test module:
#
#   slab    create FILES files and FILES directories in a private tmpfs,
#           delete them, unmount it, wait for RCU to free the dentries and
#           inodes, then "echo 1 > /sys/kernel/slab/*/shrink": SLUB hands
#           the now empty slabs back to the page allocator (__free_slab()).
#   pages   read /proc/self/cmdline FILES times with a shell builtin: each
#           read() is a __get_free_page() + free_page(), i.e. __free_pages().
#   folios  write FILES 16 KiB files in a private tmpfs and unmount it: the
#           page cache is truncated in folio batches (folios_put_refs()).
#
# Everything but the mkdir (one xargs) is shell builtins: a fork and exec
# costs a tenth of a second in the TCG guest.
#
# USAGE: churn.sh [-h] [-r ROUNDS] [-n FILES] [-d DIR] [-q] [KIND...]
#
#   KIND     slab, pages, folios or all (default: all)
#   -r N     rounds of each kind (default 3)
#   -n N     files per round (default 2000)
#   -d DIR   mount point for the private tmpfs (default: a mktemp -d dir)
#   -q       quiet: no progress lines
#
# Run it as root in the mm-frozen guest (never on a host you care about:
# it shrinks every slab cache).  Example:
#
#   # ./churn.sh -r 2 slab pages
#   churn: round 1: slab 2000 files, pages 2000 reads
#   churn: round 2: slab 2000 files, pages 2000 reads
#
# Copyright 2025 The mm-frozen authors.
# Licensed under the GNU General Public License, version 2.

set -eu

ROUNDS=3
FILES=2000
DIR=
QUIET=
KINDS=()

usage() {
	sed -n '/^# USAGE/,/^#   -q/s/^# \{0,1\}//p' "$0"
	exit "${1:-0}"
}

say() {
	[ -n "$QUIET" ] || echo "churn: $*"
}

while getopts hr:n:d:q opt; do
	case "$opt" in
	h) usage 0 ;;
	r) ROUNDS=$OPTARG ;;
	n) FILES=$OPTARG ;;
	d) DIR=$OPTARG ;;
	q) QUIET=1 ;;
	*) usage 2 >&2 ;;
	esac
done
shift $((OPTIND - 1))
case "$ROUNDS$FILES" in
*[!0-9]*|'') echo "churn: -r and -n take positive numbers" >&2; exit 2 ;;
esac
for kind in "${@:-all}"; do
	case "$kind" in
	slab|pages|folios) KINDS+=("$kind") ;;
	all) KINDS+=(slab pages folios) ;;
	*) echo "churn: unknown kind '$kind'" >&2; usage 2 >&2 ;;
	esac
done
if [ "$(id -u)" != 0 ]; then
	echo "churn: must be run as root (mounts tmpfs, shrinks slab caches)" >&2
	exit 1
fi

# Every cache once: /sys/kernel/slab holds a directory per cache and a
# symlink per merged alias.
shrink_all_slabs() {
	local cache

	for cache in /sys/kernel/slab/*; do
		[ -L "$cache" ] || [ ! -w "$cache/shrink" ] && continue
		echo 1 > "$cache/shrink" 2>/dev/null || :
	done
}

churn_slab() {
	local mnt=$1 i

	mount -t tmpfs -o size=64m mm-frozen-churn "$mnt"
	mkdir "$mnt/d" "$mnt/f"
	for ((i = 0; i < FILES; i++)); do
		: > "$mnt/f/$i"
	done
	seq -f "$mnt/d/%g" 1 "$FILES" | xargs mkdir
	umount "$mnt"
	# dentries and inodes are freed after an RCU grace period; a few
	# synchronize_rcu() later they are back in their slabs.
	sleep 0.3
	shrink_all_slabs
}

churn_pages() {
	local i

	for ((i = 0; i < FILES; i++)); do
		read -r -d '' _ < /proc/self/cmdline || :
	done
}

churn_folios() {
	local mnt=$1 i block

	block=$(printf '%4096s' '')
	mount -t tmpfs -o size=128m mm-frozen-churn "$mnt"
	for ((i = 0; i < FILES; i++)); do
		printf '%s%s%s%s' "$block" "$block" "$block" "$block" > "$mnt/$i"
	done
	umount "$mnt"
}

cleanup() {
	if [ -n "${MNT:-}" ]; then
		mountpoint -q "$MNT" && umount "$MNT"
		[ -n "$DIR" ] || rmdir "$MNT"
	fi
}

MNT=${DIR:-$(mktemp -d /tmp/mm-frozen-churn.XXXXXX)}
mkdir -p "$MNT"
trap cleanup EXIT
trap 'exit 130' INT TERM

for ((round = 1; round <= ROUNDS; round++)); do
	done_kinds=()
	for kind in "${KINDS[@]}"; do
		case "$kind" in
		slab) churn_slab "$MNT"; done_kinds+=("slab $FILES files") ;;
		pages) churn_pages; done_kinds+=("pages $FILES reads") ;;
		folios) churn_folios "$MNT"; done_kinds+=("folios $FILES files") ;;
		esac
	done
	summary=$(printf '%s, ' "${done_kinds[@]}")
	say "round $round: ${summary%, }"
done
