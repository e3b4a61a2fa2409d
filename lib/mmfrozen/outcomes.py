# SPDX-License-Identifier: GPL-2.0
"""outcomes.py - the outcomes of a run, as lib/core.sh's exit-code table
names them: that table is their one owner (runner.sh's exit statuses,
--help, verdict.json's "outcome"), and this module reads it from there,
once, by asking bash for it.  A name below that the table lacks stops
the import: the two sides cannot disagree unnoticed.
"""

import functools
import os
import subprocess

CORE_SH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'core.sh')


@functools.lru_cache(maxsize=None)
def table():
    """{OUTCOME: (exit status, meaning)} of core.sh's exit_code_table,
    the first status of an outcome that has two."""
    text = subprocess.run(['bash', '-c', '. "$1" && exit_code_table', 'outcomes', CORE_SH],
                          capture_output=True, text=True, check=True).stdout
    outcomes = {}
    for line in text.splitlines():
        code, outcome, meaning = line.split('|', 2)
        outcomes.setdefault(outcome, (int(code), meaning))
    return outcomes


def named(outcome):
    """OUTCOME, once the table has said it has it."""
    if outcome not in table():
        raise ValueError('lib/core.sh has no outcome %s' % outcome)
    return outcome


PASSED = named('passed')
TESTS_FAILED = named('tests-failed')
USAGE_ERROR = named('usage-error')
MISSING_PACKAGES = named('missing-packages')
PATCH_DOES_NOT_APPLY = named('patch-does-not-apply')
BUILD_FAILED = named('build-failed')
GUEST_TIMEOUT = named('guest-timeout')
KERNEL_PROBLEM = named('kernel-problem')
SERIES_ADDS_WARNINGS = named('series-adds-warnings')
INTERNAL_ERROR = named('internal-error')
GUEST_FAILED = named('guest-failed')
WORK_DIRECTORY_BUSY = named('work-directory-busy')
INTERRUPTED = named('interrupted')
