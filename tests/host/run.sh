#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs the harness's own host-side tests (tests/host/test-*.sh) and prints
# TAP.  A test that boots a guest says "# needs: kernel": it boots the
# kernel that "runner.sh kernel" built.  --fast runs only the others,
# --kernel only those.
#
# Usage: tests/host/run.sh [--fast|--kernel] [TEST...]   (default: every test-*.sh)

set -u
cd "$(dirname "$0")" || exit 1

# kind_of TEST: fast, or kernel when it boots a guest
kind_of() {
	if grep -q '^# needs: kernel$' "$1"; then echo kernel; else echo fast; fi
}

only=
case "${1:-}" in
--fast|--kernel) only=${1#--}; shift ;;
esac
[ $# -gt 0 ] || set -- test-*.sh
tests=()
for t in "$@"; do
	t=$(basename "$t")
	[ -z "$only" ] || [ "$(kind_of "$t")" = "$only" ] || continue
	tests+=("$t")
done

echo "TAP version 13"
echo "1..${#tests[@]}"
n=0 failed=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	t0=$SECONDS
	if out=$(./"$t" 2>&1); then
		echo "ok $n ${t%.sh} # $(tail -n 1 <<< "$out") ($((SECONDS - t0)) s)"
	else
		failed=$((failed + 1))
		echo "not ok $n ${t%.sh} ($((SECONDS - t0)) s)"
		printf "# %s\n" "${out//$'\n'/$'\n# '}"
	fi
done
echo "host tests: $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
