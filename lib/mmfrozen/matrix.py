# SPDX-License-Identifier: GPL-2.0
"""matrix.py - the series checks of several sources in one table.

A row a source: a cell a patch, the worst of the states that decide its
series check (series.verdict_states: apply, build, warnings added,
checkpatch errors; checkpatch's warnings and checks show in the series
table only), then the exit status of the source's check and the tests
on its tip (passed/failed/skipped).

Usage: python3 -m mmfrozen.matrix RESULTS --source SPEC STATUS SERIES.JSON...
  each --source: a source's spec, the exit status of its check and its
  series.json (which a check that stopped early may not have written)
Writes RESULTS/matrix.json, the list of the series.json, prints the
table.  Exit status 1 when a source's check did not pass.
"""

import argparse
import os
import sys

from mmfrozen import series
from mmfrozen.results import read_json, write_json


def read_source(spec, status, path):
    """A source's series.json, or a row of its own when there is none."""
    return read_json(path) or {'source': spec, 'exit': status, 'patches': []}


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


def main(argv=None):
    ap = argparse.ArgumentParser(description='The series checks in one table.')
    ap.add_argument('results')
    ap.add_argument('--source', nargs=3, action='append', required=True,
                    metavar=('SPEC', 'STATUS', 'JSON'))
    args = ap.parse_args(argv)
    sources = [read_source(spec, int(status), path)
               for spec, status, path in args.source]
    path = os.path.join(args.results, 'matrix.json')
    write_json(path, sources, indent=2)
    print('\n'.join(table(sources)))
    print('(cells: worst of apply, build+warnings, checkpatch errors; tests: '
          'passed/failed/skipped on the tip; %s)' % path)
    return 0 if all(s['exit'] == 0 for s in sources) else 1


if __name__ == '__main__':
    sys.exit(main())
