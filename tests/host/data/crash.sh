#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A test that the kernel does not survive: a panic (sysrq c) between its
# first and second result (tests/host/test-crash-mid-test.sh).
echo "TAP version 13"
echo "1..2"
echo "ok 1 before the crash"
sync
echo c > /proc/sysrq-trigger
echo "ok 2 after the crash"
