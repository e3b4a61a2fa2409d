#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tests.sh [TEST...] - the guest's default test entry, run by runner.sh
# through stage2.sh: the mm-frozen kselftest target as runner.sh built and
# installed it on the host ($MMF_KSELFTEST), run by kselftest's own
# run_kselftest.sh; with TEST arguments (program names of the target, as
# runner.sh --tests passes them) only those, with -t mm-frozen:TEST.
#
# The guest builds nothing: under TCG building the programs and the test
# modules takes over a minute.  By hand in the guest,
# "make kselftest TARGETS=mm-frozen" in the kernel tree builds and runs
# the same target.  runner.sh reads the KTAP output: 6.12's kselftest
# runner exits 0 even when a test fails.
#
# The timeouts in selftests/*/settings are meant for real hardware: under
# TCG they are multiplied by MMF_TIMEOUT_SCALE, given to run_kselftest.sh
# as its --override-timeout, as kernel CI does.

set -eu

: "${MMF_KSELFTEST:?not set: run through runner.sh}"

settings="$MMF_KSELFTEST/mm-frozen/settings"
timeout=$(sed -n 's/^timeout=//p' "$settings")

selected=
for t in "$@"; do
	selected="$selected -t mm-frozen:$t"
done
# shellcheck disable=SC2086 # one word per option; test names have no spaces
exec "$MMF_KSELFTEST/run_kselftest.sh" \
	--override-timeout $((${timeout:-45} * ${MMF_TIMEOUT_SCALE:-1})) $selected
