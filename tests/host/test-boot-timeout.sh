#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A guest that never starts its test entry is stopped at the boot timeout,
# not at the guest timeout: exit 6 (guest-timeout) with its last console
# lines; one that starts it in time may then take longer.  With the
# stand-in qemu (tests/host/data/qemu/), no kernel.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

WORK=$TMP/work
standin_guest "$WORK"
RESULTS=$TMP/results

t0=$SECONDS
FAKE_GUEST=$MMF_ROOT/tests/host/data/guests/never-ready \
	run_runner --work "$WORK" --results "$RESULTS" --accel tcg --boot-timeout 3 exec -- true
expect_status 6
expect_text "the guest did not start its test entry within 3s (--boot-timeout) and was stopped"
expect_text "virtio-pci 0000:00:02.0: PCI INT A: no GSI"
expect_verdict "$RESULTS" guest-timeout 6
[ $((SECONDS - t0)) -lt 30 ] || fail "stopped after $((SECONDS - t0)) s, not at the boot timeout (3 s)"
! pgrep -f -- "MMF_RESULTS=$TMP/" > /dev/null || fail "the stand-in guest outlived its run"

FAKE_GUEST=$MMF_ROOT/tests/host/data/guests/ready-then-slow \
	run_runner --work "$WORK" --results "$RESULTS" --accel tcg --boot-timeout 3 exec -- true
expect_status 0
expect_text "the guest command's output"
expect_verdict "$RESULTS" passed 0
echo "boot timeout: a guest without its test entry stopped at 3 s (exit 6), one that started it may take longer"
