# SPDX-License-Identifier: GPL-2.0
"""junit.py - JUnit XML of a results directory, for the CI systems that
render it (GitLab, Jenkins; GitHub through a publishing action).

The format is that of Jenkins's xunit plugin (junit-10.xsd), checked
against tests/schemas/junit.xsd.  From what RESULTS holds:
  verdict.json with tests   a testsuite per kselftest program, named as
                            KernelCI names it (kselftest.mm-frozen.PROGRAM),
                            a testcase per KTAP result, with its kernel-log
                            window (console.log) as system-out; the suite
                            "expected-statuses": a failure per test whose
                            status is not the expected one; and the
                            suite "kernel-log": the problem lines
  upstream.tsv              a testsuite per upstream suite (mm:cow)
  series.json               the suite "series": each patch's apply,
                            checkpatch, build and warnings; then the tip's
                            suites, from tip/
  matrix.json               each source's series and tip suites, named
                            "SOURCE: SUITE"
  mutants.json              the suite "mutants": a testcase per mutant,
                            a failure when it survived, an error when it
                            did not build or its run could not tell
and a testsuite "run" whose one testcase is how the run ended: an error
when it ended before its tests could tell (a build that failed, a guest
that hung, an interrupt).  A failed test is a failure; a crashed or
timed out one an error, as is a plan its results do not match.

Usage: python3 -m mmfrozen.junit RESULTS   writes RESULTS/junit.xml
"""

import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET

from mmfrozen import kernel_log, ktap, series as series_check, upstream
from mmfrozen.results import read_json, read_lines
from mmfrozen.verdict import read_run

# What XML 1.0 does not allow, which a serial console may hold.
NOT_XML = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]')
KSELFTEST_PREFIX = 'selftests: '


class Case:
    """A testcase: its name, and at most one failure, error or skip."""

    def __init__(self, name, kind=None, message='', text='', out=''):
        self.name, self.kind, self.message = name, kind, message
        self.text, self.out = text, out


def suite_name(program):
    """KernelCI's name of a kselftest program: "selftests: mm-frozen:
    frozen_hazard_test" is kselftest.mm-frozen.frozen_hazard_test."""
    if program.startswith(KSELFTEST_PREFIX):
        return 'kselftest.' + '.'.join(program[len(KSELFTEST_PREFIX):].split(': '))
    return program


def leaf_case(name, test, windows):
    status, reason = test['status'], test.get('reason', '')
    out = '\n'.join(windows.get(name, []))
    if status == ktap.FAIL:
        return Case(name, 'failure', reason or status, out=out)
    if status in (ktap.TIMEOUT, ktap.CRASHED):
        return Case(name, 'error', '%s%s' % (status, ': ' + reason if reason else ''), out=out)
    if status in (ktap.SKIP, ktap.TODO):
        return Case(name, 'skipped', reason if status == ktap.SKIP else 'TODO ' + reason, out=out)
    if status == ktap.XFAIL:
        out = ('XFAIL %s\n%s' % (reason, out)).strip()
    return Case(name, out=out)


def program_cases(test, windows, prefix=''):
    """The testcases of a program's tree: a leaf each, named by its path
    below the program; the program itself when it fails with no failing
    leaf (it crashed, or exited non-zero), and each plan error."""
    cases = []
    for error in test.get('errors', []):
        cases.append(Case((prefix or test['name']) + ' (plan)', 'error', error))
    subtests = test.get('subtests', [])
    if not subtests:
        return cases + [leaf_case(prefix or test['name'], test, windows)]
    for sub in subtests:
        name = sub['name'] or '(unnamed)'
        cases += program_cases(sub, windows, prefix + '.' + name if prefix else name)
    failing = [c for c in cases if c.kind in ('failure', 'error')]
    if test['status'] in ktap.FAILING and not failing:
        cases.append(leaf_case(prefix or '(program)', dict(test, subtests=[]), windows))
    return cases


