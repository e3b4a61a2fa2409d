# SPDX-License-Identifier: GPL-2.0
"""bench.py, the bench's report and guard: on the passes of a real "bench
quick" run (tests/fixtures/bench/quick) the guard passes, and on those of
a real "bench" whose icount runs disagree (tick-in-b) it fails; on passes
made from the quick ones or written here it fails, naming the case, when
a frozen path executes an atomic, when the count misses the refcounted
path's atomics, when the hist triggers dropped events, when under -icount
frozen page allocation costs more instructions than refcounted, and when
the two icount runs' medians of a case are more than 1 % apart.  The summary
figure's data: medians from zero, the spread, the atomics and the
predicted saving.  The reference (record): each case's icount medians
and size with what they depend on, from a run whose guard passed only;
held against a run, a case that moved by more than REFERENCE_TOLERANCE
fails, named with its change, and a reference missing or of another
QEMU is said and not held against."""

import json
import os

from helpers import ScratchTest, fixture, read, run_main, write
from mmfrozen import bench


class RealRun(ScratchTest):

    def test_the_report_as_the_runner_printed_it(self):
        dir = self.copy_fixture('bench', 'quick')
        status, out = run_main(bench.main, [dir])
        self.assertEqual(status, 0)
        self.assertEqual(out, read(fixture('bench', 'quick', 'expected-table.txt')))
        report = json.loads(read(os.path.join(dir, 'bench.json')))
        self.assertEqual(report['guard'], {'passed': True, 'failures': []})
        self.assertEqual(sorted(report['cases']), ['cross-0', 'cross-3', 'pages-0', 'pages-3',
                                                   'slab-0', 'slab-3'])
        self.assertTrue(os.path.exists(os.path.join(dir, 'bench.gp')))

    def test_the_summary_figure_from_zero_with_the_atomics_and_saving(self):
        dir = self.copy_fixture('bench', 'quick')
        run_main(bench.main, [dir])
        lines = read(os.path.join(dir, 'bench-summary.dat')).splitlines()
        # medians, cheapest and dearest rounds of A and B (icount-1), the
        # labels' height, the atomics, the saving (contended, cross-CPU)
        self.assertEqual(lines[5], 'cross-0 3760.33 1448.48 3766.40 3790.67 1401.93 3793.43 '
                                   '3945.17 "atomics 0 vs 1" "predicted saving 36.56 ns"')
        self.assertEqual(len(lines), 7)
        gp = read(os.path.join(dir, 'bench.gp'))
        self.assertIn("set output '%s'" % os.path.join(dir, 'bench-summary.png'), gp)
        self.assertIn('set yrange [0:*]', gp)

    def test_icount_runs_that_disagree_fail_the_guard(self):
        # A real make bench whose rounds kept step with the timer tick: it
        # fell in every B batch of cross-0 in icount run 1, in none in run 2.
        dir = self.copy_fixture('bench', 'tick-in-b')
        status, out = run_main(bench.main, [dir])
        self.assertEqual(status, 1)
        self.assertEqual([l for l in out.splitlines() if l.startswith('GUARD FAILED')],
                         ['GUARD FAILED: cross-0: icount runs 1 and 2 disagree on B: 1255.6 '
                          'and 1243.0 instructions per operation, 1.004% apart (more than 1%)'])

    def test_a_frozen_atomic_in_a_real_count_fails_the_guard(self):
        dir = self.copy_fixture('bench', 'quick')
        count = os.path.join(dir, 'count', 'bench', 'slab-3.count')
        write(count, read(count).replace('page_ref_mod_and_test A 0', 'page_ref_mod_and_test A 1'))
        status, out = run_main(bench.main, [dir])
        self.assertEqual(status, 1)
        self.assertIn('GUARD FAILED: slab-3: the frozen path executed 1 refcount atomics', out)


