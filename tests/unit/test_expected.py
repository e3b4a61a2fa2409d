# SPDX-License-Identifier: GPL-2.0
"""expected.py: each test held to the status it must have.  The run of
tests/fixtures/expected/run.log against patched.txt, which expects it as
it is, and against the same file changed the ways a rebase would lose a
test: a pass that became a skip, a test gone, one more, a skip's reason
changed; a machine's lines; --tests; and the file recorded from a run."""

import contextlib
import io
import json
import os
import subprocess
import unittest
import xml.etree.ElementTree as ET

from helpers import ROOT, ScratchTest, fixture, read, run_main, write
from mmfrozen import expected, junit, kcidb, ktap, verdict
from mmfrozen.results import write_json

PAGES = 'selftests: mm-frozen: frozen_pages_test'
TRACING = 'selftests: mm-frozen: tracing_scripts.sh'
SLAB = PAGES + ' / frozen.slab_free_without_refcount_atomic'
GRAPH = TRACING + ' / function_graph: the slab free path'


def run_tests(log='run.log'):
    return ktap.report(ktap.read_log(fixture('expected', log)), 'patched')['tests']


def lines(text):
    return [line for line in (expected.parse_line(t, n) for n, t in
                              enumerate(text.splitlines(), 1)) if line]


def patched(*changes):
    """patched.txt with each (OLD, NEW) of CHANGES replaced."""
    text = read(fixture('expected', 'patched.txt'))
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new)
    return lines(text)


class Differences(unittest.TestCase):

    def diffs(self, expect, machine='tcg', programs=None, log='run.log'):
        return [d['text'] for d in expected.differences(expect, run_tests(log), machine, programs)]

    def test_the_run_as_expected(self):
        self.assertEqual(self.diffs(patched()), [])

    def test_a_line_holds_under_its_accelerator_alone(self):
        self.assertEqual(self.diffs(patched(), 'icount'), [
            'unexpected: %s: skip (the function_graph tracer Oopses under TCG)' % GRAPH])

    def test_a_name_twice_in_a_group_is_two_tests(self):
        expect = patched() + lines('skip@tcg  %s [2]  # the function_graph tracer *' % GRAPH)
        self.assertEqual(self.diffs(expect), ['missing: %s [2] (expected skip)' % GRAPH])
        self.assertEqual(self.diffs(expect, log='run-twice.log'), [])

    def test_a_pass_that_became_a_skip_is_named_with_its_reason(self):
        self.assertEqual(self.diffs(patched(), 'kvm'), [
            'pass -> skip: %s (the function_graph tracer Oopses under TCG)' % GRAPH])

    def test_a_skip_expected_as_a_pass(self):
        expect = patched(('skip@tcg   %s  # the function_graph tracer * under TCG' % GRAPH,
                          'pass@tcg   %s' % GRAPH))
        self.assertEqual(self.diffs(expect),
                         ['pass -> skip: %s (the function_graph tracer Oopses under TCG)' % GRAPH])

    def test_a_skip_whose_reason_changed(self):
        expect = patched(('tracer * under TCG', 'tracer is not built'))
        self.assertEqual(self.diffs(expect), [
            'skip reason changed: %s: "the function_graph tracer is not built" -> '
            '"the function_graph tracer Oopses under TCG"' % GRAPH])

    def test_a_test_gone_missing(self):
        expect = patched() + lines('pass  %s / frozen.alloc_refcount' % PAGES)
        self.assertEqual(self.diffs(expect),
                         ['missing: %s / frozen.alloc_refcount (expected pass)' % PAGES])

    def test_a_program_gone_missing_is_one_line(self):
        expect = patched() + lines('pass  selftests: mm-frozen: plumbing.sh\n'
                                   'pass  selftests: mm-frozen: plumbing.sh / a\n'
                                   'pass  selftests: mm-frozen: plumbing.sh / b')
        self.assertEqual(self.diffs(expect), [
            'missing: selftests: mm-frozen: plumbing.sh (expected pass, and its 2 subtests)'])

    def test_an_extra_test(self):
        expect = [l for l in patched() if l.path != SLAB]
        self.assertEqual(self.diffs(expect), ['unexpected: %s: pass' % SLAB])

    def test_a_failure_where_one_is_expected(self):
        expect = patched(('pass       %s\n' % SLAB, 'fail       %s\n' % SLAB))
        self.assertEqual(self.diffs(expect), ['fail -> pass: %s' % SLAB])

    def test_only_a_star_is_a_wildcard_in_a_reason(self):
        line = lines('skip  x  # module not built? [*]')[0]
        self.assertTrue(line.matches('skip', 'module not built? [order 4]'))
        self.assertFalse(line.matches('skip', 'module not builtX [order 4]'))
        self.assertFalse(line.matches('pass', 'module not built? [order 4]'))

    def test_any_line_of_a_test_may_match(self):
        expect = patched() + lines('skip  %s  # no * module' % SLAB)
        self.assertEqual(self.diffs(expect), [])

    def test_only_the_programs_asked_for(self):
        expect = patched() + lines('pass  selftests: mm-frozen: plumbing.sh')
        self.assertEqual(self.diffs(expect, programs=['frozen_pages_test', 'tracing_scripts.sh']),
                         [])
        self.assertEqual(self.diffs(expect),
                         ['missing: selftests: mm-frozen: plumbing.sh (expected pass)'])


