# SPDX-License-Identifier: GPL-2.0
"""kcidb.py on the results of real runs: the serial console of a patched
run (a test per KTAP result at KernelCI's dotted paths, a test's
kernel-log window as its log_excerpt), a guest that crashed or timed
out (ERROR, never PASS), a run that ended before its tests (MISS), a
guest command that is not the target's (no test), the
kernel's own suites, the series checks of the installed 6.12 and of 6.1
(a checkout not valid), their matrix, and two jobs on one checkout (the
same ids).  Every file is checked against tests/schemas/kcidb-v5.3.json
with python3-jsonschema, as make check checks those of real runs."""

import json
import os
import shutil

from helpers import ROOT, ScratchTest, fixture, read, write
from mmfrozen import checkout, kcidb, ktap
from mmfrozen.results import write_json

SCHEMA = os.path.join(ROOT, 'tests', 'schemas', 'kcidb-v5.3.json')
BASE = '17edb942cbe1ad6be8cbea01f80fdff4884320dc'


class Kcidb(ScratchTest):

    def run_dir(self, console, outcome, status, name='run'):
        """A results directory: CONSOLE as its console.log, the verdict.json
        the runner writes from it, and the checkout of the series on
        the installed tree."""
        results = os.path.join(self.tmp, name)
        os.makedirs(results)
        if console:
            shutil.copy(fixture('ktap', console), os.path.join(results, 'console.log'))
            verdict = ktap.report(ktap.read_log(fixture('ktap', console)), 'patched')
        else:
            verdict = {'variant': 'patched'}
        verdict.update(outcome=outcome, exit=status)
        write_json(os.path.join(results, 'verdict.json'), verdict)
        patches = os.path.join(ROOT, 'patches')
        names = [l for l in read(os.path.join(patches, 'series')).splitlines()
                 if l and not l.startswith('#')]
        write_json(os.path.join(results, 'checkout.json'), checkout.checkout(
            'linux-source-6.12 (installed)', 'patched', 'linux-source-6.12 6.12.118-1~deb12u1',
            BASE, 'abc1234', patches, names))
        return results

    def report(self, results):
        """RESULTS' KCIDB data, once the schema took it."""
        data = kcidb.report(results)
        path = write(os.path.join(self.tmp, 'kcidb.json'), json.dumps(data))
        self.assertEqual(kcidb.check(SCHEMA, [path]), [])
        return data

    def statuses(self, data):
        return {t['path']: t['status'] for t in data['tests']}

    def test_a_patched_run(self):
        data = self.report(self.run_dir('console-patched.log', 'passed', 0))
        (co,), (build,) = data['checkouts'], data['builds']
        self.assertEqual((co['git_commit_hash'], co['valid'], co['tree_name']),
                         (BASE, True, 'linux-source-6.12 (installed)'))
        self.assertEqual((build['checkout_id'], build['config_name'], build['status']),
                         (co['id'], 'patched', 'PASS'))
        statuses = self.statuses(data)
        self.assertEqual(len(statuses), 38 + 3 + 2 - 1)  # one name twice
        self.assertEqual(statuses['kselftest.mm-frozen'], 'PASS')
        self.assertEqual(statuses['kselftest.mm-frozen.kernel_log'], 'PASS')
        self.assertEqual(statuses['kselftest.mm-frozen.frozen_hazard_test.'
                                  'page_refs.page_frag.bvec_get_pages_then_put'], 'SKIP')
        warns = [t for t in data['tests'] if t['path'].endswith('slab_page.get_page_warns_once')]
        self.assertIn('at include/linux/mm.h:1461', warns[0]['log_excerpt'])
        self.assertEqual(len({t['id'] for t in data['tests']}), len(data['tests']))

    def test_a_guest_that_crashed(self):
        data = self.report(self.run_dir('crash.log', 'guest-timeout', 6))
        statuses = self.statuses(data)
        self.assertEqual(statuses['kselftest.mm-frozen'], 'ERROR')
        self.assertEqual(sorted(statuses.values()).count('ERROR'), 3)
        self.assertEqual(statuses['kselftest.mm-frozen.frozen_hazard_test'], 'ERROR')

    def test_a_guest_that_printed_nothing(self):
        data = self.report(self.run_dir('no-results.log', 'guest-timeout', 6))
        self.assertEqual(self.statuses(data)['kselftest.mm-frozen'], 'ERROR')
        self.assertNotIn('PASS', self.statuses(data).values())

    def test_a_run_that_ended_before_its_tests(self):
        data = self.report(self.run_dir(None, 'build-failed', 5))
        self.assertEqual((data['builds'][0]['status'], data['tests']), ('FAIL', []))
        data = self.report(self.run_dir(None, 'interrupted', 130, 'interrupted'))
        self.assertEqual(data['builds'][0]['status'], 'MISS')
        self.assertEqual(self.statuses(data), {'kselftest.mm-frozen': 'MISS'})

    def test_a_guest_command_of_another_kind(self):
        results = self.run_dir(None, 'passed', 0)
        verdict = json.loads(read(os.path.join(results, 'verdict.json')))
        verdict['accel'] = {'name': 'tcg', 'reason': '--accel tcg'}
        write_json(os.path.join(results, 'verdict.json'), verdict)
        data = self.report(results)
        self.assertEqual((data['builds'][0]['status'], data['tests']), ('PASS', []))

    def test_a_kernel_built(self):
        data = self.report(self.run_dir(None, 'passed', 0))
        self.assertEqual((data['builds'][0]['status'], data['tests']), ('PASS', []))

    def test_the_kernels_own_suites(self):
        results = self.run_dir(None, 'passed', 0)
        shutil.copy(fixture('upstream', 'patched.tsv'), os.path.join(results, 'upstream.tsv'))
        statuses = self.statuses(self.report(results))
        self.assertEqual(statuses['kunit.slub_test.test_leak_destroy'], 'PASS')
        self.assertEqual(statuses['kselftest.mm.compaction_test'], 'PASS')
        self.assertEqual(statuses['kselftest.mm.thuge-gen'], 'FAIL')

    def series(self, name, base):
        series = json.loads(read(fixture('series', name, 'expected.json')))
        series['checkout'] = checkout.checkout(series['source'], 'patched', '', base, '', '', [])
        return series

    def test_a_series_that_does_not_apply(self):
        results = os.path.join(self.tmp, 'series')
        os.makedirs(results)
        write_json(os.path.join(results, 'series.json'), self.series('6.1', 'b' * 40))
        data = self.report(results)
        self.assertEqual((data['checkouts'][0]['valid'], data['builds'][0]['status'], data['tests']),
                         (False, 'SKIP', []))

    def test_the_matrix_and_two_jobs_on_one_checkout(self):
        results = os.path.join(self.tmp, 'matrix')
        os.makedirs(results)
        write_json(os.path.join(results, 'matrix.json'),
                   [self.series('older-6.12', 'c' * 40), self.series('6.1', 'b' * 40)])
        data = self.report(results)
        self.assertEqual([c['valid'] for c in data['checkouts']], [True, False])
        self.assertEqual(self.statuses(data)['kselftest.mm-frozen.frozen_fault_test.'
                                             'memcg.charge_failure_frees_frozen'], 'PASS')
        again = kcidb.report(results)
        self.assertEqual([t['id'] for t in again['tests']], [t['id'] for t in data['tests']])

    def test_the_schema_has_teeth(self):
        data = kcidb.report(self.run_dir('console-patched.log', 'passed', 0))
        data['tests'][1]['status'] = 'OK'
        data['checkouts'][0]['git_commit_hash'] = None
        path = write(os.path.join(self.tmp, 'bad.json'), json.dumps(data))
        self.assertEqual(len(kcidb.check(SCHEMA, [path])), 2)
