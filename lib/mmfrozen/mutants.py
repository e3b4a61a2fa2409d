# SPDX-License-Identifier: GPL-2.0
"""mutants.py - the series' mutants and what the suite made of each.

A mutant (tests/mutants/NAME.patch) is a patch on top of the whole
series that undoes part of one of its patches, as a rebase that went
subtly wrong would.  Its commit message says which patch ("Undoes:"),
the mistake ("Mistake:") and what is expected to catch it
("Expected-killer:"), in one of two forms:

  boot: TEXT         a kernel problem outside every test window whose
                     line holds TEXT;
  PROGRAM [SUBTEST]  PROGRAM failing, or SUBTEST (or a subtest below
                     it, "slab_bvec" for "slab_bvec.kmalloc_64...")
                     failing or having a kernel problem in its window;
  bench              the guard of "runner.sh bench quick" failing: a
                     mutant that only makes a path dearer.  Such a
                     mutant's bench runs after its tests, its results in
                     RESULTS/NAME-bench, and each failure of its guard
                     is a killer ("bench: FAILURE"); the control's in
                     RESULTS/control-bench.

"runner.sh mutants" first runs the series unmutated with the same
options, the control, in RESULTS/control: it must pass.  Then each
mutant, its results in RESULTS/NAME, listed in RESULTS/mutants.tsv
("NAME <TAB> PATCH <TAB> EXIT [<TAB> BENCH-EXIT]").  A mutant is:

  killed     by evidence: "by" names the first problem line of each test
             window (or of the boot, outside every window), then the
             tests that failed (those the log names); "as_expected" says
             whether one of them is its expected killer;
  survived   its run passed: the suite did not notice;
  no-build   it did not build (a mutant that needs mending);
  error      no verdict on the suite: the run failed with nothing named
             (a guest that hung or stopped, or tests that timed out or
             crashed, with no kernel problem in the log), or ended for
             another reason (the patch did not apply, an interrupt...).

Usage: python3 -m mmfrozen.mutants report RESULTS
           RESULTS/mutants.json and the table, of the mutants run so far
       python3 -m mmfrozen.mutants control RESULTS
           one line on the control: how it ended, in how long
       python3 -m mmfrozen.mutants line RESULTS NAME
           one line on mutant NAME: its class, by what, in how long
       python3 -m mmfrozen.mutants verdict RESULTS
           "passed" when every mutant was killed by its expected
           killer, else "tests-failed"
       python3 -m mmfrozen.mutants expected PATCH
           the Expected-killer of the mutant PATCH
"""

import argparse
import os
import re
import sys

from mmfrozen import kernel_log, outcomes
from mmfrozen.results import read_json, read_lines, write_json

TRAILERS = {'Undoes': 'undoes', 'Mistake': 'mistake',
            'Expected-killer': 'expected'}
TRAILER = re.compile(r'^(%s): (.*)$' % '|'.join(TRAILERS))
SUBJECT = re.compile(r'^Subject: (?:\[PATCH[^]]*\] )?(.*)$')
# A failed check names its test; a test that timed out or crashed is no
# evidence by itself (the kernel's problem, if any, is).
FAILED = re.compile(r'^FAIL (.*?)(?: \(.*\))?$')
# The outcomes that may hold evidence of a kill.
KILLING = {outcomes.TESTS_FAILED, outcomes.KERNEL_PROBLEM, outcomes.GUEST_TIMEOUT,
           outcomes.GUEST_FAILED}
# How a run ended, in the mutant's own words, when nothing names a kill.
ENDED = {outcomes.GUEST_TIMEOUT: 'the guest hung (stopped at its timeout)',
         outcomes.GUEST_FAILED: 'the guest stopped before its tests finished',
         outcomes.TESTS_FAILED: 'tests timed out or crashed',
         outcomes.KERNEL_PROBLEM: 'a kernel problem that names nothing'}
NOTHING_NAMED = ', with no kernel problem and no failed test'
BOOT = 'boot: '
BENCH = 'bench'
# The bench's exit status when its guard failed (E_TESTS).
BENCH_GUARD_FAILED = 1


def read_header(path):
    """{subject, undoes, mistake, expected} of a mutant's patch file."""
    header = dict.fromkeys(['subject'] + list(TRAILERS.values()), '')
    subject = False
    for line in read_lines(path) or []:
        if line == '---':
            break
        m = SUBJECT.match(line)
        if m:
            header['subject'], subject = m.group(1), True
            continue
        if subject and line.startswith(' '):
            header['subject'] += line
            continue
        subject = False
        m = TRAILER.match(line)
        if m:
            header[TRAILERS[m.group(1)]] = m.group(2)
    return header