class File(ScratchTest):

    def test_bad_lines(self):
        for text in ('passed  x', 'pass@arm  x', 'pass', 'pass  x  # a reason'):
            with self.subTest(text=text):
                with self.assertRaises(expected.BadFile):
                    expected.parse_line(text, 3)

    def test_record_refuses_a_crashed_run(self):
        dir = os.path.join(self.tmp, 'r')
        tests = run_tests()
        tests[1]['subtests'][0]['status'] = 'crashed'
        write(os.path.join(dir, 'verdict.json'), json.dumps({'tests': tests}))
        path = os.path.join(self.tmp, 'new.txt')
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(expected.main(['record', dir, path]), 2)
        self.assertFalse(os.path.exists(path))

    def test_the_repositorys_files_read(self):
        files = sorted(os.listdir(os.path.join(ROOT, 'tests', 'expected')))
        self.assertIn('patched.txt', files)
        for name in files:
            with self.subTest(file=name):
                self.assertGreater(len(expected.read_file(
                    os.path.join(ROOT, 'tests', 'expected', name))), 0)

    def test_check(self):
        path = os.path.join(self.tmp, 'bad.txt')
        write(path, 'pass  a\nmaybe  b\n')
        status, _ = run_main(expected.main, ['check', fixture('expected', 'patched.txt')])
        self.assertEqual(status, 0)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(expected.main(['check', path]), 2)
        self.assertIn('line 2', err.getvalue())


class Recorded(unittest.TestCase):

    def test_lines_that_still_hold_are_kept_as_they_are(self):
        old = patched()
        self.assertEqual(expected.recorded(old, run_tests(), 'tcg'), [l.text for l in old])

    def test_a_changed_status_is_written_anew_for_its_machine(self):
        old = patched(('skip@tcg   %s  # the function_graph tracer * under TCG\n' % GRAPH, ''))
        new = expected.recorded(old, run_tests(), 'tcg')
        self.assertEqual(new[-2:], [
            'skip@tcg   %s  # the function_graph tracer Oopses under TCG' % GRAPH,
            'pass@kvm   %s' % GRAPH])

    def test_a_test_of_another_machine_alone_stays_where_it_was(self):
        old = patched() + lines('pass@kvm  %s / function_graph: the slab free path, counted\n'
                                'pass@kvm  %s / gone' % (TRACING, PAGES))
        new = expected.recorded(old, run_tests(), 'tcg')
        self.assertEqual(new, [l.text for l in patched()] + [
            'pass@kvm  %s / function_graph: the slab free path, counted' % TRACING,
            'pass@kvm  %s / gone' % PAGES])
        kvm_first = lines('pass@kvm  %s / gone' % PAGES) + patched()
        self.assertEqual(expected.recorded(kvm_first, run_tests(), 'tcg')[0],
                         'pass@kvm  %s / gone' % PAGES)

    def test_a_run_of_some_programs_leaves_the_others_lines(self):
        old = patched() + lines('pass  selftests: mm-frozen: plumbing.sh')
        pages = [t for t in run_tests() if t['name'] == PAGES]
        pages[0]['subtests'][0]['status'] = 'fail'
        new = expected.recorded(old, pages, 'tcg', ['frozen_pages_test'])
        self.assertEqual(new[1], 'fail       %s' % SLAB)
        self.assertEqual(new[:1] + new[2:], [l.text for l in old][:1] + [l.text for l in old][2:])

    def test_a_new_file(self):
        new = expected.recorded([], run_tests(), 'tcg')
        self.assertEqual(len(new), 6)
        self.assertEqual(new[0], 'pass       %s' % PAGES)
        self.assertEqual(expected.differences(lines('\n'.join(new)), run_tests(), 'tcg'), [])


