#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A test that the kernel does not survive: a panic (sysrq c) between its
# first and second result (tests/host/test-crash-mid-test.sh).
echo "TAP version 13"
echo "1..2"
echo "ok 1 before the crash"
# Time for that line to reach the console through kselftest's and the
# guest's pipes before the panic: without it, it arrived in some runs and
# not in others.
sleep 2
sync
echo c > /proc/sysrq-trigger
echo "ok 2 after the crash"
