# SPDX-License-Identifier: GPL-2.0
"""matrix.py - the series checks of several sources in one table.

A row a source: a cell a patch, the worst of the states that decide its
series check (series.verdict_states: apply, build, warnings added,
checkpatch errors; checkpatch's warnings and checks show in the series
table only), then the exit status of the source's check and the tests
on its tip (passed/failed/skipped).

Usage: python3 -m mmfrozen.matrix RESULTS --source SPEC STATUS DIR...
       python3 -m mmfrozen.matrix RESULTS --job DIR... [--trees FILE]
  each --source: a source's spec, the exit status of its check and its
  results directory, whose series.json a check that stopped early may
  not have written; each --job: the results directory of a series check
  that ran on its own (a CI job), whose series.json names its source and
  exit status: the same table from such directories alone; --trees:
  the trees that had a job, as "runner.sh sources --json" lists them:
  each whose spec no job's series.json has is a row of its own, its exit
  "missing" (a job that uploaded nothing would else drop out unseen)
Writes RESULTS/matrix.json, the list of the series.json, and
RESULTS/matrix.md, the table in Markdown (a CI job's summary renders it),
prints the table.  Exit status 1 when a source's check did not pass, 2
when a job's results or the trees cannot be read (not a failed tree: a
merge that cannot tell).
"""

import argparse
import os
import sys

from mmfrozen import series
from mmfrozen.results import read_json, write_json


def no_series(spec, status):
    """The series.json of a check that wrote none: its spec and exit."""
    return {'source': spec, 'spec': spec, 'exit': status, 'checkout': None, 'base': None,
            'patches': [], 'tests': None}


def read_source(spec, status, results):
    """A source's series.json, or a row of its own when there is none."""
    return read_json(os.path.join(results, 'series.json')) or no_series(spec, status)


class Unreadable(Exception):
    """An input that is not what the merge reads."""


def read_job(results):
    """A job's series.json; Unreadable when its directory has none."""
    series = read_json(os.path.join(results, 'series.json'))
    if not isinstance(series, dict):
        raise Unreadable('matrix: %s holds no series.json that can be read: not the results of '
                         'runner.sh series' % results)
    return series


# The exit of a tree that had a job and left no results.
MISSING = 'missing'


def read_trees(path):
    """The specs of the trees listed at PATH ("runner.sh sources --json");
    Unreadable when it is not such a list."""
    trees = read_json(path)
    if not isinstance(trees, list) or not all(isinstance(t, dict) and 'spec' in t
                                               for t in trees):
        raise Unreadable('matrix: %s is not a list of trees (runner.sh sources --json)' % path)
    return [t['spec'] for t in trees]


def missing_rows(specs, sources):
    """A row for each of SPECS that no source's series.json names."""
    have = {s.get('spec') for s in sources}
    return [no_series(spec, MISSING) for spec in specs if spec not in have]


def row(source):
    cells = [series.worst(series.verdict_states(p)) for p in source['patches']]
    tests = source.get('tests')
    return ([source['source']] + cells + [str(source['exit']),
            '%s/%s/%s' % (tests['passed'], tests['failed'], tests['skipped'])
            if tests else '-'])


def header(sources):
    patches = next((s['patches'] for s in sources if s['patches']), [])
    return ['source'] + [p['patch'][:4] for p in patches] + ['exit', 'tests']


def table(sources):
    return [('%-40s' % r[0] + ''.join(' %-5s' % c for c in r[1:])).rstrip()
            for r in [header(sources)] + [row(s) for s in sources]]


def markdown(sources):
    """The table in Markdown, a row a source; a source without patches
    (its check stopped early, or it left no results) has empty cells."""
    rows = [header(sources)] + [row(s) for s in sources]
    width = len(rows[0])
    lines = ['| ' + ' | '.join(r[:1] + [''] * (width - len(r)) + r[1:]) + ' |' for r in rows]
    return [lines[0], '|' + '---|' * width] + lines[1:]


def main(argv=None):
    ap = argparse.ArgumentParser(description='The series checks in one table.')
    ap.add_argument('results')
    given = ap.add_mutually_exclusive_group(required=True)
    given.add_argument('--source', nargs=3, action='append',
                       metavar=('SPEC', 'STATUS', 'DIR'))
    given.add_argument('--job', action='append', metavar='DIR')
    ap.add_argument('--trees', metavar='FILE')
    args = ap.parse_args(argv)
    if args.job:
        try:
            sources = [read_job(results) for results in args.job]
            if args.trees:
                sources += missing_rows(read_trees(args.trees), sources)
        except Unreadable as e:
            print(e, file=sys.stderr)
            return 2
    else:
        sources = [read_source(spec, int(status), results)
                   for spec, status, results in args.source]
    path = os.path.join(args.results, 'matrix.json')
    write_json(path, sources, indent=2)
    with open(os.path.join(args.results, 'matrix.md'), 'w') as f:
        f.write('\n'.join(markdown(sources)) + '\n')
    print('\n'.join(table(sources)))
    print('(cells: worst of apply, build+warnings, checkpatch errors; tests: '
          'passed/failed/skipped on the tip; %s)' % path)
    return 0 if all(s['exit'] == 0 for s in sources) else 1


if __name__ == '__main__':
    sys.exit(main())
