# SPDX-License-Identifier: GPL-2.0
"""patches.py: a conflict's detail from what git apply and GNU patch said
of a real patch that does not apply (tests/fixtures/patches/: two hunks
of mm/a.c no longer apply, mm/c.c exists already, mm/gone.c is gone), and
the error message's list of files."""

import unittest

from helpers import fixture, read
from mmfrozen import patches

DRY_RUN = read(fixture('patches', 'dry-run.out'))
ERRORS = read(fixture('patches', 'apply-errors.txt'))
DETAIL = 'mm/a.c: hunks at 2, 27; mm/c.c: exists; mm/c.c: hunks at 1; mm/gone.c: missing'


class Conflict(unittest.TestCase):

    def test_every_failing_hunk_is_named(self):
        self.assertEqual(patches.failed_hunks(DRY_RUN), {'mm/a.c': ['2', '27'],
                                                          'mm/c.c': ['1']})

    def test_detail(self):
        self.assertEqual(patches.detail(DRY_RUN, ERRORS), DETAIL)

    def test_files_of_the_message(self):
        self.assertEqual(patches.files(DETAIL), 'mm/a.c (hunks at 2, 27), mm/c.c (exists), '
                         'mm/c.c (hunks at 1), mm/gone.c (missing)')

    def test_a_detail_without_files(self):
        self.assertEqual(patches.detail('', ''), '')
        self.assertEqual(patches.files('see git apply'), 'see git apply')


if __name__ == '__main__':
    unittest.main()
