# SPDX-License-Identifier: GPL-2.0
"""mmfrozen.coverage: the series' lines from git blame (a real porcelain
of a two-commit range, tests/fixtures/coverage/blame.porcelain), gcov's
records (prog.gcov.json, gcc 12's JSON of a small program), each line's
class, the hunks, the table, the page and the gate."""

import json
import os
import unittest

from helpers import ScratchTest, fixture, read, write
from mmfrozen import coverage

PATCH_ONE = '1c57a02bd3592a0c754817689d154ba8f629e203'
PATCH_TWO = '5758283d180ad601e72da3745144e169c1f18a1e'


class BlameTest(unittest.TestCase):

    def test_only_the_ranges_commits(self):
        lines = coverage.parse_blame(read(fixture('coverage', 'blame.porcelain')))
        self.assertEqual(lines, [(2, PATCH_ONE, 'int b2;'),
                                 (3, PATCH_TWO, 'int c3;'),
                                 (4, PATCH_ONE, 'int d;')])


class CounterTest(unittest.TestCase):

    def test_gcov_records_by_tree_path(self):
        with open(fixture('coverage', 'prog.gcov.json')) as f:
            document = json.load(f)
        counts, functions = {}, {}
        coverage.gcov_records(document, '/t/.build', '/t', counts, functions)
        coverage.gcov_records(document, '/t/.build', '/t', counts, functions)
        path = os.path.join('.build', 'prog.c')
        self.assertEqual(counts, {(path, n): 2 * c for n, c in (
            (1, 0), (3, 0), (6, 1), (8, 1), (9, 0), (10, 1))})
        self.assertEqual(functions[(path, 3)], 'twice')
        self.assertEqual(functions[(path, 9)], 'main')


class ClassTest(unittest.TestCase):

    def classify(self, built=True, kept=(), around=(), boot=None, tests=None):
        return coverage.classify('f.c', 5, built, set(kept), around,
                                 boot or {}, tests or {})

    def test_each_class(self):
        key = ('f.c', 5)
        self.assertEqual(self.classify(built=False), 'not built')
        self.assertEqual(self.classify(tests={key: 3}), 'tests')
        self.assertEqual(self.classify(boot={key: 1}, tests={key: 0}), 'boot only')
        self.assertEqual(self.classify(boot={key: 0}, tests={key: 0}), 'never')
        self.assertEqual(self.classify(kept=[(0, 1)], around=[(0, 1), (0, 2)]),
                         'compiled out')
        self.assertEqual(self.classify(kept=[(0, 1)], around=[(0, 1)]), 'no code')


def line(path, number, patch, cls, where=''):
    return {'file': path, 'line': number, 'patch': patch, 'class': cls,
            'where': where, 'text': '', 'boot': 0, 'tests': 0}


class ReportTest(unittest.TestCase):

    LINES = [line('a.c', 1, '0001-x.patch', 'tests'),
             line('a.c', 2, '0001-x.patch', 'never'),
             line('a.c', 3, '0002-y.patch', 'no code'),
             line('a.c', 4, '0001-x.patch', 'boot only'),
             line('b.h', 1, '0001-x.patch', 'compiled out')]
    PATCHES = [{'name': '0001-x.patch', 'subject': 'x'},
               {'name': '0002-y.patch', 'subject': 'y'}]

    def test_hunks_split_by_patch_and_gap(self):
        report = coverage.patch_report(self.PATCHES, self.LINES)
        self.assertEqual([(h['file'], h['first'], h['last'])
                          for h in report[0]['hunks']],
                         [('a.c', 1, 2), ('a.c', 4, 4), ('b.h', 1, 1)])
        self.assertEqual(report[0]['counts']['never'], 1)
        self.assertEqual(report[1]['counts']['no code'], 1)

    def test_table_and_diff_coverage(self):
        report = coverage.patch_report(self.PATCHES, self.LINES)
        text = coverage.table(report, self.LINES).splitlines()
        self.assertEqual(text[0].split(), ['patch', 'lines', 'tests', 'boot',
                                           'only', 'never', 'no', 'code',
                                           'compiled', 'out', 'not', 'built',
                                           'subject'])
        self.assertEqual(text[1].split(), ['0001', '4', '1', '1', '1', '0', '1', '0', 'x'])
        self.assertEqual(text[-1], 'series diff coverage: 1 of 3 executable '
                         'lines run by the tests')

    def test_page_escapes_and_colours(self):
        lines = [dict(self.LINES[0], text='a < b'),
                 dict(self.LINES[1], reason='an "error" path')]
        page = coverage.html_page(coverage.patch_report(self.PATCHES[:1], lines),
                                  lines, 'T')
        self.assertIn('class="line tests"', page)
        self.assertIn('a &lt; b', page)
        self.assertIn('title="never: an &quot;error&quot; path"', page)


class GateTest(ScratchTest):

    LINES = [line('a.c', 1, 'p', 'tests', 'f'),
             line('a.c', 2, 'p', 'never', 'f'),
             line('a.c', 3, 'p', 'never', 'g'),
             line('a.c', 4, 'p', 'no code'),
             line('b.h', 1, 'p', 'compiled out', '#ifndef X'),
             line('c.c', 1, 'p', 'not built')]

    def unrun(self, text):
        return coverage.read_unrun(write(os.path.join(self.tmp, 'unrun'), text))

    def test_each_unrun_line_listed_by_file_and_where(self):
        entries = self.unrun('# comment\n\na.c\tf\terror path\n'
                             'b.h\t#ifndef X\tthe other config\nc.c\t*\tnot here\n'
                             'a.c\tgone\tstale\n')
        lines = [dict(line) for line in self.LINES]
        unlisted, stale = coverage.gate(lines, entries)
        self.assertEqual([(l['file'], l['line']) for l in unlisted], [('a.c', 3)])
        self.assertEqual(stale, [('a.c', 'gone', 'stale')])
        self.assertEqual(lines[1]['reason'], 'error path')
        self.assertEqual(lines[4]['reason'], 'the other config')
        text = coverage.gate_text(unlisted, stale, 'unrun')
        self.assertIn('gate: 1 lines neither run by the tests nor listed in unrun:', text)
        self.assertIn('a.c:3  never  [g]', text)
        self.assertIn('gate: listed, but no line not run is there: a.c gone', text)

    def test_an_entry_without_a_reason_is_an_error(self):
        with self.assertRaisesRegex(ValueError, 'unrun:1: not FILE'):
            self.unrun('a.c\tf\n')


if __name__ == '__main__':
    unittest.main()
