#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-log finds kernel panics, BUGs, Oopses, WARNINGs and refcount
# warnings in a console log, and ignores the same words printed by user
# space (lines without the kernel's timestamp).
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

clean_log() {
	cat <<'LOG'
[    0.000000] Linux version 6.12.118-mm-frozen (root@host) #1 SMP
[    1.234567] Run /init as init process
WARNING: user space may print this, it is not the kernel's
ok 1 selftests: mm-frozen: plumbing.sh
LOG
}

expect_problem() { # expect_problem NAME LINE
	{ clean_log; printf '%s\n' "$2"; } > "$TMP/$1.log"
	run_runner check-log "$TMP/$1.log"
	expect_status 7
	expect_text "$2"
}

clean_log > "$TMP/clean.log"
run_runner check-log "$TMP/clean.log"
expect_status 0
expect_output 'no kernel problems'

expect_problem panic '[    3.100000] Kernel panic - not syncing: sysrq triggered crash'
expect_problem bug '[    2.000000] kernel BUG at mm/slub.c:1234!'
expect_problem oops '[    2.000000] Oops: general protection fault, probably for non-canonical address'
expect_problem warning '[    2.000000] WARNING: CPU: 1 PID: 77 at mm/page_alloc.c:4321 free_frozen_pages+0x1/0x2'
expect_problem refcount '[    2.000000] refcount_t: underflow; use-after-free.'
expect_problem badpage '[    2.000000] BUG: Bad page state in process swapper  pfn:01234'
echo "check-log: 6 kinds of kernel problem found, user-space text ignored"
