#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs the harness's own host-side tests (tests/host/test-*.sh) and prints
# TAP.  A test that boots a guest says "# needs: kernel": it boots the
# kernel that "runner.sh kernel" built.  A test that says "# guest:
# stand-in or kernel" runs with either guest (lib.sh, MMF_HOST_GUEST): the
# stand-in qemu of tests/host/data/qemu/ playing a recorded guest, in
# seconds, or the real kernel; one that says "# guest: stand-in", with the
# stand-in alone (a guest that no kernel plays on cue).  --fast runs the tests without a kernel
# and those with the stand-in, --kernel the tests with the kernel.
#
# Usage: tests/host/run.sh [--fast|--kernel] [TEST...]   (default: every test-*.sh)

set -u
cd "$(dirname "$0")" || exit 1

# guests_of TEST: the guests it runs with, "none" for a test without one.
guests_of() {
	if grep -q '^# guest: stand-in or kernel$' "$1"; then
		echo stand-in kernel
	elif grep -q '^# guest: stand-in$' "$1"; then
		echo stand-in
	elif grep -q '^# needs: kernel$' "$1"; then
		echo kernel
	else
		echo none
	fi
}

# wanted GUEST: whether this run runs tests with GUEST.
wanted() {
	case "$only" in
	fast) [ "$1" != kernel ] ;;
	kernel) [ "$1" = kernel ] ;;
	*) true ;;
	esac
}

only=
case "${1:-}" in
--fast|--kernel) only=${1#--}; shift ;;
esac
[ $# -gt 0 ] || set -- test-*.sh
tests=() guests=()
for t in "$@"; do
	t=$(basename "$t")
	for g in $(guests_of "$t"); do
		wanted "$g" || continue
		tests+=("$t") guests+=("$g")
	done
done

echo "TAP version 13"
echo "1..${#tests[@]}"
n=0 failed=0
for i in "${!tests[@]}"; do
	t=${tests[i]} g=${guests[i]} name=${tests[i]%.sh}
	[ "$(guests_of "$t")" = "stand-in kernel" ] && name+=" ($g)"
	n=$((n + 1))
	t0=$SECONDS
	if out=$(MMF_HOST_GUEST=$g ./"$t" 2>&1); then
		echo "ok $n $name # $(tail -n 1 <<< "$out") ($((SECONDS - t0)) s)"
	else
		failed=$((failed + 1))
		echo "not ok $n $name ($((SECONDS - t0)) s)"
		printf "# %s\n" "${out//$'\n'/$'\n# '}"
	fi
done
echo "host tests: $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