class Guard(ScratchTest):

    def passes(self, frozen_atomics=0, refcounted_atomics=100, dropped=0,
               frozen_ns=90000, refcounted_ns=100000, frozen_ns_2=None):
        """A count pass of the case pages-0 (100 operations) and an -icount
        pass of two rounds; a second one if FROZEN_NS_2 is given, with
        that for A."""
        dir = os.path.join(self.tmp, 'r')
        write(os.path.join(dir, 'count', 'bench', 'pages-0.count'), ''.join(
            '%s\n' % l for l in ('page_ref_set A 0', 'page_ref_set B 100',
                                 'page_ref_mod_and_test A %d' % frozen_atomics,
                                 'page_ref_mod_and_test B %d' % refcounted_atomics,
                                 'dropped %d' % dropped, 'iters 100')))
        write(os.path.join(dir, 'icount-1', 'bench', 'pages-0.rounds'),
              'case pages order 0 iters 100 rounds 2\n0 %d %d\n1 %d %d\n'
              % (frozen_ns, refcounted_ns, frozen_ns, refcounted_ns))
        if frozen_ns_2 is not None:
            write(os.path.join(dir, 'icount-2', 'bench', 'pages-0.rounds'),
                  'case pages order 0 iters 100 rounds 2\n0 %d %d\n1 %d %d\n'
                  % (frozen_ns_2, refcounted_ns, frozen_ns_2, refcounted_ns))
        return dir

    def report(self, dir):
        return run_main(bench.main, [dir])

    def test_good_counts_pass(self):
        dir = self.passes()
        status, out = self.report(dir)
        self.assertEqual(status, 0)
        self.assertRegex(out, r'(?m)^pages-0 +0 1 +900 +1000 +0\.900')
        self.assertIn('guard: passed', out)
        self.assertTrue(json.loads(read(os.path.join(dir, 'bench.json')))['guard']['passed'])

    def test_failures(self):
        for args, message in (
                ({'frozen_atomics': 3}, 'pages-0: the frozen path executed 3 refcount atomics'),
                ({'refcounted_atomics': 0}, 'pages-0: the refcounted path executed 0 refcount '
                                            'atomics for 100 frees'),
                ({'dropped': 7}, 'pages-0: the hist triggers dropped 7 events'),
                ({'frozen_ns': 110000}, 'pages-0: under -icount the frozen path executed '
                                        '1100.0 instructions per operation, the refcounted '
                                        'one 1000.0'),
                ({'frozen_ns_2': 90910}, 'pages-0: icount runs 1 and 2 disagree on A: 900.0 '
                                         'and 909.1 instructions per operation, 1.011% apart '
                                         '(more than 1%)')):
            with self.subTest(**args):
                status, out = self.report(self.passes(**args))
                self.assertEqual(status, 1)
                self.assertIn('GUARD FAILED: ' + message, out)
                self.assertIn('guard: FAILED', out)
                os.rename(os.path.join(self.tmp, 'r'), os.path.join(self.tmp, 'r-%d' % id(args)))

    def test_icount_runs_that_agree_within_one_percent_pass(self):
        status, out = self.report(self.passes(frozen_ns_2=90900))
        self.assertEqual(status, 0)
        self.assertIn('icount runs 1 and 2: medians within 1.000% (worst: pages-0, A)', out)

    def test_no_results(self):
        os.makedirs(os.path.join(self.tmp, 'empty'))
        self.assertEqual(run_main(bench.main, [os.path.join(self.tmp, 'empty')])[0], 2)


