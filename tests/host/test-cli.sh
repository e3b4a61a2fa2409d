#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage errors are reported with exit status 2 and change nothing.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

run_runner --help
expect_status 0
expect_output '^Usage: runner.sh'
expect_output 'exec -- CMD'

# README's synopsis is the --help text, word for word.
awk '/^<!-- runner.sh --help -->$/ { on = 1; next }
     on && /^```$/ { if (on++ == 2) exit; next }
     on == 2' "$MMF_ROOT/README.md" > "$TMP/readme-help"
diff -u "$TMP/readme-help" "$TMP/out" > "$TMP/help.diff" ||
	fail "README's runner.sh --help block differs: $(cat "$TMP/help.diff")"

run_runner --no-such-option
expect_status 2
expect_output 'unknown argument: --no-such-option'

run_runner --timeout soon boot
expect_status 2
expect_output 'timeout needs a number'

run_runner --drop 9999 kernel
expect_status 2
expect_output 'drop 9999: 0 patches of .* match, not 1'

run_runner --baseline --drop 0014 kernel
expect_status 2
expect_output 'drop applies to the patched series'

run_runner --source no-such-thing series
expect_status 2
expect_output 'not a linux-source package, a tarball or PATH@REF'

run_runner --source "$TMP@no-such-ref" series
expect_status 2
expect_output 'no-such-ref is not a commit of'

run_runner --source linux-source-6.12=0.0-1 series
expect_status 2
expect_output 'apt knows no version 0.0-1 of linux-source-6.12'

run_runner --source linux-source-0.0 series
expect_status 2
expect_output 'apt knows no version of linux-source-0.0'

run_runner matrix
expect_status 2
expect_output 'matrix needs sources'

# A directory that runner.sh did not create is never emptied.
mkdir "$TMP/precious"
echo keep > "$TMP/precious/file"
run_runner --results "$TMP/precious" boot
expect_status 2
expect_output 'not a results directory'
[ "$(cat "$TMP/precious/file")" = keep ] || fail "the results directory was changed"
echo "cli: usage errors rejected"
