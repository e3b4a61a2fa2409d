#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "runner.sh shell" as a user at a terminal has it: the guest's shell
# knows the run's environment and the terminal's size, and starts among
# the tracing tools, with a banner; "exit" powers the guest off and ends
# the runner.
# guest: stand-in or kernel
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

PROMPT='mm-frozen:[^ ]*# $'

# shell_session RESULTS LINE...: runner.sh shell on a terminal of its
# own, each LINE typed at a prompt of the guest's shell; what the
# terminal showed, without carriage returns and escape sequences (the
# shell's bracketed paste mode), in $TMP/out.
shell_session() {
	local results=$1
	shift
	STATUS=0
	python3 "$MMF_ROOT/tests/host/data/pty-session.py" 50 211 "$PROMPT" 900 "$@" -- \
		"$RUNNER" "${TEST_FLAGS[@]}" --results "$results" shell > "$TMP/tty" 2>&1 || STATUS=$?
	sed -e 's/\r//g' -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$TMP/tty" > "$TMP/out"
}

# shellcheck disable=SC2016 # expanded by the guest's shell
shell_session "$TMP/r" 'echo "root=$MMF_ROOT results=$MMF_RESULTS"; pwd; stty size' exit
expect_status 0
expect_output "^root=$MMF_ROOT results=$TMP/r\$"
expect_output "^$MMF_ROOT/tracing\$"
expect_output '^50 211$'
expect_output '^mm-frozen guest: '
expect_output '^knob: '
expect_text "free-atomics.bt"
! pgrep -f -- "MMF_RESULTS=$TMP/r " > /dev/null || fail "the guest still runs after exit"
echo "shell: the guest's shell has the run's environment and the terminal's" \
	"50x211, starts in tracing/; exit powered the guest off"
