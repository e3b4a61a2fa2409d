# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# step.sh - what the expect-*.sh steps of make check share.

# fail_step NAME RESULTS MESSAGE...: the step NAME failed, for MESSAGE;
# its results directory RESULTS stays for a look.  Exits 1.
fail_step() {
	local name=$1 results=$2
	shift 2
	echo "$name: $*; results in $results"
	exit 1
}
