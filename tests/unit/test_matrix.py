# SPDX-License-Identifier: GPL-2.0
"""matrix.py on the series.json of two real checks, the installed 6.12
and 6.1: the table the runner's former jq and awk printed from them
(tests/fixtures/matrix/expected-table.txt), where checkpatch's warnings
do not count but its errors do; matrix.json; the exit status; and a
source whose check wrote no series.json."""

import json
import os

from helpers import ScratchTest, fixture, read, run_main
from mmfrozen import matrix

SOURCES = ('installed', '6.1')


def source_args(*names):
    args = []
    for name in names:
        series = json.loads(read(fixture('series', name, 'expected.json')))
        args += ['--source', series['source'], str(series['exit']),
                 fixture('series', name, 'expected.json')]
    return args


class Matrix(ScratchTest):

    def test_the_table_as_the_runner_printed_it(self):
        status, out = run_main(matrix.main, [self.tmp] + source_args(*SOURCES))
        self.assertEqual(status, 1)
        lines = out.splitlines()
        self.assertEqual('\n'.join(lines[:3]) + '\n', read(fixture('matrix', 'expected-table.txt')))
        self.assertIn(os.path.join(self.tmp, 'matrix.json'), lines[3])
        written = json.loads(read(os.path.join(self.tmp, 'matrix.json')))
        self.assertEqual([s['source'] for s in written],
                         ['linux-source-6.12 (installed)', 'linux-source-6.1'])

    def test_every_source_passing(self):
        self.assertEqual(run_main(matrix.main, [self.tmp] + source_args('installed', 'in-tree'))[0], 0)

    def test_a_checkpatch_error_fails_its_cell(self):
        series = json.loads(read(fixture('series', 'installed', 'expected.json')))
        series['patches'][0]['checkpatch']['errors'] = 1
        self.assertEqual(matrix.row(series)[1:3], ['FAIL', 'OK'])

    def test_a_source_without_series_json(self):
        status, out = run_main(matrix.main, [self.tmp, '--source', 'linux-source-6.0', '2',
                                             os.path.join(self.tmp, 'none.json')]
                               + source_args('installed'))
        self.assertEqual(status, 1)
        self.assertRegex(out, r'(?m)^linux-source-6\.0 +2 +-$')
        self.assertRegex(out.splitlines()[0], r'^source +0001 ')
