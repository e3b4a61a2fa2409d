#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# runner.sh kernel, stopped by SIGTERM in the middle of its build, writes
# its verdict like every command, at once: exit 143 within 15 s,
# verdict.json "interrupted" in its results directory, and the build it
# started gone.  The tree is a
# tiny git repository, the build a stand-in make (tests/host/data/make/)
# that runs until it is stopped.
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
wait_for_text "$TMP/r/runner.log" "Configure (baseline)" 60 "$TMP/kernel.out"
sleep 1
t0=$SECONDS
kill -TERM "$RUNNER_PID"
STATUS=0
wait "$RUNNER_PID" || STATUS=$?
[ $((SECONDS - t0)) -le 15 ] || fail "the run took $((SECONDS - t0)) s to stop" "$TMP/kernel.out"
cp "$TMP/kernel.out" "$TMP/out"
expect_status 143
expect_verdict "$TMP/r" interrupted 143 "$TMP/kernel.out"
! pgrep -f "^sleep 600$" > /dev/null || fail "the build outlived the run"
echo "kernel interrupted: exit 143, verdict.json interrupted, the build stopped"
