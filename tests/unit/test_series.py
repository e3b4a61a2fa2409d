# SPDX-License-Identifier: GPL-2.0
"""series.py on the tables of real series checks (tests/fixtures/series/,
each with the series.json and the table that the runner's former jq and
awk wrote from them, as expected-*): the installed 6.12 (every patch
applies), 6.1 (a conflict at 0001, with its hunks), a tree that holds
the series (every patch in-tree), 6.12.107 with the tests of its tip
(tip/verdict.json as it was when series.json was written, before the
run's end added its outcome), a bisect build where the second patch adds
a warning and the third does not build; the check's outcome of each; the
warnings of each build step, counted from real build logs."""

import json
import os
import unittest

from helpers import ScratchTest, fixture, read, run_main, write
from mmfrozen import series

CHECKS = {'installed': 'passed', '6.1': 'patch-does-not-apply', 'in-tree': 'passed',
          'older-6.12': 'passed',
          'broken-build': 'build-failed'}


def check(name):
    """(the check's directory, the series.json the runner wrote there)."""
    return fixture('series', name), json.loads(read(fixture('series', name, 'expected.json')))


def names(name):
    return read(fixture('series', name, 'patches')).split()


class Report(ScratchTest):

    def test_series_json_and_table_as_the_runner_wrote_them(self):
        for name in CHECKS:
            with self.subTest(check=name):
                dir, expected = check(name)
                got = series.collect(dir, names(name), expected['source'], expected['exit'],
                                     expected['spec'])
                self.assertEqual(got, expected)
                self.assertEqual('\n'.join(series.table(got)) + '\n',
                                 read(os.path.join(dir, 'expected-table.txt')))

    def test_outcomes(self):
        for name, outcome in CHECKS.items():
            with self.subTest(check=name):
                dir, expected = check(name)
                self.assertEqual(series.outcome(expected), outcome)
                self.assertEqual(run_main(series.main, ['verdict', dir]), (0, outcome + '\n'))

    def test_a_patch_adding_a_warning_or_a_checkpatch_error(self):
        _, expected = check('broken-build')
        expected['patches'][2]['build'] = dict(expected['patches'][1]['build'])
        self.assertEqual(series.outcome(expected), 'series-adds-warnings')
        _, expected = check('installed')
        self.assertEqual(series.outcome(expected), 'passed')
        expected['patches'][5]['checkpatch']['errors'] = 1
        self.assertEqual(series.outcome(expected), 'series-adds-warnings')

    def test_the_conflict_and_its_hunks(self):
        table = series.table(check('6.1')[1])
        self.assertRegex(table[-2], r'^  0001-.*: mm/page_alloc\.c: hunks at [0-9]+, [0-9]+$')
        self.assertEqual(table[2].split()[1:3], ['FAIL', 'conflict'])

    def test_report_writes_series_json(self):
        dir = self.copy_fixture('series', 'broken-build')
        os.remove(os.path.join(dir, 'expected.json'))
        status, out = run_main(series.main, ['report', dir, '--names',
                                             fixture('series', 'broken-build', 'patches'),
                                             '--source', 'test', '--exit', '5'])
        self.assertEqual(status, 0)
        self.assertEqual(out, read(fixture('series', 'broken-build', 'expected-table.txt')))
        written = json.loads(read(os.path.join(dir, 'series.json')))
        self.assertEqual((written['source'], written['exit'], written['base']['build']),
                         ('test', 5, 'ok'))

    def test_report_takes_the_checkout(self):
        dir = self.copy_fixture('series', 'installed')
        checkout = {'tree': 'test', 'base_commit': 'abc', 'patchset_hash': 'def'}
        write(os.path.join(dir, 'checkout.json'), json.dumps(checkout))
        run_main(series.main, ['report', dir, '--names', fixture('series', 'installed', 'patches'),
                               '--source', 'test'])
        self.assertEqual(json.loads(read(os.path.join(dir, 'series.json')))['checkout'], checkout)


class Warnings(unittest.TestCase):

    def log(self, patch):
        name = [n for n in os.listdir(fixture('series', 'broken-build', 'build'))
                if n.startswith(patch)][0]
        return read(fixture('series', 'broken-build', 'build', name)).splitlines(True)

    def test_each_commit_adds_what_its_steps_show(self):
        counts = series.update_warnings({}, self.log('0001'))
        self.assertEqual(sum(counts.values()), 0)
        counts = series.update_warnings(counts, self.log('0002'))
        self.assertEqual({s: n for s, n in counts.items() if n}, {'CC mm/page_alloc.o': 1})

    def test_a_step_not_rebuilt_keeps_its_count(self):
        counts = series.update_warnings({}, self.log('0002'))
        counts = series.update_warnings(counts, ['  CC      init/version-timestamp.o\n'])
        self.assertEqual(sum(counts.values()), 1)

    def test_a_step_rebuilt_without_the_warning_loses_it(self):
        counts = series.update_warnings({}, self.log('0002'))
        self.assertEqual(sum(series.update_warnings(counts, self.log('0001')).values()), 0)

    def test_a_warning_before_any_step(self):
        self.assertEqual(series.update_warnings({}, ['x.c:1:1: warning: w\n']),
                         {'(no step)': 1})


if __name__ == '__main__':
    unittest.main()
