# SPDX-License-Identifier: GPL-2.0
"""upstream.py: the kernel's own suites of a real patched run beside the
baseline's (tests/fixtures/upstream/, with the comparison the runner's
former awk printed of them: 60 tests, 0 regressions, 4 failing on both),
then made-up changes: a test that fails here and passes there, one
missing from a suite that ran, the tests of a suite that did not run."""

import unittest

from helpers import fixture, read, run_main
from mmfrozen import upstream

PATCHED = upstream.read_results(fixture('upstream', 'patched.tsv'))
BASELINE = upstream.read_results(fixture('upstream', 'baseline.tsv'))


def replaced(rows, test, status, note=''):
    return [(t, status, note) if t == test else (t, s, n) for t, s, n in rows]


class Compare(unittest.TestCase):

    def test_the_real_runs_as_the_runner_printed_them(self):
        status, out = run_main(upstream.main, ['compare', '--variant', 'patched',
                                               fixture('upstream', 'baseline.tsv'),
                                               fixture('upstream', 'patched.tsv')])
        self.assertEqual(status, 0)
        self.assertEqual(out, read(fixture('upstream', 'expected-compare.txt')))

    def test_a_regression(self):
        lines, regressions = upstream.compare(replaced(PATCHED, 'mm:cow:cow', 'fail', 'exit=1'),
                                              BASELINE, 'patched')
        self.assertEqual(regressions, 1)
        self.assertRegex('\n'.join(lines), r'(?m)^mm:cow:cow +fail +pass +REGRESSION$')

    def test_missing_from_a_suite_that_ran_is_a_regression(self):
        test = 'kunit:slub_test:test_leak_destroy'
        lines, regressions = upstream.compare([r for r in PATCHED if r[0] != test],
                                              BASELINE, 'patched')
        self.assertEqual(regressions, 1)
        self.assertRegex('\n'.join(lines), r'(?m)^%s +missing +pass +REGRESSION$' % test)

    def test_a_suite_that_did_not_run_is_not_a_regression(self):
        lines, regressions = upstream.compare([r for r in PATCHED if not r[0].startswith('mm:ksm:')],
                                              BASELINE, 'patched')
        self.assertEqual(regressions, 0)
        self.assertRegex('\n'.join(lines), r'(?m)^mm:ksm:\S+.* +not-run +pass +suite not run here$')

    def test_failing_on_both_and_subtests(self):
        lines, _ = upstream.compare(PATCHED, BASELINE, 'patched')
        self.assertEqual(sum(l.endswith('fails on both') for l in lines), 4)
        cow = [r for r in PATCHED if r[0] == 'mm:cow:cow'][0]
        lines, regressions = upstream.compare(replaced(PATCHED, 'mm:cow:cow', 'pass', 'pass:1'),
                                              BASELINE, 'patched')
        self.assertEqual(regressions, 0)
        self.assertIn('subtests: pass:1 | baseline %s' % cow[2], '\n'.join(lines))

    def test_counts(self):
        self.assertEqual(run_main(upstream.main, ['counts', fixture('upstream', 'patched.tsv')]),
                         (0, '4 fail, 56 pass\n'))


if __name__ == '__main__':
    unittest.main()
