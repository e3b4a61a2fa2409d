#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest's test entry with tests/data/lossy/bpftrace first on PATH:
# runner.sh --guest-cmd tests/data/lossy-guest.sh --tests tracing_scripts.sh
# LOSSY_RUNS: the bpftrace runs that report losses (see lossy/bpftrace).
export LOSSY_RUNS="${LOSSY_RUNS:-1 2 4 5 6 7 8}" LOSSY_COUNT=/tmp/lossy-bpftrace.count
dir=$(dirname "$(readlink -f "$0")")
export PATH="$dir/lossy:$PATH"
rm -f "$LOSSY_COUNT"
exec "$MMF_ROOT/guest-init/tests.sh" "$@"