def expected_suite(expected):
    """The suite "expected-statuses": a failure for each test whose status
    is not the one the expectation file says (a pass that became a skip,
    a test gone missing, an extra one), else one case that passes; none
    when the run was held to no file."""
    if not expected or not expected.get('file'):
        return []
    cases = [Case(d['path'], 'failure', d['text']) for d in expected['differences']]
    return [('expected-statuses', cases or [Case('every status as expected',
                                                 out=expected['file'])])]


def tests_suites(verdict, windows, problems):
    """The suites of a run's tests (verdict.json's tree) and of their
    expected statuses, and its kernel log's when the run checked it
    (PROBLEMS, None when not)."""
    suites = [(suite_name(t['name']), program_cases(t, windows))
              for t in verdict.get('tests', [])]
    suites += expected_suite(verdict.get('expected'))
    if problems is None:
        return suites
    if problems:
        case = Case('kernel log', 'failure', '%d problem line(s)' % len(problems),
                    '\n'.join(problems))
    elif verdict.get('outcome') in kernel_log.CHECKED_CLEAN:
        case = Case('kernel log')
    else:
        case = Case('kernel log', 'skipped', 'not checked: the run ended first (%s)'
                    % verdict['outcome'])
    return suites + [('kernel-log', [case])]


def told(cases):
    return any(c.kind in ('failure', 'error') for c in cases)


def outcome_case(cases, status, outcome=None):
    """How the run ended, as a testcase: an error when it failed and none
    of CASES tells why (a build that failed, a guest that hung, an
    interrupt)."""
    if status in (None, 0) or told(cases):
        return Case('outcome', out=outcome or '')
    return Case('outcome', 'error', '%s (exit %s)' % (outcome or 'failed', status))


def run_suites(results):
    """The suites of a run's results directory."""
    verdict, windows, problems = read_run(results)
    suites = tests_suites(verdict, windows, problems)
    suites += upstream_suites(os.path.join(results, 'upstream.tsv'))
    cases = [c for _, cs in suites for c in cs]
    return suites + [('run', [outcome_case(cases, verdict.get('exit'), verdict.get('outcome'))])]


def upstream_suites(path):
    """A suite per upstream suite of upstream.tsv: "mm:cow:cow" is the
    testcase "cow" of the suite mm:cow."""
    suites = {}
    for test, status, note in upstream.read_results(path):
        suite, _, case = test.partition(':')
        category, _, case = case.partition(':')
        name = '%s:%s' % (suite, category)
        if status == 'fail':
            made = Case(case or name, 'failure', note or 'fail')
        elif status == 'skip':
            made = Case(case or name, 'skipped', note)
        else:
            made = Case(case or name, out=note)
        suites.setdefault(name, []).append(made)
    return list(suites.items())


def patch_cases(patch, reports):
    """A patch's testcases: apply, checkpatch, build, warnings; a column
    without a state is a skip (not reached, not built, in the tree)."""
    apply, build, warnings, checkpatch = series_check.states(patch)
    a, b, c = patch['apply'], patch['build'], patch['checkpatch']
    name = patch['patch']
    report = read_lines(os.path.join(reports, name[:-len('.patch')] + '.txt')) if reports else None
    columns = (
        ('apply', apply, a and '%s %s' % (a['status'], a['detail'] or '')),
        ('checkpatch', series_check.checkpatch_errors_state(c),
         c and c['errors'] is not None and '%d errors, %d warnings, %d checks'
         % (c['errors'], c['warnings'], c['checks'])),
        ('build', build, b and b['status']),
        ('warnings', warnings, b and b['warnings_added'] is not None and
         '%d compiler warning(s) added' % b['warnings_added']),
    )
    cases = []
    for column, state, text in columns:
        case = Case('%s: %s' % (name, column))
        if state == series_check.FAIL:
            case.kind, case.message = 'failure', text.strip()
        elif state is None:
            case.kind, case.message = 'skipped', skip_reason(column, patch)
        else:
            case.out = text.strip()
        if column == 'checkpatch' and report:
            case.out = '\n'.join(report)
        cases.append(case)
    return cases


