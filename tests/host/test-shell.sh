#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "runner.sh shell" as a user at a terminal has it: the guest's shell
# knows the run's environment and the terminal's size, and starts among
# the tracing tools, with a banner; "exit" powers the guest off and ends
# the runner.  It has no time limit unless --timeout gives one.
# guest: stand-in or kernel
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# A line longer than 80 columns with its prompt, and Ctrl-A, Ctrl-E to
# go to its start and back: readline moves the cursor up a line (ESC [ A)
# unless it knows the terminal's width, and the line is written over
# itself.
# shellcheck disable=SC2016 # expanded by the guest's shell
typed='echo "root=$MMF_ROOT results=$MMF_RESULTS"; pwd; stty size'
shell_session --results "$TMP/r" -- "$typed"$'\x01\x05' exit
expect_status 0
expect_text "mm-frozen:$MMF_ROOT/tracing# $typed"
! grep -q -F $'\e[A' "$TMP/tty" || fail "the long line went up a line: a terminal of 80 columns?"
expect_output "^root=$MMF_ROOT results=$TMP/r\$"
expect_output "^$MMF_ROOT/tracing\$"
expect_output '^50 211$'
expect_output '^mm-frozen guest: '
expect_output '^knob: '
expect_text "free-atomics.bt"
expect_output '^time limit: none'
! pgrep -f -- "MMF_RESULTS=$TMP/r " > /dev/null || fail "the guest still runs after exit"

# With a time limit the guest warns a minute before (at once when the
# limit is shorter), and the runner says why it stopped the guest.
limit=5
[ "$HOST_GUEST" = stand-in ] || limit=40
shell_session --results "$TMP/t" --timeout "$limit" -- 'sleep 900'
expect_status 6
expect_text "mm-frozen: the guest is stopped in a minute (--timeout $limit)"
expect_text "the guest did not finish within ${limit}s and was killed"
! pgrep -f -- "MMF_RESULTS=$TMP/t " > /dev/null || fail "the guest still runs after its time limit"
echo "shell: the guest's shell has the run's environment and the terminal's" \
	"50x211, starts in tracing/; exit powered the guest off; a ${limit}s --timeout" \
	"was told and kept"
