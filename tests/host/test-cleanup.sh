#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A host test that fails while its runner has a guest up leaves nothing
# behind: not the runner, not its qemu, not the work directory's lock.
# guest: stand-in or kernel
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

work=$("$RUNNER" "${TEST_FLAGS[@]}" where work)
mkdir "$TMP/child"
STATUS=0
TMPDIR="$TMP/child" "$MMF_ROOT/tests/host/data/fails-with-a-guest.sh" > "$TMP/out" 2>&1 || STATUS=$?
expect_status 1
expect_text 'FAIL: on purpose, with the guest up'
runner=$(sed -n 's/^runner //p' "$TMP/out")
[ -n "$runner" ] || fail "the failing test started no runner"
! kill -0 "$runner" 2>/dev/null || fail "its runner (pid $runner) still runs"
! pgrep -f -- "MMF_RESULTS=$TMP/child/" > /dev/null || fail "its qemu still runs"
flock -n "$work/.lock" true || fail "the lock of $work is still held"
[ -z "$(ls -A "$TMP/child")" ] || fail "its temporary directory is left: $(ls "$TMP/child")"
echo "cleanup: a test failing with a guest up left no runner (pid $runner), qemu or lock"
