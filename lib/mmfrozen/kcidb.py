# SPDX-License-Identifier: GPL-2.0
"""kcidb.py - KCIDB v5.3 JSON of a results directory, as KernelCI's
common report database takes it: checkouts, builds and tests.

From what RESULTS holds (as junit.py reads it):
  checkout.json   one checkout: the tree's name, its base commit,
                  patchset_hash; one build, the variant, with its status
  series.json     the same, the checkout "valid" false when the series
                  does not apply; the tests of the tip (tip/)
  verdict.json    a test per KTAP result, at KernelCI's dotted paths:
                  kselftest.mm-frozen.PROGRAM.CASE, its kernel-log window
                  as log_excerpt; kselftest.mm-frozen itself, how the run
                  ended: a guest that crashed or timed out is ERROR, one
                  that never ran its tests MISS, never PASS; a MISS for
                  each test that the expected statuses have and the run
                  has not, and kselftest.mm-frozen.expected_statuses,
                  FAIL with each difference from them, or PASS
  upstream.tsv    kunit.slub_test.CASE, kselftest.mm.PROGRAM[.CASE]
  matrix.json     a checkout, build and tests each source
Statuses: PASS, FAIL, SKIP, ERROR (crashed, timed out, a plan not met)
and MISS.  Objects' ids start with the origin, "mm_frozen:", and are the
same for the same tree, series and variant, so that reports of two jobs
on one checkout merge.  tests/schemas/kcidb-v5.3.json, written from
kcidb-io's v5.3 definition, is what make check validates files against.

Usage: python3 -m mmfrozen.kcidb RESULTS        writes RESULTS/kcidb.json
       python3 -m mmfrozen.kcidb --check SCHEMA FILE...
           each FILE valid under SCHEMA (python3-jsonschema); exit 1 if not
"""

import argparse
import json
import os
import re
import sys

from mmfrozen import expected, kernel_log, ktap, outcomes, series as series_check, upstream
from mmfrozen.results import read_json, write_json
from mmfrozen.verdict import read_run

ORIGIN = 'mm_frozen'
VERSION = {'major': 5, 'minor': 3}
ROOT_PATH = ('kselftest', 'mm-frozen')
EXCERPT = 16384
# A path's part: what KCIDB's test path allows.
NOT_IN_PATH = re.compile(r'[^A-Za-z0-9_-]+')

STATUS = {ktap.PASS: 'PASS', ktap.XFAIL: 'PASS', ktap.FAIL: 'FAIL',
          ktap.SKIP: 'SKIP', ktap.TODO: 'SKIP', ktap.TIMEOUT: 'ERROR',
          ktap.CRASHED: 'ERROR'}
# How a run's end reads as the status of its tests as a whole.
OUTCOME_STATUS = {outcomes.PASSED: 'PASS', outcomes.TESTS_FAILED: 'FAIL',
                  outcomes.KERNEL_PROBLEM: 'FAIL', outcomes.GUEST_TIMEOUT: 'ERROR',
                  outcomes.GUEST_FAILED: 'ERROR'}


def part(name):
    """NAME as one part of a path: "plumbing.sh" is plumbing_sh."""
    return NOT_IN_PATH.sub('_', name).strip('_') or '_'


def case_parts(name):
    """A KTAP result's name as parts of a path: its dots separate them
    ("slab_bvec.kmalloc_64.get_pages_then_put")."""
    return [part(p) for p in name.split('.')]


def path_of(parts):
    return '.'.join(parts)


def ids(checkout):
    """The checkout's and the build's ids: the tree, its base commit and
    the patchset hash; the variant."""
    key = '%s@%s+%s' % (part(checkout['tree']), (checkout['base_commit'] or 'unknown')[:12],
                        (checkout['patchset_hash'] or 'none')[:12])
    return '%s:%s' % (ORIGIN, key), '%s:%s/%s' % (ORIGIN, key, checkout['variant'])


def checkout_record(checkout, valid):
    record = {'id': ids(checkout)[0], 'origin': ORIGIN, 'tree_name': checkout['tree'],
              'patchset_hash': checkout['patchset_hash'] or '', 'valid': valid,
              'misc': {'variant': checkout['variant']}}
    if checkout['harness']:
        record['misc']['harness'] = checkout['harness']
    if checkout['base_commit']:
        record['git_commit_hash'] = checkout['base_commit']
    if checkout['source_id']:
        record['comment'] = checkout['source_id']
    return record


def build_record(checkout, status):
    checkout_id, build_id = ids(checkout)
    return {'id': build_id, 'checkout_id': checkout_id, 'origin': ORIGIN,
            'architecture': 'x86_64', 'config_name': checkout['variant'], 'status': status}


