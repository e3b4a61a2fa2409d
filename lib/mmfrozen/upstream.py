# SPDX-License-Identifier: GPL-2.0
"""upstream.py - the kernel's own suites, a patched kernel beside the baseline.

guest-init/upstream.sh collects each suite's raw output in RESULTS/upstream/
(suites.tsv: "SUITE <TAB> LOG <TAB> TIMEOUT" as each starts, LOG empty for
a suite it does not know; exits.tsv: "SUITE <TAB> EXIT" as each ends).
From them and the kernel log, collect judges upstream.tsv: "TEST <TAB>
pass|fail|skip <TAB> NOTE" lines, TEST named SUITE:PROGRAM[:CASE]
("mm:cow:cow", "kunit:slub_test:test_leak_destroy"), NOTE the result's
directive and the totals of the program's own subtests.

  python3 -m mmfrozen.upstream collect --patterns FILE RESULTS
      RESULTS/upstream.tsv: each suite's results as ktap.py reads its
      KTAP (a KUnit suite's cases, then the suite), a failure for a suite
      that timed out or did not finish, a result for the kernel log lines
      of each suite's window and one for those outside every window
      (kernel_log.py); prints the problem lines
  python3 -m mmfrozen.upstream compare --variant NAME BASELINE.tsv MINE.tsv
      the two side by side, a test a line: a test that passes on the
      baseline and fails, or is missing, here is a REGRESSION (exit
      status 1); one that fails on both is listed as such; the tests of
      a suite that did not run here are "not-run", not regressions
  python3 -m mmfrozen.upstream counts UPSTREAM.tsv
      "N fail, N pass, N skip": the results by status
"""

import argparse
import collections
import os
import re
import sys

from mmfrozen import kernel_log, ktap
from mmfrozen.results import read_lines

SUITE = re.compile(r'^[^:]+:[^:]+:')
LINE = '%-56s %-8s %-8s %s'
# The KTAP statuses as upstream.tsv has them: anything else fails.
TSV_STATUS = {ktap.PASS: 'pass', ktap.XFAIL: 'pass', ktap.SKIP: 'skip'}
DIRECTIVES = (ktap.SKIP, ktap.TODO, ktap.XFAIL, ktap.TIMEOUT)
TIMED_OUT = '124'
OUTSIDE = '(kernel log outside the suites)'


def read_tsv(path):
    """The tab-separated fields of each line of PATH; none if it is not
    there (the guest did not get that far)."""
    return [line.split('\t') for line in read_lines(path) or []]


def read_results(path):
    """The (TEST, STATUS, NOTE) lines of an upstream.tsv, in its order (a
    program that ran twice has two); none when there is no such file."""
    return [tuple((fields + ['', ''])[:3]) for fields in read_tsv(path)]


def by_test(rows):
    """{TEST: (STATUS, NOTE)}, a test's last line deciding."""
    return {test: (status, note) for test, status, note in rows}


def suite(test):
    """SUITE:PROGRAM of SUITE:PROGRAM:CASE; a name without a case as it is."""
    m = SUITE.match(test)
    return m.group(0)[:-1] if m else test


def mark(test, here, base, ran):
    """(status here, the comparison's mark) of TEST."""
    h, h_note = here.get(test, ('missing', ''))
    b, b_note = base.get(test, ('missing', ''))
    if h == 'missing' and suite(test) not in ran:
        return 'not-run', 'suite not run here'
    if b == 'pass' and h in ('fail', 'missing'):
        return h, 'REGRESSION'
    if h == 'fail' and b == 'fail':
        return h, 'fails on both'
    if h != b:
        return h, 'differs'
    if h_note != b_note:
        return h, 'subtests: %s | baseline %s' % (h_note, b_note)
    return h, ''


def compare(mine, baseline, variant):
    """The lines of the comparison of the rows MINE and BASELINE, and the
    number of regressions."""
    here, base = by_test(mine), by_test(baseline)
    ran = {suite(t) for t in here}
    tests = [r[0] for r in baseline] + [r[0] for r in mine if r[0] not in base]
    lines = [LINE.rsplit(' ', 1)[0] % ('test', variant, 'baseline')]
    marks = collections.Counter()
    for test in tests:
        status, why = mark(test, here, base, ran)
        marks[why] += 1
        lines.append(LINE % (test, status, base.get(test, ('missing',))[0], why))
    lines += ['', '%d tests: %d regression(s), %d failing on both'
              % (len(tests), marks['REGRESSION'], marks['fails on both'])]
    return lines, marks['REGRESSION']


