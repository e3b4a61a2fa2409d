# SPDX-License-Identifier: GPL-2.0
"""junit.py on the results of real runs: the serial console of a patched
run (a suite per program, a testcase per KTAP result, a test's
kernel-log window as its system-out), a guest that crashed (errors, never
a pass), a run that ended before its tests, kernel problems, the
kernel's own suites, the series checks of the installed 6.12 and of 6.1,
their matrix, and the mutants of the series.  Every file is checked against tests/schemas/junit.xsd
with xmllint, as make check checks those of real runs."""

import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET

from helpers import ROOT, ScratchTest, fixture, write
from mmfrozen import junit, ktap
from mmfrozen.results import write_json

SCHEMA = os.path.join(ROOT, 'tests', 'schemas', 'junit.xsd')


class JUnit(ScratchTest):

    def run_dir(self, console, outcome, status):
        """A results directory: CONSOLE as its console.log, and the
        verdict.json the runner writes from it."""
        results = os.path.join(self.tmp, 'run')
        os.makedirs(results)
        shutil.copy(fixture('ktap', console), os.path.join(results, 'console.log'))
        verdict = ktap.report(ktap.read_log(fixture('ktap', console)), 'patched')
        verdict.update(outcome=outcome, exit=status)
        write_json(os.path.join(results, 'verdict.json'), verdict)
        return results

    def junit(self, results):
        """The root of RESULTS/junit.xml, once xmllint found it valid."""
        path = junit.write(results)
        check = subprocess.run(['xmllint', '--noout', '--schema', SCHEMA, path],
                               capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stderr)
        return ET.parse(path).getroot()

    def suite(self, root, name):
        return root.find("testsuite[@name='%s']" % name)

    def test_a_patched_run(self):
        root = self.junit(self.run_dir('console-patched.log', 'passed', 0))
        self.assertEqual((root.get('tests'), root.get('failures'), root.get('errors')), ('43', '0', '0'))
        hazard = self.suite(root, 'kselftest.mm-frozen.frozen_hazard_test')
        self.assertEqual((hazard.get('tests'), hazard.get('skipped')), ('11', '1'))
        warns = hazard.find("testcase[@name='slab_page.get_page_warns_once']")
        self.assertIn('WARNING: CPU: 0 PID: 807 at include/linux/mm.h:1461', warns.find('system-out').text)
        skipped = hazard.find("testcase[@name='page_refs.page_frag.bvec_get_pages_then_put']/skipped")
        self.assertEqual(skipped.get('message'), 'the bvec case is over kmalloc() memory')
        self.assertIsNone(hazard.find("testcase[@name='slab_page.put_page_is_noop']/system-out"))
        self.assertIsNotNone(self.suite(root, 'kernel-log').find("testcase[@name='kernel log']"))

    def test_a_crashed_guest(self):
        root = self.junit(self.run_dir('crash.log', 'guest-timeout', 6))
        cases = root.findall('.//testcase')
        errors = [c for c in cases if c.find('error') is not None]
        self.assertEqual(len(errors), 2)
        self.assertTrue(all(c.find('error').get('message').startswith('crashed') for c in errors))
        outcome = self.suite(root, 'run').find('testcase')
        self.assertIsNone(outcome.find('error'), 'the crashed tests tell why it failed')

    def test_a_run_that_ended_before_its_tests(self):
        results = os.path.join(self.tmp, 'run')
        write(os.path.join(results, 'verdict.json'),
              json.dumps({'variant': 'patched', 'outcome': 'build-failed', 'exit': 5}))
        root = self.junit(results)
        self.assertEqual([s.get('name') for s in root], ['run'])
        self.assertEqual(root.find('.//error').get('message'), 'build-failed (exit 5)')

    def test_kernel_problems(self):
        results = self.run_dir('console-patched.log', 'kernel-problem', 7)
        write(os.path.join(results, 'kernel-problems.txt'), '[ 1.0] BUG: x  [during test t]\n')
        kernel = self.suite(self.junit(results), 'kernel-log')
        self.assertEqual(kernel.find('.//failure').get('message'), '1 problem line(s)')

    def test_the_kernels_own_suites(self):
        results = os.path.join(self.tmp, 'up')
        os.makedirs(results)
        shutil.copy(fixture('upstream', 'patched.tsv'), os.path.join(results, 'upstream.tsv'))
        root = self.junit(results)
        cow = self.suite(root, 'mm:cow')
        self.assertEqual(cow.find('testcase').get('name'), 'cow')
        self.assertEqual(len(self.suite(root, 'kunit:slub_test')), 10)
        self.assertEqual(root.get('failures'), '4')

    def series_dir(self, name):
        results = self.copy_fixture('series', name)
        os.rename(os.path.join(results, 'expected.json'), os.path.join(results, 'series.json'))
        return results

    def test_a_series_that_does_not_apply(self):
        series = self.suite(self.junit(self.series_dir('6.1')), 'series')
        first = series.find('testcase').get('name')
        self.assertRegex(first, r'^0001-.*: apply$')
        self.assertRegex(series.find('testcase/failure').get('message'),
                         r'^conflict mm/page_alloc\.c: hunks at ')
        self.assertEqual(series.find("testcase[@name='%s']/skipped" % first.replace('apply', 'build'))
                         .get('message'), 'not built (--no-bisect, or the check stopped before)')
        later = series.findall('testcase')[4].find('skipped')
        self.assertEqual(later.get('message'), 'not reached: the check stopped before this patch')
        self.assertIsNone(series.find("testcase[@name='outcome']/error"))

    def test_a_series_that_applies(self):
        series = self.suite(self.junit(self.series_dir('installed')), 'series')
        self.assertEqual(series.get('tests'), str(18 * 4 + 1))
        self.assertEqual(series.get('failures'), '0')

    def test_the_matrix(self):
        results = os.path.join(self.tmp, 'matrix')
        os.makedirs(results)
        with open(fixture('series', 'installed', 'expected.json')) as a, \
                open(fixture('series', '6.1', 'expected.json')) as b:
            write_json(os.path.join(results, 'matrix.json'), [json.load(a), json.load(b)])
        root = self.junit(results)
        self.assertEqual([s.get('name') for s in root],
                         ['linux-source-6.12 (installed): series', 'linux-source-6.1: series'])
        self.assertEqual(root.get('failures'), '1')

    def test_the_mutants(self):
        results = os.path.join(self.tmp, 'mutants')
        os.makedirs(results)
        entry = {'mistake': 'a mistake', 'by': []}
        write_json(os.path.join(results, 'mutants.json'), [
            dict(entry, mutant='m-killed', **{'class': 'killed', 'by': ['boot: Oops']}),
            dict(entry, mutant='m-survived', **{'class': 'survived'}),
            dict(entry, mutant='m-no-build', **{'class': 'no-build'})])
        write_json(os.path.join(results, 'verdict.json'), {'outcome': 'tests-failed', 'exit': 1})
        mutants = self.suite(self.junit(results), 'mutants')
        self.assertEqual(mutants.find("testcase[@name='m-killed']/system-out").text,
                         'killed by boot: Oops')
        self.assertEqual(mutants.find("testcase[@name='m-survived']/failure").get('message'),
                         'survived: a mistake')
        self.assertEqual(mutants.find("testcase[@name='m-no-build']/error").get('message'),
                         'no-build')
