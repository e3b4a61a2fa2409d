#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A verdict module that crashes is the harness's fault, not a failed
# test: matrix --merge of a job whose series.json lacks what a series
# check writes (an empty object) makes mmfrozen.matrix raise; runner.sh
# exits 9 (internal-error, not 1), names the module, shows its
# traceback, and verdict.json says so.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/job"
echo '{}' > "$TMP/job/series.json"
run_runner --work "$TMP/work" --results "$TMP/merged" matrix --merge "$TMP/job"
expect_status 9
expect_text 'runner.sh: error: mmfrozen.matrix crashed (its traceback above)'
expect_text 'Traceback (most recent call last)'
expect_verdict "$TMP/merged" internal-error 9
echo "verdict crash: exit 9, the module named, its traceback shown, verdict internal-error"