def skip_reason(column, patch):
    if patch['apply'] is None:
        return 'not reached: the check stopped before this patch'
    if patch['build'] and patch['build']['status'] == 'in-tree':
        return 'in the tree already: no commit of its own'
    if column in ('build', 'warnings'):
        return 'not built (--no-bisect, or the check stopped before)'
    return 'checkpatch printed no totals'


def series_suites(series, results=None):
    """The suite "series", and the tip's suites: from the tip's results
    directory when there is one, else from series.json alone."""
    reports = results and os.path.join(results, 'checkpatch')
    cases = sum((patch_cases(p, reports) for p in series['patches']), [])
    tip = results and os.path.join(results, 'tip')
    if tip and os.path.isdir(tip):
        suites = run_suites(tip)
    else:
        suites = tests_suites(series['tests'] or {}, {}, None)
    told_by_tip = [c for _, cs in suites for c in cs]
    cases.append(outcome_case(cases + told_by_tip, series['exit']))
    return [('series', cases)] + suites


def mutant_case(entry):
    """A mutant's testcase: it passes when the suite killed the mutant,
    and says what killed it."""
    name, by = entry['mutant'], '; '.join(entry['by'])
    if entry['class'] == 'killed':
        return Case(name, out='killed by ' + by)
    if entry['class'] == 'survived':
        return Case(name, 'failure', 'survived: ' + entry['mistake'])
    return Case(name, 'error', entry['class'] + (': ' + by if by else ''))


def mutants_suites(entries, verdict):
    cases = [mutant_case(e) for e in entries]
    return [('mutants', cases),
            ('run', [outcome_case(cases, verdict.get('exit'), verdict.get('outcome'))])]


def suites_of(results):
    """The suites of whatever RESULTS holds."""
    matrix = read_json(os.path.join(results, 'matrix.json'))
    if matrix is not None:
        return [('%s: %s' % (s['source'], name), cases)
                for s in matrix for name, cases in series_suites(s)]
    mutants = read_json(os.path.join(results, 'mutants.json'))
    if mutants is not None:
        return mutants_suites(mutants, read_json(os.path.join(results, 'verdict.json')) or {})
    series = read_json(os.path.join(results, 'series.json'))
    if series is not None:
        return series_suites(series, results)
    return run_suites(results)


def xml_text(text):
    return NOT_XML.sub('?', text)


def counts(cases):
    kinds = [c.kind for c in cases]
    return {'tests': len(cases), 'failures': kinds.count('failure'),
            'errors': kinds.count('error'), 'skipped': kinds.count('skipped')}


def document(name, suites):
    """The <testsuites> element of SUITES ([(NAME, [Case])])."""
    root = ET.Element('testsuites', name=name)
    total = dict.fromkeys(('tests', 'failures', 'errors'), 0)
    for suite, cases in suites:
        n = counts(cases)
        elem = ET.SubElement(root, 'testsuite', name=suite,
                             **{k: str(v) for k, v in n.items()})
        for case in cases:
            tc = ET.SubElement(elem, 'testcase', name=case.name, classname=suite)
            if case.kind:
                ET.SubElement(tc, case.kind, message=xml_text(case.message)).text = \
                    xml_text(case.text) or None
            if case.out:
                ET.SubElement(tc, 'system-out').text = xml_text(case.out)
        for k in total:
            total[k] += n[k]
    root.attrib.update({k: str(v) for k, v in total.items()})
    return ET.ElementTree(root)


def write(results):
    path = os.path.join(results, 'junit.xml')
    tree = document('mm-frozen: %s' % os.path.basename(os.path.normpath(results)),
                    suites_of(results))
    ET.indent(tree)
    tree.write(path + '.tmp', encoding='UTF-8', xml_declaration=True)
    os.replace(path + '.tmp', path)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description='JUnit XML of a results directory.')
    ap.add_argument('results')
    args = ap.parse_args(argv)
    write(args.results)
    return 0


if __name__ == '__main__':
    sys.exit(main())
