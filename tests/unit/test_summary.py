# SPDX-License-Identifier: GPL-2.0
"""summary.py on the counts.json of a real patched and a real baseline
run (tests/fixtures/summary/): the table the runner printed of them
before the verdicts moved to Python (expected.txt, without its last line,
which names the directory); a kernel without counts, and a path counted
with no page, show "-"."""

import os

from helpers import ScratchTest, fixture, read, write
from mmfrozen import summary


class Summary(ScratchTest):

    def test_the_table_as_the_runner_printed_it(self):
        lines = summary.table(fixture('summary'))
        self.assertEqual('\n'.join(lines[:-1]) + '\n', read(fixture('summary', 'expected.txt')))
        self.assertEqual(lines[-1], '(from %s/{patched,baseline}/counts.json)' % fixture('summary'))

    def test_no_counts(self):
        write(os.path.join(self.tmp, 'patched', 'counts.json'),
              '{"slab": {"traced": 0, "atomics": 0}, "knob_1": {"traced": 3, "atomics": 1}}\n')
        rows = [r.split()[-4:] for r in summary.table(self.tmp)[3:7]]
        self.assertEqual(rows, [['0', '-', '-', '-'], ['3', '0.33', '-', '-'],
                                ['-', '-', '-', '-'], ['-', '-', '-', '-']])
