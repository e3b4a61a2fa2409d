# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tap.sh - one TAP result a check, for the scripts of tests/ that make
# several: n and failed count them.

n=0 failed=0

# tap_result DESCRIPTION PROBLEM...: "ok N DESCRIPTION"; with problems,
# "not ok N DESCRIPTION" and a line each, and false.
tap_result() {
	n=$((n + 1))
	if [ $# = 1 ]; then
		echo "ok $n $1"
		return 0
	fi
	failed=$((failed + 1))
	echo "not ok $n $1"
	printf '# %s\n' "${@:2}"
	return 1
}
