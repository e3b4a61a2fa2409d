# SPDX-License-Identifier: GPL-2.0
"""upstream.py: the kernel's own suites of a real patched run beside the
baseline's (tests/fixtures/upstream/, with the comparison the runner's
former awk printed of them: 60 tests, 0 regressions, 4 failing on both),
then made-up changes: a test that fails here and passes there, one
missing from a suite that ran, the tests of a suite that did not run.
Then collect, the judge of what the guest collected: on a real run's raw
output, and on made-up runs that time out, stop, or log problems."""

import os
import unittest

from helpers import ROOT, ScratchTest, fixture, read, run_main, write
from mmfrozen import kernel_log, upstream

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


KERNEL_PROBLEMS = os.path.join(ROOT, 'selftests', 'mm-frozen', 'kernel-problems')
KUNIT = '''KTAP version 1
1..1
    KTAP version 1
    # Subtest: slub_test
    # module: slub_kunit
    1..2
    ok 1 test_clobber_zone
    not ok 2 test_kfree_rcu
# slub_test: pass:1 fail:1 skip:0 total:2
# Totals: pass:1 fail:1 skip:0 total:2
not ok 1 slub_test
'''
MM = '''TAP version 13
# running ./cow
# TAP version 13
# 1..1
# ok 1 anon
# # Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0
# [PASS]
ok 1 cow
# running ./ksm_tests -H
# [SKIP]
ok 2 ksm_tests -H # SKIP
# running ./thuge-gen
# [FAIL]
not ok 3 thuge-gen # exit=1
'''


class Collect(ScratchTest):
    """collect on what a guest left: suites.tsv, exits.tsv, raw logs and
    the kernel log."""

    def test_the_real_run_as_the_guest_judged_it(self):
        """The raw output of a real patched run (tests/fixtures/upstream/run/)
        gives the upstream.tsv that the guest's own awk and sed reader gave
        of the same tree (patched.tsv)."""
        rows, problems = upstream.collect(fixture('upstream', 'run'),
                                          kernel_log.read_patterns(KERNEL_PROBLEMS))
        self.assertEqual(rows, PATCHED)
        self.assertEqual(problems, [])

    def run_of(self, suites, exits, logs, console=''):
        out = os.path.join(self.tmp, 'upstream')
        write(os.path.join(out, 'suites.tsv'), ''.join('\t'.join(s) + '\n' for s in suites))
        write(os.path.join(out, 'exits.tsv'), ''.join('\t'.join(e) + '\n' for e in exits))
        for name, text in logs.items():
            write(os.path.join(out, name), text)
        write(os.path.join(self.tmp, 'console.log'), console)
        return upstream.collect(self.tmp, kernel_log.read_patterns(KERNEL_PROBLEMS))

    def test_kunit_cases_then_the_suite_and_mm_programs(self):
        rows, problems = self.run_of(
            [('kunit:slub_test', 'kunit.log', '600'), ('mm:cow', 'mm.log', '600')],
            [('kunit:slub_test', '0'), ('mm:cow', '0')],
            {'kunit.log': KUNIT, 'mm.log': MM})
        self.assertEqual(rows, [
            ('kunit:slub_test:test_clobber_zone', 'pass', ''),
            ('kunit:slub_test:test_kfree_rcu', 'fail', ''),
            ('kunit:slub_test:slub_test', 'fail', 'pass:1 fail:1 skip:0 total:2'),
            ('kunit:slub_test:(kernel log)', 'pass', ''),
            ('mm:cow:cow', 'pass', 'pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0'),
            ('mm:cow:ksm_tests -H', 'skip', 'SKIP'),
            ('mm:cow:thuge-gen', 'fail', 'exit=1'),
            ('mm:cow:(kernel log)', 'pass', ''),
            (upstream.OUTSIDE, 'pass', '')])
        self.assertEqual(problems, [])

    def test_a_suite_that_timed_out_keeps_the_results_it_printed(self):
        rows, _ = self.run_of([('mm:cow', 'mm.log', '600')], [('mm:cow', '124')],
                              {'mm.log': MM.split('# running ./thuge-gen')[0]})
        self.assertIn(('mm:cow:cow', 'pass', 'pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0'), rows)
        self.assertIn(('mm:cow:(timeout)', 'fail', 'killed after 600s'), rows)

    def test_a_guest_that_stopped_in_a_suite(self):
        rows, _ = self.run_of([('mm:cow', 'mm.log', '600')], [],
                              {'mm.log': MM.split('# [PASS]')[0]})
        self.assertEqual(rows[:2], [
            ('mm:cow:(unnamed)', 'fail', 'no result line, 1 of 1 results; '
             'pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0'),
            ('mm:cow:(unfinished)', 'fail', 'the guest stopped in this suite')])

    def test_an_unknown_suite_fails(self):
        rows, _ = self.run_of([('mm:nosuch', '', '')], [], {})
        self.assertEqual(rows[0], ('mm:nosuch', 'fail', 'unknown suite'))

    def test_kernel_problems_in_a_window_and_outside(self):
        console = ('[    1.000000] mm-frozen: test begin mm:cow\n'
                   '[    2.000000] WARNING: CPU: 1 PID: 77 at mm/page_alloc.c:4321 x+0x1/0x2\n'
                   '[    3.000000] mm-frozen: test end mm:cow\n'
                   '[    4.000000] kernel BUG at mm/slub.c:1234!\n')
        rows, problems = self.run_of([('mm:cow', 'mm.log', '600')], [('mm:cow', '0')],
                                     {'mm.log': MM}, console)
        self.assertIn(('mm:cow:(kernel log)', 'fail', '1 problem line(s)'), rows)
        self.assertEqual(rows[-1], (upstream.OUTSIDE, 'fail', '1 problem line(s)'))
        self.assertEqual(problems, ['[    2.000000] WARNING: CPU: 1 PID: 77 at '
                                    'mm/page_alloc.c:4321 x+0x1/0x2  [mm:cow]',
                                    '[    4.000000] kernel BUG at mm/slub.c:1234!  '
                                    '[outside the suites]'])

    def test_a_declared_report_seen_as_often_as_declared(self):
        declared = ('[    1.000000] mm-frozen: test begin mm:gup_test\n'
                    '[    1.100000] mm-frozen: test expect 1 page dumped because: gup_test\n'
                    '[    2.000000] page dumped because: gup_test: dump_pages() test\n'
                    '[    3.000000] mm-frozen: test end mm:gup_test\n')
        rows, _ = self.run_of([('mm:gup_test', 'mm.log', '600')], [('mm:gup_test', '0')],
                              {'mm.log': MM}, declared)
        self.assertIn(('mm:gup_test:(kernel log)', 'pass', ''), rows)
        rows, _ = self.run_of([('mm:gup_test', 'mm.log', '600')], [('mm:gup_test', '0')],
                              {'mm.log': MM}, declared.replace('expect 1', 'expect 3'))
        self.assertIn(('mm:gup_test:(kernel log)', 'fail', '1 problem line(s)'), rows)

    def test_a_guest_that_stopped_before_the_suite_wrote_anything(self):
        rows, _ = self.run_of([('mm:cow', 'mm.log', '600')], [], {})
        self.assertEqual(rows[0], ('mm:cow:(unfinished)', 'fail', 'the guest stopped in this suite'))
