#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tests.sh [TEST...] - the guest's default test entry, run by runner.sh
# through stage2.sh: builds and runs the mm-frozen kselftest target from
# the kernel tree the guest was built from, with kselftest's own runner:
#
#   make -C $MMF_TREE/tools/testing/selftests O=$MMF_BUILD \
#	TARGETS=mm-frozen run_tests
#
# This is "make kselftest TARGETS=mm-frozen" without its first step, the
# UAPI headers, which runner.sh installs on the host: the top-level
# Makefile probes the compiler a few hundred times before it gets there,
# over a minute under TCG.  The host tree and build directory are
# read-only underneath; what make writes lands in the guest's tmpfs
# overlay.  runner.sh reads the KTAP output: 6.12's kselftest runner exits
# 0 even when a test fails.
#
# With TEST arguments (program names of the target, as runner.sh --tests
# passes them), the target is installed in the guest's /tmp and only those
# run, with run_kselftest.sh -t mm-frozen:TEST.
#
# The timeouts in selftests/*/settings are meant for real hardware: under
# TCG they are multiplied by MMF_TIMEOUT_SCALE, as kernel CI does with
# kselftest_override_timeout.

set -eu

: "${MMF_TREE:?not set: run through runner.sh}"
: "${MMF_BUILD:?not set: run through runner.sh}"

selftests="$MMF_TREE/tools/testing/selftests"
settings="$selftests/mm-frozen/settings"
timeout=$(sed -n 's/^timeout=//p' "$settings")
kselftest_override_timeout=$((${timeout:-45} * ${MMF_TIMEOUT_SCALE:-1}))
export kselftest_override_timeout

if [ $# = 0 ]; then
	exec make -s -C "$selftests" O="$MMF_BUILD" TARGETS=mm-frozen run_tests
fi

install=/tmp/mm-frozen-kselftest
make -s -C "$selftests" O="$MMF_BUILD" TARGETS=mm-frozen \
	INSTALL_PATH="$install" install > /dev/null
selected=
for t in "$@"; do
	selected="$selected -t mm-frozen:$t"
done
# shellcheck disable=SC2086 # one word per option; test names have no spaces
exec "$install/run_kselftest.sh" $selected