class Verdict(ScratchTest):

    def results(self, accel='tcg'):
        dir = os.path.join(self.tmp, 'r')
        write(os.path.join(dir, 'guest', 'output.log'), read(fixture('expected', 'run.log')))
        write(os.path.join(dir, 'accel'), '%s\n--accel %s\n' % (accel, accel))
        return dir

    def verdict(self, dir, *args):
        status, out = run_main(verdict.main, ['tests', dir, '--variant', 'patched',
                                              '--release', 'r', '--status', '0'] + list(args))
        return status, out, json.loads(read(os.path.join(dir, 'verdict.json')))

    def test_as_expected(self):
        status, out, v = self.verdict(self.results(), '--expect',
                                      fixture('expected', 'patched.txt'))
        self.assertEqual((status, v['verdict'], v['expected']['differences']), (0, 'pass', []))
        self.assertEqual(out.splitlines()[-1], 'patched: 3 passed, 0 failed, 1 skipped, every '
                         'status as expected (%s)' % fixture('expected', 'patched.txt'))

    def test_a_difference_fails_the_run_and_is_named(self):
        status, out, v = self.verdict(self.results('kvm'), '--expect',
                                      fixture('expected', 'patched.txt'))
        diff = 'pass -> skip: %s (the function_graph tracer Oopses under TCG)' % GRAPH
        self.assertEqual((status, v['verdict']), (1, 'fail'))
        self.assertEqual(v['expected']['differences'], [
            {'path': GRAPH, 'expected': 'pass', 'got': 'skip', 'text': diff}])
        self.assertEqual(out.splitlines()[-2:], [
            '    ' + diff, 'patched: 3 passed, 0 failed, 1 skipped, 1 not as expected (%s)'
            % fixture('expected', 'patched.txt')])

    def test_without_a_file_the_run_says_so(self):
        status, out, v = self.verdict(self.results())
        self.assertEqual((status, v['expected']['file']), (0, None))
        self.assertIn('    statuses not compared: no expectation file', out)

    def test_programs(self):
        _, _, v = self.verdict(self.results(), '--programs', 'frozen_pages_test')
        self.assertEqual(v['expected']['programs'], ['frozen_pages_test'])


class Reports(ScratchTest):
    """JUnit and KCIDB name each difference: a pass that became a skip,
    and a test gone missing (KCIDB's MISS)."""

    def results(self):
        dir = os.path.join(self.tmp, 'r')
        write(os.path.join(dir, 'guest', 'output.log'), read(fixture('expected', 'run.log')))
        write(os.path.join(dir, 'accel'), 'kvm\n--accel kvm\n')
        expect = os.path.join(self.tmp, 'patched.txt')
        write(expect, read(fixture('expected', 'patched.txt')) +
              'pass  %s / frozen.alloc_refcount\n' % PAGES)
        run_main(verdict.main, ['tests', dir, '--variant', 'patched', '--release', 'r',
                                '--status', '0', '--expect', expect])
        path = os.path.join(dir, 'verdict.json')
        write_json(path, verdict.finished(json.loads(read(path)), 'patched', 'tests-failed', 1, 0))
        write_json(os.path.join(dir, 'checkout.json'), {
            'tree': 'linux-source-6.12 (installed)', 'variant': 'patched', 'source_id': '',
            'base_commit': None, 'patchset_hash': None, 'harness': '', 'patches': []})
        return dir

    def test_junit(self):
        path = junit.write(self.results())
        check = subprocess.run(['xmllint', '--noout', '--schema',
                                os.path.join(ROOT, 'tests', 'schemas', 'junit.xsd'), path],
                               capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stderr)
        suite = ET.parse(path).getroot().find("testsuite[@name='expected-statuses']")
        self.assertEqual([(c.get('name'), c.find('failure').get('message')) for c in suite], [
            (GRAPH, 'pass -> skip: %s (the function_graph tracer Oopses under TCG)' % GRAPH),
            (PAGES + ' / frozen.alloc_refcount',
             'missing: %s / frozen.alloc_refcount (expected pass)' % PAGES)])

    def test_kcidb(self):
        data = kcidb.report(self.results())
        path = os.path.join(self.tmp, 'kcidb.json')
        write(path, json.dumps(data))
        self.assertEqual(kcidb.check(os.path.join(ROOT, 'tests', 'schemas', 'kcidb-v5.3.json'),
                                     [path]), [])
        tests = {t['path']: t for t in data['tests']}
        self.assertEqual(tests['kselftest.mm-frozen.frozen_pages_test.frozen.alloc_refcount']
                         ['status'], 'MISS')
        statuses = tests['kselftest.mm-frozen.expected_statuses']
        self.assertEqual(statuses['status'], 'FAIL')
        self.assertEqual(statuses['log_excerpt'].splitlines()[0],
                         'pass -> skip: %s (the function_graph tracer Oopses under TCG)' % GRAPH)


if __name__ == '__main__':
    unittest.main()
