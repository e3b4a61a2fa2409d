# SPDX-License-Identifier: GPL-2.0
"""mmfrozen.mutants: each mutant's header, and what killed it, on the
results of real mutant runs (tests/fixtures/mutants: 0011 killed by a
test and the kernel's BUG in its window, 0015 by a BUG at boot, 0004 by
a BUG at boot and the tests after it, the crashed ones that the log does
not name left out, 0014 by BUGs in five windows and a declared report
missing in a sixth, 0017 by a test alone) and made-up ones (a survivor, a
mutant that did not build, a hung guest that names nothing, an
interrupted run); a mutant of the bench (0003-high-order-frees-skip-lists:
its tests passed, its bench quick failed on the reference) killed by
each failure of its bench's guard, and one whose bench passed or left no
report; each kill held to the mutant's Expected-killer."""

import glob
import os
import unittest

from helpers import ROOT, ScratchTest, fixture, read, run_main, write
from mmfrozen import mutants

MUTANTS = os.path.join(ROOT, 'tests', 'mutants')


def mutant_patch(name):
    return os.path.join(MUTANTS, name + '.patch')


class HeaderTest(unittest.TestCase):

    def test_wrapped_subject_and_trailers(self):
        header = mutants.read_header(mutant_patch('0011-memcg-refcounted-free'))
        self.assertEqual(header['subject'],
                         'mm/page_alloc: [MUTANT] a failed memcg charge puts a frozen page')
        self.assertEqual(header['undoes'],
                         '0011-mm-page_alloc-Move-set_page_refcounted-to-end-of-__a.patch')
        self.assertEqual(header['mistake'],
                         'the charge failure keeps __free_pages() on a frozen page')
        self.assertEqual(header['expected'],
                         'frozen_fault_test memcg.charge_failure_frees_frozen')

    def test_every_mutant_names_its_patch_mistake_and_killer(self):
        series = read(os.path.join(ROOT, 'patches', 'series')).split()
        for path in glob.glob(os.path.join(MUTANTS, '*.patch')):
            header = mutants.read_header(path)
            with self.subTest(path=os.path.basename(path)):
                self.assertIn('[MUTANT]', header['subject'])
                self.assertIn(header['undoes'], series)
                self.assertTrue(header['mistake'])
                self.assertTrue(header['expected'])
                self.assertTrue(os.path.basename(path).startswith(header['undoes'][:5]))


class ClassifyTest(unittest.TestCase):

    def classify(self, name, status):
        return mutants.classify(fixture('mutants', name), status)

    def test_a_failed_test(self):
        self.assertEqual(self.classify('0017-stats-swapped', 1),
                         ('killed', ['frozen_knob_test knob.stats_follow_knob']))

    def test_a_failed_test_and_the_first_problem_of_its_window(self):
        self.assertEqual(self.classify('0011-memcg-refcounted-free', 7), (
            'killed', ['test memcg.charge_failure_frees_frozen: page dumped because: '
                       'VM_BUG_ON_PAGE(page_ref_count(page) == 0)',
                       'frozen_fault_test memcg.charge_failure_frees_frozen']))

    def test_a_problem_at_boot(self):
        self.assertEqual(self.classify('0015-slab-refcounted-free', 7), (
            'killed', ['boot: page dumped because: VM_BUG_ON_PAGE(page_ref_count(page) == 0)']))

    def test_a_problem_at_boot_then_the_tests_the_log_names(self):
        self.assertEqual(self.classify('0004-bulk-no-refcount', 7), (
            'killed', ['boot: page dumped because: VM_BUG_ON_PAGE(page_ref_count(page) == 0)',
                       'frozen_pages_test frozen.slab_free_without_refcount_atomic']))

    def test_a_declared_report_missing_is_its_windows(self):
        kind, by = self.classify('0014-put-slab', 7)
        self.assertEqual(kind, 'killed')
        self.assertFalse([b for b in by if b.startswith('boot:')])
        self.assertIn('test detector.refcounted_spec_ref.reports_bad_refcount_at_free: mm-frozen: '
                      'test detector.refcounted_spec_ref.reports_bad_refcount_at_free: expected 1 '
                      'kernel line(s) matching /frozen_pages: bad refcount at slab free: .* '
                      'cache:mm_frozen_hazard_ref$/, saw 0', by)

    def test_a_hung_guest_names_nothing(self):
        self.assertEqual(self.classify('hung', 6), ('error', [
            'the guest hung (stopped at its timeout), with no kernel problem and no '
            'failed test']))

    def test_survived(self):
        self.assertEqual(self.classify('survived', 0), ('survived', []))

    def test_did_not_build(self):
        self.assertEqual(self.classify('no-build', 5), ('no-build', []))

    def test_an_interrupted_run_is_no_verdict(self):
        self.assertEqual(self.classify('interrupted', 130), ('error', ['interrupted']))

    def test_a_run_that_wrote_no_verdict(self):
        self.assertEqual(self.classify('no-such-run', 3), ('error', ['exit 3']))


