#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# runner.sh kernel, stopped by SIGTERM in the middle of its build, writes
# its verdict like every command, at once: exit 143 within 15 s,
# verdict.json "interrupted" in its results directory, and the build it
# started gone.  Killed by SIGKILL instead, which no trap sees, it takes
# its build with it all the same (the kernel signals the build's guard),
# and the lock is free once the build is gone.  The tree is a tiny git
# repository, the build a stand-in make (tests/host/data/make/) that runs
# until it is stopped.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

repo="$TMP/linux"
mkdir -p "$repo"
git -C "$repo" init -q
echo '# not a kernel' > "$repo/Makefile"
git -C "$repo" add Makefile
git -C "$repo" -c user.name=t -c user.email=t@localhost commit -q -m tree
export PATH="$MMF_ROOT/tests/host/data/make:$PATH"

start_runner kernel --work "$TMP/work" --results "$TMP/r" --source "$repo@HEAD" --baseline kernel
wait_process started "^make \(stand-in\) .*$TMP/" 60 "the build" "$TMP/kernel.out"
t0=$SECONDS
kill -TERM "$RUNNER_PID"
STATUS=0
wait "$RUNNER_PID" || STATUS=$?
[ $((SECONDS - t0)) -le 15 ] || fail "the run took $((SECONDS - t0)) s to stop" "$TMP/kernel.out"
cp "$TMP/kernel.out" "$TMP/out"
expect_status 143
expect_verdict "$TMP/r" interrupted 143 "$TMP/kernel.out"
! pgrep -f -- "^make \(stand-in\) .*$TMP/" > /dev/null || fail "the build outlived the run"

rm -rf "$TMP/r"
start_runner killed --work "$TMP/work" --results "$TMP/r" --source "$repo@HEAD" --baseline kernel
wait_process started "^make \(stand-in\) .*$TMP/" 30 "the build to take along" "$TMP/killed.out"
kill -KILL "$RUNNER_PID"
wait "$RUNNER_PID" || true
wait_process gone "^make \(stand-in\) .*$TMP/" 5 "the build of a run killed by SIGKILL" "$TMP/killed.out"
flock -n "$TMP/work/.lock" true || fail "the lock of a run killed by SIGKILL is still held"
echo "kernel interrupted: exit 143, verdict.json interrupted, the build stopped; killed by SIGKILL, the build went too and the lock is free"
