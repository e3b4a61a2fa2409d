# SPDX-License-Identifier: GPL-2.0
"""upstream.py - the kernel's own suites, a patched kernel beside the baseline.

guest-init/upstream.sh writes upstream.tsv: "TEST <TAB> pass|fail|skip
<TAB> NOTE" lines, TEST named SUITE:PROGRAM[:CASE] ("mm:cow:cow",
"kunit:slub_test:test_leak_destroy"), NOTE the totals of the program's
own subtests.

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
import re
import sys

SUITE = re.compile(r'^[^:]+:[^:]+:')
LINE = '%-56s %-8s %-8s %s'


def read_results(path):
    """The (TEST, STATUS, NOTE) lines of an upstream.tsv, in its order; a
    program that ran twice has two."""
    with open(path) as f:
        return [tuple((line.split('\t') + ['', ''])[:3])
                for line in f.read().splitlines()]


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
    args = ap.parse_args(argv)
    if args.command == 'counts':
        print(counts(read_results(args.results)))
        return 0
    lines, regressions = compare(read_results(args.mine),
                                 read_results(args.baseline), args.variant)
    print('\n'.join(lines))
    return 1 if regressions else 0


if __name__ == '__main__':
    sys.exit(main())