class ExpectedKillerTest(unittest.TestCase):

    def judge(self, expected, kills, others):
        """EXPECTED names each of KILLS and none of OTHERS."""
        for killer in kills:
            self.assertTrue(mutants.kills_as_expected(expected, killer), killer)
        for killer in others:
            self.assertFalse(mutants.kills_as_expected(expected, killer), killer)

    def test_boot(self):
        self.judge('boot: VM_BUG_ON_PAGE(page_ref_count(page) == 0)',
                   ['boot: page dumped because: VM_BUG_ON_PAGE(page_ref_count(page) == 0)'],
                   ['boot: kernel BUG at include/linux/mm.h:1140!',
                    'test slab_page.put_page_is_noop: page dumped because: '
                    'VM_BUG_ON_PAGE(page_ref_count(page) == 0)'])

    def test_a_subtest_by_its_failure_or_a_problem_in_its_window(self):
        self.judge('frozen_hazard_test slab_bvec',
                   ['frozen_hazard_test slab_bvec.kmalloc_64.get_pages_then_put',
                    'test slab_bvec.kmalloc_64.get_pages_then_put: WARNING: CPU: 0'],
                   ['frozen_hazard_test slab_page.put_page_is_noop',
                    'boot: WARNING: slab_bvec'])

    def test_a_program(self):
        self.judge('tracing_scripts.sh',
                   ['tracing_scripts.sh free-atomics.bt counts exactly: x'],
                   ['plumbing.sh x'])

    def test_the_bench_by_a_failure_of_its_guard(self):
        self.judge('bench', ['bench: pages-3: A moved +35.00% from the reference'],
                   ['bench_count.sh x', 'frozen_bench_test.sh pages', 'boot: bench'])

    def test_every_mutant_s_killer_is_the_boot_the_bench_or_a_program_of_the_target(self):
        target = os.path.join(ROOT, 'selftests', 'mm-frozen')
        for path in glob.glob(os.path.join(MUTANTS, '*.patch')):
            expected = mutants.read_header(path)['expected']
            program = os.path.join(target, expected.split(' ')[0])
            with self.subTest(path=os.path.basename(path)):
                self.assertTrue(expected.startswith('boot: ') or expected == 'bench'
                                or os.path.isfile(program) or os.path.isfile(program + '.c'),
                                expected)


