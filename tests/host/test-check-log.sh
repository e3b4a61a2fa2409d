#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# runner.sh check-log: exit 0 and says so on the console of a real clean
# run (tests/fixtures/ktap/console-patched.log, with a declared WARNING in
# a test window); exit 7 with the problem line, named with its test, when
# a report the window did not declare is there; exit 2 without a log.
# The scan itself: tests/unit/test_kernel_log.py.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

console="$MMF_ROOT/tests/fixtures/ktap/console-patched.log"
run_runner check-log "$console"
expect_status 0
expect_text "no kernel problems in $console"

grep -v 'mm-frozen: test expect 1 WARNING' "$console" > "$TMP/undeclared.log"
run_runner check-log "$TMP/undeclared.log"
expect_status 7
expect_output '^\[ *[0-9.]+\] WARNING: CPU: 0 PID: 807 at include/linux/mm.h:1461 .*  \[during test slab_page.get_page_warns_once\]$'
[ "$(wc -l < "$TMP/out")" = 1 ] || fail "more than the one problem line"

run_runner check-log "$TMP/no-such.log"
expect_status 2
expect_text "check-log: no file $TMP/no-such.log"
echo "check-log: a clean console passes, an undeclared WARNING exits 7 named with its test, no log exits 2"