def short_test(path):
    """A KTAP failure path, without the target's prefix."""
    return path.replace('selftests: mm-frozen: ', '').replace(' / ', ' ')


def problem_killers(problems):
    """The first problem line of each window: "test NAME: LINE", or
    "boot: LINE" outside every window."""
    killers, seen = [], set()
    for line in problems or []:
        window, text = kernel_log.problem_window(line)
        if window in seen:
            continue
        seen.add(window)
        text = re.sub(r'^\[ *[0-9.]+\] ', '', text)
        killers.append('%s: %s' % ('test ' + window if window else 'boot', text))
    return killers


def stage_seconds(results):
    """{build, guest, total} seconds of a run, from its stages.tsv, whose
    last column is the kind of time each stage spent (lib/core.sh's
    stage)."""
    seconds = {'build': 0.0, 'guest': 0.0, 'total': 0.0}
    for line in read_lines(os.path.join(results, 'stages.tsv')) or []:
        fields = line.split('\t')
        if len(fields) != 4:
            continue
        took, kind = float(fields[2]), fields[3]
        seconds['total'] += took
        if kind in seconds:
            seconds[kind] += took
    return {k: round(v, 1) for k, v in seconds.items()}


def classify(results, status):
    """(class, by) of a mutant's run in RESULTS, which exited STATUS."""
    verdict = read_json(os.path.join(results, 'verdict.json')) or {}
    outcome = verdict.get('outcome', 'exit %d' % status)
    if outcome == outcomes.PASSED:
        return 'survived', []
    if outcome == outcomes.BUILD_FAILED:
        return 'no-build', []
    if outcome not in KILLING:
        return 'error', [outcome]
    by = problem_killers(read_lines(os.path.join(results, 'kernel-problems.txt')))
    by += [short_test(m.group(1)) for m in map(FAILED.match, verdict.get('failures', []))
           if m and not m.group(1).startswith('(')]
    if not by:
        return 'error', [ENDED[outcome] + NOTHING_NAMED]
    return 'killed', by


def classify_bench(results, status):
    """(class, by) of a bench quick's run in RESULTS, which exited
    STATUS: killed by each failure of its guard, survived when it
    passed, else error."""
    report = read_json(os.path.join(results, 'bench.json')) or {}
    failures = report.get('guard', {}).get('failures')
    if status == 0 and failures == []:
        return 'survived', []
    if status == BENCH_GUARD_FAILED and failures:
        return 'killed', ['%s: %s' % (BENCH, f) for f in failures]
    return 'error', ['the bench ended with exit %d, its guard unread' % status]


def combine(tests, bench):
    """A mutant's (class, by) from its tests' and its bench's: killed
    by what killed it in either, else the tests' when they did not pass,
    else the bench's."""
    if 'killed' in (tests[0], bench[0]):
        return 'killed', [b for kind, by in (tests, bench) if kind == 'killed' for b in by]
    return tests if tests[0] != 'survived' else bench


def kills_as_expected(expected, killer):
    """Whether KILLER (a "by" of classify) is what EXPECTED, a mutant's
    Expected-killer, names."""
    if expected == BENCH:
        return killer.startswith(BENCH + ': ')
    if expected.startswith(BOOT):
        return killer.startswith(BOOT) and expected[len(BOOT):] in killer
    program, _, subtest = expected.partition(' ')
    if not subtest:
        return killer == program or killer.startswith(program + ' ')
    for name in (program + ' ' + subtest, 'test ' + subtest):
        if killer == name or killer.startswith((name + '.', name + ' ', name + ':')):
            return True
    return False


def bench_run(results, name):
    """Where the bench of mutant NAME (or of the control) left its
    results."""
    return os.path.join(results, '%s-%s' % (name, BENCH))


def add_seconds(a, b):
    """The seconds of two runs (stage_seconds) together."""
    return {k: round(a[k] + b[k], 1) for k in a}


def mutant(results, name, patch, status, bench_status=None):
    """What mutants.json says of one mutant; BENCH_STATUS, its bench's
    exit status when it ran."""
    run = os.path.join(results, name)
    kind, by = classify(run, status)
    seconds = stage_seconds(run)
    if bench_status is not None:
        bench = bench_run(results, name)
        kind, by = combine((kind, by), classify_bench(bench, bench_status))
        seconds = add_seconds(seconds, stage_seconds(bench))
    entry = {'mutant': name, 'patch': patch, 'exit': status, 'class': kind,
             'by': by, 'seconds': seconds}
    if bench_status is not None:
        entry['bench_exit'] = bench_status
    entry.update(read_header(patch))
    if kind == 'killed':
        entry['as_expected'] = any(kills_as_expected(entry['expected'], b) for b in by)
    return entry