def note(test):
    """A result's directive as its line had it, and the totals its
    program printed ("Totals: pass:1 fail:0 ..."), joined by "; "."""
    directive = test.reason
    if test.status in DIRECTIVES:
        directive = ' '.join(filter(None, [test.status.upper(), test.reason]))
    totals = [line.split('Totals: ')[-1] for line in test.log if 'Totals: ' in line]
    return '; '.join(filter(None, [directive, totals[-1] if totals else '']))


def suite_rows(suite, lines):
    """The rows of a suite's KTAP: its top-level results, a KUnit suite's
    cases (one level down) before it."""
    rows = []
    for test in ktap.parse(lines).subtests:
        if suite.startswith('kunit:'):
            rows += [('%s:%s' % (suite, case.name), TSV_STATUS.get(case.status, 'fail'),
                      note(case)) for case in test.subtests]
        rows.append(('%s:%s' % (suite, test.name), TSV_STATUS.get(test.status, 'fail'),
                     note(test)))
    return rows


def kernel_log_row(test, problems):
    if problems:
        return test, 'fail', '%d problem line(s)' % len(problems)
    return test, 'pass', ''


def collect(results, patterns):
    """The rows of upstream.tsv of the run in RESULTS, and the kernel
    log's problem lines, each with the window it is in."""
    out = os.path.join(results, 'upstream')
    exits = dict(line[:2] for line in read_tsv(os.path.join(out, 'exits.tsv')))
    problems = kernel_log.window_problems(
        [os.path.join(results, 'console.log'), os.path.join(results, 'guest', 'dmesg.txt')],
        patterns)
    rows = []
    for suite, log, timeout in read_tsv(os.path.join(out, 'suites.tsv')):
        if not log:
            rows.append((suite, 'fail', 'unknown suite'))
            continue
        rows += suite_rows(suite, read_lines(os.path.join(out, log)) or [])
        if suite not in exits:
            rows.append(('%s:(unfinished)' % suite, 'fail', 'the guest stopped in this suite'))
        elif exits[suite] == TIMED_OUT:
            rows.append(('%s:(timeout)' % suite, 'fail', 'killed after %ss' % timeout))
        rows.append(kernel_log_row('%s:(kernel log)' % suite, problems.get(suite, [])))
    rows.append(kernel_log_row(OUTSIDE, problems.get('', [])))
    lines = ['%s  [%s]' % (line, test or 'outside the suites')
             for test, found in problems.items() for line in found]
    return rows, lines


def counts(rows):
    by_status = collections.Counter(status for _, status, _ in rows)
    return ', '.join('%d %s' % (by_status[s], s) for s in sorted(by_status))


def main(argv=None):
    ap = argparse.ArgumentParser(description='The kernel\'s own suites.')
    sub = ap.add_subparsers(dest='command', required=True)
    cmp = sub.add_parser('compare')
    cmp.add_argument('--variant', required=True)
    cmp.add_argument('baseline')
    cmp.add_argument('mine')
    sub.add_parser('counts').add_argument('results')
    col = sub.add_parser('collect')
    col.add_argument('--patterns', required=True)
    col.add_argument('results')
    args = ap.parse_args(argv)
    if args.command == 'counts':
        print(counts(read_results(args.results)))
        return 0
    if args.command == 'collect':
        rows, problems = collect(args.results, kernel_log.read_patterns(args.patterns))
        with open(os.path.join(args.results, 'upstream.tsv'), 'w') as f:
            f.writelines('\t'.join(row) + '\n' for row in rows)
        for line in problems:
            print('kernel: ' + line)
        return 0
    lines, regressions = compare(read_results(args.mine),
                                 read_results(args.baseline), args.variant)
    print('\n'.join(lines))
    return 1 if regressions else 0


if __name__ == '__main__':
    sys.exit(main())