class BenchTest(ScratchTest):
    """A mutant of the bench: its tests and its bench quick."""
    NAME = '0003-high-order-frees-skip-lists'

    def results(self, bench_status, bench_fixture=None):
        """mutants.tsv naming the mutant, its tests' run (passed) and its
        bench (BENCH_FIXTURE, none when None) linked in."""
        os.symlink(fixture('mutants', self.NAME), os.path.join(self.tmp, self.NAME))
        if bench_fixture:
            os.symlink(fixture('mutants', bench_fixture),
                       os.path.join(self.tmp, self.NAME + '-bench'))
        write(os.path.join(self.tmp, 'mutants.tsv'),
              '%s\t%s\t0\t%d\n' % (self.NAME, mutant_patch(self.NAME), bench_status))
        return self.tmp

    def test_killed_by_each_failure_of_its_guard(self):
        entry, = mutants.read_mutants(self.results(1, self.NAME + '-bench'))
        self.assertEqual(entry['class'], 'killed')
        self.assertTrue(entry['as_expected'])
        self.assertEqual(entry['bench_exit'], 1)
        self.assertTrue(entry['by'])
        for killer in entry['by']:
            self.assertRegex(killer, r'^bench: [a-z]+-[03]: [AB] moved [-+][0-9.]+% '
                                     r'from the reference')
        tests = mutants.stage_seconds(fixture('mutants', self.NAME))['total']
        self.assertGreater(entry['seconds']['total'], tests)

    def test_survived_when_its_bench_passed(self):
        entry, = mutants.read_mutants(self.results(0, 'control-bench'))
        self.assertEqual((entry['class'], entry['by']), ('survived', []))

    def test_no_verdict_from_a_bench_that_left_no_report(self):
        entry, = mutants.read_mutants(self.results(9))
        self.assertEqual(entry['class'], 'error')
        self.assertEqual(entry['by'], ['the bench ended with exit 9, its guard unread'])

    def test_a_kill_by_its_tests_comes_first(self):
        tests = ('killed', ['frozen_knob_test knob.stats_follow_knob'])
        bench = ('killed', ['bench: slab-3: A moved +21.00% from the reference'])
        self.assertEqual(mutants.combine(tests, bench), ('killed', tests[1] + bench[1]))
        self.assertEqual(mutants.combine(('no-build', []), ('error', ['x'])), ('no-build', []))

    def test_the_control_says_its_bench(self):
        os.symlink(fixture('mutants', 'survived'), os.path.join(self.tmp, 'control'))
        os.symlink(fixture('mutants', 'control-bench'), os.path.join(self.tmp, 'control-bench'))
        self.assertRegex(run_main(mutants.main, ['control', self.tmp])[1],
                         r'^control \(the series without a mutant\): passed; its bench '
                         r'passed, in \d+s\n$')

    def test_expected(self):
        self.assertEqual(run_main(mutants.main, ['expected', mutant_patch(self.NAME)]),
                         (0, 'bench\n'))


class StageSecondsTest(ScratchTest):
    """The time of a run by what its stages say they spent it on (the
    last column of stages.tsv), not by their titles."""

    def test_each_kind_summed(self):
        write(os.path.join(self.tmp, 'stages.tsv'),
              '1\tConfigure (mutant)\t6.5\t-\n'
              '2\tBuild the kernel (mutant)\t20.0\tbuild\n'
              "3\tBuild the kernel's mm selftests, install the modules\t4.0\tbuild\n"
              '4\tBuild the guest initramfs\t1.0\t-\n'
              '5\tBoot the guest and run tests.sh\t60.0\tguest\n')
        self.assertEqual(mutants.stage_seconds(self.tmp),
                         {'build': 24.0, 'guest': 60.0, 'total': 91.5})


