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
expect_problem slub '[    2.000000] BUG kmalloc-64 (Not tainted): Left Redzone overwritten'
expect_problem detector '[    2.000000] frozen_pages: bad refcount at slab free: pfn:0x1234 order:1 refcount:1 expected:0 cache:dentry'
expect_problem rcu-stall '[  300.000000] rcu: INFO: rcu_preempt self-detected stall on CPU'
expect_problem rcu-starved '[  300.000000] rcu: rcu_preempt kthread starved for 2101 jiffies! g2945 f0x0 RCU_GP_WAIT_FQS(5) ->state=0x0 ->cpu=1'
expect_problem hung-task '[ 1300.000000] INFO: task kworker/0:1:23 blocked for more than 1200 seconds.'
expect_problem soft-lockup '[  130.000000] watchdog: BUG: soft lockup - CPU#1 stuck for 122s! [bash:812]'

# Test windows: a report a test declares is accepted inside its window,
# exactly as many times as declared; any other problem names the test.
window() { # window EXPECT-COUNT LINE...: a test window around LINEs
	local count=$1
	shift
	clean_log
	echo '[    5.000000] mm-frozen: test begin slab_page.get_page_warns_once'
	echo "[    5.000001] mm-frozen: test expect $count WARNING: .* at [^ ]*include/linux/mm\.h:[0-9]+ "
	printf '%s\n' "$@"
	echo '[    5.900000] mm-frozen: test end slab_page.get_page_warns_once'
}
warn='[    5.100000] WARNING: CPU: 0 PID: 9 at include/linux/mm.h:1461 hz_get_put_page+0x1/0x2 [mm_frozen_cases]'

window 1 "$warn" > "$TMP/declared.log"
run_runner check-log "$TMP/declared.log"
expect_status 0

window 2 "$warn" > "$TMP/too-few.log"
run_runner check-log "$TMP/too-few.log"
expect_status 7
expect_output 'test slab_page.get_page_warns_once: expected 2 kernel line\(s\) matching .*, saw 1'

window 1 "$warn" '[    5.200000] kernel BUG at mm/slub.c:1!' > "$TMP/other.log"
run_runner check-log "$TMP/other.log"
expect_status 7
expect_text 'kernel BUG at mm/slub.c:1!  [during test slab_page.get_page_warns_once]'
if grep -q -F 'WARNING: CPU: 0' "$TMP/out"; then
	fail "the declared warning was reported"
fi

{ window 1 "$warn"; echo "${warn/5.1/6.1}"; } > "$TMP/outside.log"
run_runner check-log "$TMP/outside.log"
expect_status 7
expect_text "${warn/5.1/6.1}"

# On the serial console a kernel line may start where user space left a
# line unfinished: the declared report still counts from its timestamp.
window 1 "# # bvec$warn" > "$TMP/glued.log"
run_runner check-log "$TMP/glued.log"
expect_status 0
{ clean_log; echo "# # ok 3 [    2.000000] kernel BUG at mm/slub.c:7!"; } > "$TMP/glued-bug.log"
run_runner check-log "$TMP/glued-bug.log"
expect_status 7
expect_text '[    2.000000] kernel BUG at mm/slub.c:7!'
echo "check-log: 12 kinds of kernel problem found (stalls and hangs too), user-space text ignored, test windows honoured, kernel lines glued to user output found"
