#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --work leads every command, and the steps of "make check" that read what
# a run left, to that directory and to no other: the runner looks for its
# kernel there, takes its lock there, and "where" (which the tests use to
# find trees and results) names nothing outside it.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

work="$TMP/w"
run_runner --work "$work" exec -- true
expect_status 5
expect_text "$work/linux/.build-patched/arch/x86/boot/bzImage not built"
[ -f "$work/.lock" ] || fail "no lock taken in $work"

run_runner --work "$work" --baseline where
expect_status 0
outside=$(awk -v w="$work" 'index($2, w) != 1' "$TMP/out")
[ -z "$outside" ] || fail "paths outside $work: $outside"

STATUS=0
"$MMF_ROOT/tests/expect-series.sh" --work "$work" > "$TMP/out" 2>&1 || STATUS=$?
expect_status 1
expect_text "no source tree in $work/linux"
echo "work dir: the runner, its lock, its paths and the series check follow --work"