def test_record(build_id, path, status, excerpt=''):
    record = {'id': '%s/%s' % (build_id, path), 'build_id': build_id, 'origin': ORIGIN,
              'path': path, 'status': status}
    if excerpt:
        record['log_excerpt'] = excerpt[-EXCERPT:]
    return record


def program_tests(build_id, test, windows, parts):
    """A test record per leaf of a program's tree, at its dotted path
    (PARTS, the program's); the program itself when it fails with no
    failing leaf, or its plan is not met."""
    records = []
    if not test.get('subtests'):
        return [test_record(build_id, path_of(parts), STATUS.get(test['status'], 'ERROR'),
                            '\n'.join(windows.get(test['name'], [])))]
    for sub in test['subtests']:
        records += program_tests(build_id, sub, windows,
                                 parts + case_parts(sub['name'] or 'unnamed'))
    failing = [r for r in records if r['status'] in ('FAIL', 'ERROR')]
    if test.get('errors'):
        records.append(test_record(build_id, path_of(parts), 'ERROR', '\n'.join(test['errors'])))
    elif test['status'] in ktap.FAILING and not failing:
        records.append(test_record(build_id, path_of(parts), STATUS[test['status']]))
    return records


def ran_the_target(verdict):
    """Whether the run is one of the mm-frozen target: its KTAP was read,
    or it ended before (MISS) or in the guest (ERROR); not a build that
    failed (the build says it), nor a guest command of another kind that
    ended well or failed (exec, bench, upstream: no KTAP of the target)."""
    outcome = verdict.get('outcome')
    if 'tests' in verdict:
        return True
    return outcome not in (None, outcomes.BUILD_FAILED, outcomes.PASSED, outcomes.TESTS_FAILED)


def run_status(verdict):
    """The run's tests as a whole: from how it ended; MISS when it ended
    before its tests could say (a build that failed, an interrupt)."""
    return OUTCOME_STATUS.get(verdict.get('outcome'), 'MISS')


def expected_path(path):
    """The dotted path of an expectation file's test: "selftests:
    mm-frozen: frozen_hazard_test / slab_page.x" is
    kselftest.mm-frozen.frozen_hazard_test.slab_page.x."""
    subtests = path.split(expected.SEPARATOR)[1:]
    return path_of([*ROOT_PATH, part(expected.program_name(path))] +
                   sum((case_parts(s) for s in subtests), []))


def expected_tests(build_id, exp):
    """The tests of verdict.json's "expected": a MISS for each missing
    test, and expected_statuses, FAIL with each difference, or PASS;
    none when the run was held to no file."""
    if not exp or not exp.get('file'):
        return []
    diffs = exp['differences']
    records = [test_record(build_id, expected_path(d['path']), 'MISS')
               for d in diffs if d['got'] is None]
    return records + [test_record(build_id, path_of([*ROOT_PATH, 'expected_statuses']),
                                  'FAIL' if diffs else 'PASS',
                                  '\n'.join(d['text'] for d in diffs))]


def run_tests(build_id, verdict, windows, problems):
    records = [test_record(build_id, path_of(ROOT_PATH), run_status(verdict))]
    for test in verdict.get('tests', []):
        program = part(test['name'].split(': ')[-1])
        records += program_tests(build_id, test, windows, [*ROOT_PATH, program])
    records += expected_tests(build_id, verdict.get('expected'))
    if problems is not None:
        records.append(test_record(build_id, path_of([*ROOT_PATH, 'kernel_log']),
                                   kernel_log_status(verdict, problems), '\n'.join(problems)))
    return records


def kernel_log_status(verdict, problems):
    """FAIL with problem lines; PASS only when the run checked the log,
    which a guest that did not finish never has: MISS."""
    if problems:
        return 'FAIL'
    return 'PASS' if verdict.get('outcome') in kernel_log.CHECKED_CLEAN else 'MISS'


UPSTREAM_STATUS = {'pass': 'PASS', 'fail': 'FAIL', 'skip': 'SKIP'}


def upstream_path(test):
    """kunit:slub_test:CASE is kunit.slub_test.CASE; mm:CATEGORY:PROGRAM[:CASE]
    is kselftest.mm.PROGRAM[.CASE]."""
    fields = [part(f) for f in test.split(':')]
    if fields[0] == 'kunit':
        return path_of(fields)
    return path_of(['kselftest', fields[0]] + fields[2:])


def upstream_tests(build_id, path):
    """A test record per line of the upstream.tsv at PATH."""
    return [test_record(build_id, upstream_path(test), UPSTREAM_STATUS.get(status, 'ERROR'))
            for test, status, _ in upstream.read_results(path)]


