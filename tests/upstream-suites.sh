#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# upstream-suites.sh - the kernel's own slab and mm suites on the patched
# and the baseline kernel, side by side: fails when a test passes on the
# baseline and fails, or is missing, on the patched kernel.  Tests that
# fail on both are listed with the rest.
#
# Usage: tests/upstream-suites.sh [RUNNER-OPTIONS...]
#   MMF_UPSTREAM=full adds the slow suites (make check-full).

set -u
cd "$(dirname "$0")/.." || exit 1

for variant in patched baseline; do
	# shellcheck disable=SC2086 # empty, or the one word "full"
	./runner.sh --variant "$variant" "$@" upstream ${MMF_UPSTREAM:-} || {
		echo "upstream-suites: runner.sh --variant $variant upstream failed"
		exit 1
	}
done
./runner.sh "$@" upstream-compare
