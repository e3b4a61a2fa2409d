#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs the harness's own host-side tests (tests/host/test-*.sh) and prints
# TAP.  The guest tests boot the kernel that "runner.sh kernel" built.
#
# Usage: tests/host/run.sh [TEST...]   (default: every test-*.sh)

set -u
cd "$(dirname "$0")" || exit 1

tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(test-*.sh)

echo "TAP version 13"
echo "1..${#tests[@]}"
n=0 failed=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	if out=$(./"$(basename "$t")" 2>&1); then
		echo "ok $n ${t%.sh} # $(tail -n 1 <<< "$out")"
	else
		failed=$((failed + 1))
		echo "not ok $n ${t%.sh}"
		printf "# %s\n" "${out//$'\n'/$'\n# '}"
	fi
done
echo "host tests: $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