class ReportTest(ScratchTest):

    def results(self, *runs):
        """A mutants run's results directory: mutants.tsv naming RUNS
        (fixture, mutant, status), their results linked in."""
        lines = []
        for name, patch, status in runs:
            os.symlink(fixture('mutants', name), os.path.join(self.tmp, name))
            lines.append('%s\t%s\t%d\n' % (name, mutant_patch(patch), status))
        write(os.path.join(self.tmp, 'mutants.tsv'), ''.join(lines))
        return self.tmp

    def test_report_and_json(self):
        results = self.results(('0011-memcg-refcounted-free', '0011-memcg-refcounted-free', 7),
                               ('survived', '0011-memcg-refcounted-free', 0))
        status, out = run_main(mutants.main, ['report', results])
        self.assertEqual(status, 0)
        lines = out.splitlines()
        self.assertRegex(lines[1], r'^0011-memcg-refcounted-free +0011 +killed +214 yes +'
                                   r'test memcg\.charge_failure_frees_frozen: ')
        self.assertRegex(lines[2], r'^ {67}frozen_fault_test memcg')
        self.assertRegex(lines[3], r'^survived +0011 +survived +\d+ - +-$')
        self.assertEqual(lines[4], '2 mutants, 1 killed, 1 survived; 894s in all')
        entries = mutants.read_mutants(results)
        self.assertEqual([e['class'] for e in entries], ['killed', 'survived'])
        self.assertEqual(entries[0]['seconds'], {'build': 26.3, 'guest': 163.5, 'total': 214.7})
        self.assertEqual(entries[0]['mistake'],
                         'the charge failure keeps __free_pages() on a frozen page')

    def test_verdict(self):
        killed = self.results(('0017-stats-swapped', '0017-stats-swapped', 1),
                              ('0015-slab-refcounted-free', '0015-slab-refcounted-free', 7))
        self.assertEqual(run_main(mutants.main, ['verdict', killed]), (0, 'passed\n'))
        os.remove(os.path.join(killed, 'mutants.tsv'))
        self.assertEqual(run_main(mutants.main, ['verdict', killed]), (0, 'tests-failed\n'))

    def test_a_survivor_fails_the_verdict(self):
        results = self.results(('0017-stats-swapped', '0017-stats-swapped', 1),
                               ('survived', '0011-memcg-refcounted-free', 0))
        self.assertEqual(run_main(mutants.main, ['verdict', results]), (0, 'tests-failed\n'))

    def test_a_kill_by_another_than_its_expected_killer(self):
        results = self.results(('0017-stats-swapped', '0011-memcg-refcounted-free', 1))
        status, out = run_main(mutants.main, ['report', results])
        lines = out.splitlines()
        self.assertRegex(lines[1], r' NO +frozen_knob_test knob\.stats_follow_knob$')
        self.assertEqual(lines[2].strip(),
                         'expected: frozen_fault_test memcg.charge_failure_frees_frozen')
        self.assertIn('1 not by its expected killer', lines[3])
        self.assertEqual(run_main(mutants.main, ['verdict', results]), (0, 'tests-failed\n'))
        self.assertRegex(run_main(mutants.main, ['line', results, '0017-stats-swapped'])[1],
                         r'^killed by frozen_knob_test knob\.stats_follow_knob, not by its '
                         r'expected killer \(frozen_fault_test memcg\.')

    def test_the_control_heads_the_table(self):
        results = self.results(('0017-stats-swapped', '0017-stats-swapped', 1))
        self.assertEqual(run_main(mutants.main, ['control', results]),
                         (0, 'control: did not run\n'))
        os.symlink(fixture('mutants', 'survived'), os.path.join(results, 'control'))
        status, out = run_main(mutants.main, ['report', results])
        self.assertRegex(out.splitlines()[0],
                         r'^control \(the series without a mutant\): passed, in \d+s$')

    def test_a_control_that_failed_says_by_what(self):
        results = self.results()
        os.symlink(fixture('mutants', '0017-stats-swapped'), os.path.join(results, 'control'))
        self.assertRegex(run_main(mutants.main, ['control', results])[1],
                         r'^control \(the series without a mutant\): tests-failed by '
                         r'frozen_knob_test knob\.stats_follow_knob, in \d+s\n$')

    def test_line(self):
        results = self.results(('0015-slab-refcounted-free', '0015-slab-refcounted-free', 7))
        status, out = run_main(mutants.main, ['line', results, '0015-slab-refcounted-free'])
        self.assertEqual(status, 0)
        self.assertRegex(out, r'^killed by boot: page dumped because: .*, as expected, '
                              r'in \d+s\n$')
        self.assertEqual(run_main(mutants.main, ['line', results, 'other'])[0], 2)


if __name__ == '__main__':
    unittest.main()
