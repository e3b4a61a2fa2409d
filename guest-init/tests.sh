#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tests.sh - the guest's default test entry, run by runner.sh through
# stage2.sh: builds and runs the mm-frozen kselftest target from the kernel
# tree the guest was built from, exactly as a developer would in the guest:
#
#   make -C $MMF_TREE O=$MMF_BUILD kselftest TARGETS=mm-frozen
#
# The host tree and build directory are read-only underneath; what make
# writes lands in the guest's tmpfs overlay.  The runner reads the KTAP
# output (6.12's kselftest runner exits 0 even when a test fails).
#
# The timeouts in selftests/*/settings are meant for real hardware: under
# TCG they are multiplied by MMF_TIMEOUT_SCALE, as kernel CI does with
# kselftest_override_timeout.

set -eu

: "${MMF_TREE:?not set: run through runner.sh}"
: "${MMF_BUILD:?not set: run through runner.sh}"

settings="$MMF_TREE/tools/testing/selftests/mm-frozen/settings"
timeout=$(sed -n 's/^timeout=//p' "$settings")
kselftest_override_timeout=$((${timeout:-45} * ${MMF_TIMEOUT_SCALE:-1}))
export kselftest_override_timeout

exec make -s -C "$MMF_TREE" O="$MMF_BUILD" kselftest TARGETS=mm-frozen