class Reference(ScratchTest):
    DEPENDS_ON = ['--release', '6.12.118-mm-frozen',
                  '--tree', 'linux-source-6.12 6.12.118-1~deb12u1',
                  '--qemu', 'QEMU emulator version 7.2.22', '--config-sha256', 'ab12',
                  '--size', 'quick']

    def recorded(self):
        """The quick fixture's copy, reported with what it depends on,
        and its reference recorded in self.tmp/refs."""
        dir = self.copy_fixture('bench', 'quick')
        self.assertEqual(run_main(bench.main, [dir] + self.DEPENDS_ON)[0], 0)
        self.refs = os.path.join(self.tmp, 'refs')
        self.assertEqual(run_main(bench.main, ['record', dir, self.refs])[0], 0)
        return dir

    def slower(self, dir, name, factor):
        """The icount rounds of case NAME, A and B, made FACTOR dearer."""
        path = os.path.join(dir, 'icount-1', 'bench', name + '.rounds')
        lines = read(path).splitlines()
        rounds = [' '.join([w[0]] + [str(round(int(x) * factor)) for x in w[1:]])
                  for w in map(str.split, lines[1:])]
        write(path, '\n'.join([lines[0]] + rounds) + '\n')

    def test_the_medians_of_a_real_quick_run_with_what_they_depend_on(self):
        dir = self.recorded()
        saved = json.loads(read(os.path.join(self.refs, '6.12.118-mm-frozen.json')))
        report = json.loads(read(os.path.join(dir, 'bench.json')))
        median = report['cases']['cross-0']['icount-1']['summary']['B']['median']
        self.assertEqual(saved['cases']['cross-0']['B'], median)
        self.assertEqual(sorted(saved['cases']), sorted(report['cases']))
        self.assertEqual({k: saved[k] for k in ('release', 'qemu', 'config_sha256', 'size')},
                         {'release': '6.12.118-mm-frozen', 'qemu': 'QEMU emulator version 7.2.22',
                          'config_sha256': 'ab12', 'size': 'quick'})
        self.assertEqual(saved['cases']['pages-0']['rounds'],
                         len(report['cases']['pages-0']['icount-1']['rounds']))

    def test_the_same_run_against_its_reference_passes(self):
        dir = self.recorded()
        status, out = run_main(bench.main, [dir] + self.DEPENDS_ON + ['--references', self.refs])
        self.assertEqual(status, 0)
        self.assertIn('  pages-0  A      861.7 ->      861.7  +0.00%', out)

    def test_a_case_slower_than_the_tolerance_fails_naming_its_change(self):
        dir = self.recorded()
        self.slower(dir, 'slab-3', 1.04)
        status, out = run_main(bench.main, [dir] + self.DEPENDS_ON + ['--references', self.refs])
        self.assertEqual(status, 1)
        failed = [l for l in out.splitlines() if l.startswith('GUARD FAILED')]
        self.assertEqual(len(failed), 2)
        self.assertRegex(failed[0], r'^GUARD FAILED: slab-3: A moved \+4\.0\d% from the reference')
        self.assertIn('more than %g%%' % (100 * bench.REFERENCE_TOLERANCE), failed[0])

    def test_a_case_within_the_tolerance_passes(self):
        dir = self.recorded()
        self.slower(dir, 'slab-3', 1 + bench.REFERENCE_TOLERANCE / 2)
        self.assertEqual(run_main(bench.main, [dir] + self.DEPENDS_ON +
                                  ['--references', self.refs])[0], 0)

    def test_no_reference_is_said_and_a_against_b_checked(self):
        dir = self.copy_fixture('bench', 'quick')
        refs = os.path.join(self.tmp, 'none')
        status, out = run_main(bench.main, [dir] + self.DEPENDS_ON + ['--references', refs])
        self.assertEqual(status, 0)
        self.assertIn('reference %s/6.12.118-mm-frozen.json: none; only A against B checked'
                      % refs, out)

    def test_a_reference_of_another_qemu_is_not_held_against(self):
        dir = self.recorded()
        self.slower(dir, 'slab-3', 1.5)
        other = list(self.DEPENDS_ON)
        other[other.index('--qemu') + 1] = 'QEMU emulator version 8.2.2'
        status, out = run_main(bench.main, [dir] + other + ['--references', self.refs])
        self.assertEqual(status, 0)
        self.assertIn(': of another qemu: QEMU emulator version 7.2.22, not QEMU emulator '
                      'version 8.2.2; only A against B checked', out)

    def test_nothing_recorded_from_a_run_whose_guard_failed(self):
        dir = self.copy_fixture('bench', 'tick-in-b')
        run_main(bench.main, [dir] + self.DEPENDS_ON)
        refs = os.path.join(self.tmp, 'refs')
        self.assertEqual(run_main(bench.main, ['record', dir, refs])[0], 2)
        self.assertFalse(os.path.exists(refs))

    def test_nothing_recorded_without_what_the_run_depends_on(self):
        dir = self.copy_fixture('bench', 'quick')
        run_main(bench.main, [dir])
        refs = os.path.join(self.tmp, 'refs')
        self.assertEqual(run_main(bench.main, ['record', dir, refs])[0], 2)
        self.assertFalse(os.path.exists(refs))