def read_mutants(results):
    """Each mutant run so far, as mutants.json lists it."""
    entries = []
    for line in read_lines(os.path.join(results, 'mutants.tsv')) or []:
        name, patch, *statuses = line.split('\t')
        entries.append(mutant(results, name, patch, *map(int, statuses)))
    return entries


def undone(entry):
    """The number of the patch a mutant undoes part of ("0011")."""
    return entry['undoes'][:4] or '-'


def expectation(entry):
    """What a kill says of the mutant's expected killer: '' for a run
    that killed nothing."""
    if entry['class'] != 'killed':
        return ''
    if entry['as_expected']:
        return 'as expected'
    return 'not by its expected killer (%s)' % entry['expected']


def line(entry):
    by = ' by ' + '; '.join(entry['by']) if entry['by'] else ''
    said = ', ' + expectation(entry) if entry['class'] == 'killed' else ''
    return '%s%s%s, in %ds' % (entry['class'], by, said, entry['seconds']['total'])


def control_line(results):
    """One line on the control run of RESULTS, '' when it did not run."""
    run = os.path.join(results, 'control')
    if not os.path.isdir(run):
        return ''
    verdict = read_json(os.path.join(run, 'verdict.json')) or {}
    outcome = verdict.get('outcome', 'no verdict')
    kind, by = classify(run, verdict.get('exit', -1))
    said = 'passed' if kind == 'survived' else outcome + (' by ' + '; '.join(by) if by else '')
    seconds = stage_seconds(run)
    bench = read_json(os.path.join(bench_run(results, 'control'), 'bench.json'))
    if bench:
        said += '; its bench %s' % ('passed' if bench.get('guard', {}).get('passed')
                                    else 'failed')
        seconds = add_seconds(seconds, stage_seconds(bench_run(results, 'control')))
    return 'control (the series without a mutant): %s, in %ds' % (said, seconds['total'])


def table(entries):
    rows = ['%-32s %-6s %-9s %6s %-8s  %s' % (
        'MUTANT', 'UNDOES', 'CLASS', 'SECS', 'EXPECTED', 'KILLED BY (ELSE WHY)')]
    for e in entries:
        said = {'': '-', 'as expected': 'yes'}.get(expectation(e), 'NO')
        rows.append('%-32s %-6s %-9s %6d %-8s  %s' % (
            e['mutant'], undone(e), e['class'], e['seconds']['total'], said,
            e['by'][0] if e['by'] else '-'))
        rows += ['%67s%s' % ('', b) for b in e['by'][1:]]
        if said == 'NO':
            rows.append('%67sexpected: %s' % ('', e['expected']))
    counts = {}
    for e in entries:
        counts[e['class']] = counts.get(e['class'], 0) + 1
    unexpected = sum(1 for e in entries if expectation(e).startswith('not '))
    rows.append('%d mutants%s%s; %ds in all' % (
        len(entries), ''.join(', %d %s' % (n, c) for c, n in sorted(counts.items())),
        ', %d not by its expected killer' % unexpected if unexpected else '',
        sum(e['seconds']['total'] for e in entries)))
    return rows


def verdict(entries):
    """passed when every mutant was killed, each by its expected killer."""
    return (outcomes.PASSED if entries and all(expectation(e) == 'as expected' for e in entries)
            else outcomes.TESTS_FAILED)


def main(argv=None):
    ap = argparse.ArgumentParser(description='What the suite made of each mutant.')
    sub = ap.add_subparsers(dest='command', required=True)
    sub.add_parser('report').add_argument('results')
    sub.add_parser('control').add_argument('results')
    one = sub.add_parser('line')
    one.add_argument('results')
    one.add_argument('name')
    sub.add_parser('verdict').add_argument('results')
    sub.add_parser('expected').add_argument('patch')
    args = ap.parse_args(argv)
    if args.command == 'expected':
        print(read_header(args.patch)['expected'])
        return 0
    entries = read_mutants(args.results)
    if args.command == 'report':
        write_json(os.path.join(args.results, 'mutants.json'), entries)
        print('\n'.join(filter(None, [control_line(args.results)] + table(entries))))
    elif args.command == 'control':
        print(control_line(args.results) or 'control: did not run')
    elif args.command == 'line':
        found = [e for e in entries if e['mutant'] == args.name]
        if not found:
            print('mutants: %s is not in %s/mutants.tsv' % (args.name, args.results),
                  file=sys.stderr)
            return 2
        print(line(found[-1]))
    else:
        print(verdict(entries))
    return 0


if __name__ == '__main__':
    sys.exit(main())