def run_report(results, checkout):
    """The checkout, build and tests of a run's results directory."""
    verdict, windows, problems = read_run(results)
    build_id = ids(checkout)[1]
    # a guest booted it (its tests were read, or it said its accelerator),
    # or the run passed (runner.sh kernel)
    if ('tests' in verdict or verdict.get('kernelrelease') or verdict.get('accel') or
            verdict.get('outcome') == outcomes.PASSED):
        build = 'PASS'
    else:
        build = 'FAIL' if verdict.get('outcome') == outcomes.BUILD_FAILED else 'MISS'
    tests = []
    if ran_the_target(verdict):
        tests = run_tests(build_id, verdict, windows, problems)
    tests += upstream_tests(build_id, os.path.join(results, 'upstream.tsv'))
    valid = verdict.get('outcome') != outcomes.PATCH_DOES_NOT_APPLY
    return [checkout_record(checkout, valid)], [build_record(checkout, build)], tests


def series_build_status(series, tip_builds):
    """A series check's build: that of its tip's run, else of the bisect
    build: FAIL when a commit did not build; SKIP when nothing was built
    (--no-bisect --no-test, or a series that does not apply)."""
    if tip_builds:
        return tip_builds[0]['status']
    builds = [p['build'] for p in series['patches'] if p['build']]
    if any(b['status'] == 'fail' for b in builds):
        return 'FAIL'
    if any(b['status'] == 'ok' for b in builds):
        return 'PASS'
    return 'SKIP' if series['exit'] in (0, 4, 8) else 'MISS'


def series_report(series, results=None):
    checkout = series['checkout']
    valid = series_check.outcome(series) != outcomes.PATCH_DOES_NOT_APPLY
    builds, tests = [], []
    tip = results and os.path.join(results, 'tip')
    if tip and os.path.isdir(tip):
        _, builds, tests = run_report(tip, checkout)
    elif series.get('tests'):
        build_id = ids(checkout)[1]
        tests = run_tests(build_id, series['tests'], {}, None)
        builds = [build_record(checkout, 'PASS')]
    build = build_record(checkout, series_build_status(series, builds))
    return [checkout_record(checkout, valid)], [build], tests


def report(results):
    """KCIDB's objects of whatever RESULTS holds."""
    data = {'version': VERSION, 'checkouts': [], 'builds': [], 'tests': []}
    matrix = read_json(os.path.join(results, 'matrix.json'))
    series = read_json(os.path.join(results, 'series.json'))
    if matrix is not None:
        parts = [series_report(s) for s in matrix if s.get('checkout')]
    elif series is not None and series.get('checkout'):
        parts = [series_report(series, results)]
    else:
        checkout = read_json(os.path.join(results, 'checkout.json'))
        if checkout is None:
            return data
        parts = [run_report(results, checkout)]
    for checkouts, builds, tests in parts:
        data['checkouts'] += checkouts
        data['builds'] += builds
        data['tests'] += tests
    return unique_ids(data)


def unique_ids(data):
    """DATA with each test's id made unique: KTAP allows two results of one
    name (the second gets "#2")."""
    seen = {}
    for test in data['tests']:
        n = seen[test['id']] = seen.get(test['id'], 0) + 1
        if n > 1:
            test['id'] += '#%d' % n
    return data


def import_jsonschema():
    """Debian's python3-jsonschema, for the check only; found in Debian's
    dist-packages also by a python3 that is not Debian's (pyenv's)."""
    try:
        import jsonschema
    except ImportError:
        sys.path.append('/usr/lib/python3/dist-packages')
        import jsonschema
    return jsonschema


def check(schema_path, paths):
    """The files at PATHS that SCHEMA does not take, with why."""
    jsonschema = import_jsonschema()
    with open(schema_path) as f:
        validator = jsonschema.Draft202012Validator(json.load(f))
    problems = []
    for path in paths:
        with open(path) as f:
            for error in validator.iter_errors(json.load(f)):
                problems.append('%s: %s: %s' % (path, '/'.join(map(str, error.path)),
                                                error.message))
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description='KCIDB JSON of a results directory.')
    ap.add_argument('results', nargs='*')
    ap.add_argument('--check', metavar='SCHEMA')
    args = ap.parse_args(argv)
    if args.check:
        problems = check(args.check, args.results)
        print('\n'.join(problems[:20]) if problems else
              '%d file(s) valid under %s' % (len(args.results), args.check))
        return 1 if problems else 0
    for results in args.results:
        write_json(os.path.join(results, 'kcidb.json'), report(results))
    return 0


if __name__ == '__main__':
    sys.exit(main())
