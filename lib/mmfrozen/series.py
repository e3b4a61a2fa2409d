# SPDX-License-Identifier: GPL-2.0
"""series.py - the series check: series.json, its table and its verdict.

"runner.sh series" leaves, in its results directory, a table per stage,
"PATCH <TAB> ..." lines in the order of the series:
  apply.tsv       STATUS (applies, 3-way, in-tree, conflict), DETAIL
  checkpatch.tsv  ERRORS, WARNINGS, CHECKS ("-" when checkpatch printed
                  no totals)
  build.tsv       STATUS (ok, fail, in-tree), SECONDS, WARNINGS ADDED,
                  WARNINGS; the base first, as "(base)"
and tip/verdict.json once the tip was tested.  Each column of the table
gets a state from a short fixed list, OK, WARN or FAIL, as netdev's
patchwork checks do; matrix.py takes the same states.

  python3 -m mmfrozen.series report DIR --names FILE --source LABEL
          [--spec SPEC] --exit N
      DIR/series.json, and the table on stdout; FILE lists the patches;
      SPEC is the tree as runner.sh --source named it (matrix.py finds a
      CI job's tree by it);
      DIR/checkout.json (mmfrozen.checkout: the tree, its base commit,
      the patches' hashes) goes in as "checkout", for a merge of jobs
  python3 -m mmfrozen.series verdict DIR
      the check's outcome: patch-does-not-apply (a conflict), build-failed
      (a commit that does not build), series-adds-warnings (a commit that
      adds compiler warnings, a patch with checkpatch errors) or passed
  python3 -m mmfrozen.series warnings LOG MAP
      MAP ("STEP <TAB> COUNT" lines) updated with the warnings of each
      build step that LOG shows, and the total printed
"""

import argparse
import os
import re
import sys

from mmfrozen import outcomes
from mmfrozen.results import read_json, write_json

OK, WARN, FAIL = 'OK', 'WARN', 'FAIL'
BASE = '(base)'


def number(text):
    if text in (None, '', '-'):
        return None
    return int(text)


def read_rows(path):
    """{PATCH: [COLUMN...]} of a stage's table; a missing table is empty."""
    rows = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f.read().splitlines():
                if line:
                    cols = line.split('\t')
                    rows[cols[0]] = cols[1:]
    return rows


def column(cols, i):
    return cols[i] if i < len(cols) else None


def apply_entry(cols):
    return {'status': column(cols, 0), 'detail': column(cols, 1)}


def build_entry(cols):
    return {'status': column(cols, 0), 'seconds': number(column(cols, 1)),
            'warnings_added': number(column(cols, 2)),
            'warnings': number(column(cols, 3))}


def checkpatch_entry(cols):
    return {'errors': number(column(cols, 0)),
            'warnings': number(column(cols, 1)),
            'checks': number(column(cols, 2))}


def entry(rows, name, make):
    return make(rows[name]) if name in rows else None


def collect(results, names, source, status, spec=''):
    """series.json's contents from the stages' tables in RESULTS."""
    apply = read_rows(os.path.join(results, 'apply.tsv'))
    checkpatch = read_rows(os.path.join(results, 'checkpatch.tsv'))
    build = read_rows(os.path.join(results, 'build.tsv'))
    base = None
    if BASE in build:
        cols = build[BASE]
        base = {'build': column(cols, 0), 'seconds': number(column(cols, 1)),
                'warnings': number(column(cols, 3))}
    return {
        'source': source, 'spec': spec, 'exit': status,
        'checkout': read_json(os.path.join(results, 'checkout.json')), 'base': base,
        'patches': [{'patch': p,
                     'apply': entry(apply, p, apply_entry),
                     'build': entry(build, p, build_entry),
                     'checkpatch': entry(checkpatch, p, checkpatch_entry)}
                    for p in names],
        'tests': read_json(os.path.join(results, 'tip', 'verdict.json')),
    }


# The state of each column of a patch's row, None where it has none.

def apply_state(apply):
    if apply is None:
        return None
    if apply['status'] == 'applies':
        return OK
    return FAIL if apply['status'] == 'conflict' else WARN


def build_state(build):
    if build is None or build['status'] == 'in-tree':
        return None
    return OK if build['status'] == 'ok' else FAIL


def warnings_state(build):
    if build is None or build['warnings_added'] is None:
        return None
    return FAIL if build['warnings_added'] > 0 else OK


def checkpatch_errors_state(checkpatch):
    if checkpatch is None or checkpatch['errors'] is None:
        return None
    return FAIL if checkpatch['errors'] > 0 else OK


def checkpatch_state(checkpatch):
    """The checkpatch column: its errors' state, WARN for warnings and checks."""
    state = checkpatch_errors_state(checkpatch)
    if state == OK and checkpatch['warnings'] + checkpatch['checks'] > 0:
        return WARN
    return state


def states(patch):
    """The states of a patch's columns: apply, build, warnings, checkpatch."""
    return (apply_state(patch['apply']), build_state(patch['build']),
            warnings_state(patch['build']), checkpatch_state(patch['checkpatch']))


def verdict_states(patch):
    """The states that decide the check: those of the columns, but that
    checkpatch's warnings and checks, which the table shows, do not
    count; its errors do."""
    return states(patch)[:3] + (checkpatch_errors_state(patch['checkpatch']),)


def worst(found):
    """The worst of the states, "-" when there is none."""
    found = [s for s in found if s]
    for state in (FAIL, WARN, OK):
        if state in found:
            return state
    return '-'


def cell(state, text):
    return '-' if state is None else ('%s %s' % (state, text)).rstrip()


def short_name(patch):
    return patch if len(patch) <= 52 else patch[:49] + '...'


def row_cells(patch):
    """A patch's row: "OK", "WARN 3-way", "FAIL conflict"; "OK 15s";
    "OK 0", "FAIL +1"; "WARN 0/1/1"; "-" for a column without a state."""
    apply, build, warnings, checkpatch = states(patch)
    a, b, c = patch['apply'], patch['build'], patch['checkpatch']
    added = ('+%d' if warnings == FAIL else '%d') % b['warnings_added'] if warnings else ''
    return (short_name(patch['patch']),
            cell(apply, a['status'] if apply in (WARN, FAIL) else ''),
            cell(build, '%ss' % b['seconds'] if build == OK else ''),
            cell(warnings, added),
            cell(checkpatch, '%d/%d/%d' % (c['errors'], c['warnings'], c['checks'])
                 if checkpatch else ''))


ROW = '%-52s  %-14s %-8s %-9s %s'


def table(series):
    """The table's lines: a row a patch, each conflict's detail, and the
    base's build and the tip's tests."""
    lines = ['', ROW % ('PATCH', 'APPLY', 'BUILD', 'WARNINGS', 'CHECKPATCH (E/W/C)')]
    lines += [ROW % row_cells(p) for p in series['patches']]
    lines += ['  %s: %s' % (p['patch'], p['apply']['detail'])
              for p in series['patches'] if apply_state(p['apply']) == FAIL]
    base = series['base']
    text = ('base: built in %ss, %s warnings' % (base['seconds'], base['warnings'])
            if base else 'base: not built')
    tests = series['tests']
    if tests:
        text += ('; tests on the tip: %s passed, %s failed, %s skipped'
                 % (tests['passed'], tests['failed'], tests['skipped']))
    return lines + [text]


def outcome(series):
    """The check's outcome (see the module's text)."""
    patches = series['patches']
    if any(apply_state(p['apply']) == FAIL for p in patches):
        return outcomes.PATCH_DOES_NOT_APPLY
    builds = [p['build'] for p in patches] + [
        series['base'] and {'status': series['base']['build']}]
    if any(b and b['status'] == 'fail' for b in builds):
        return outcomes.BUILD_FAILED
    if any(warnings_state(p['build']) == FAIL or
           checkpatch_errors_state(p['checkpatch']) == FAIL for p in patches):
        return outcomes.SERIES_ADDS_WARNINGS
    return outcomes.PASSED


# A kbuild step line, "  CC      mm/slub.o" or "  LD [M]  fs/x.ko"
STEP = re.compile(r'^  [A-Z][A-Z0-9_]*( \[M\])? +[^ ]')
WARNING = re.compile(r'[Ww]arning:|WARNING:')


def update_warnings(counts, log_lines):
    """COUNTS ({STEP: N}) with the warnings of each step LOG_LINES show.
    A step not rebuilt keeps its count: its inputs did not change, nor
    would its warnings; so the total is that of a full build, and the
    difference between two commits is what the second adds (make
    -Otarget keeps a step's output together)."""
    counts = dict(counts)
    step = None
    for line in log_lines:
        line = line.rstrip('\n')
        if STEP.match(line):
            step = ' '.join(line.split())
            counts[step] = 0
        elif WARNING.search(line):
            key = step or '(no step)'
            counts[key] = counts.get(key, 0) + 1
    return counts


def read_counts(path):
    counts = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                step, n = line.rstrip('\n').rsplit('\t', 1)
                counts[step] = int(n)
    return counts


def write_counts(path, counts):
    with open(path + '.tmp', 'w') as f:
        for step in sorted(counts):
            f.write('%s\t%d\n' % (step, counts[step]))
    os.replace(path + '.tmp', path)


def main(argv=None):
    ap = argparse.ArgumentParser(description='The series check.')
    sub = ap.add_subparsers(dest='command', required=True)
    report = sub.add_parser('report')
    report.add_argument('results')
    report.add_argument('--names', required=True)
    report.add_argument('--source', required=True)
    report.add_argument('--spec', default='')
    report.add_argument('--exit', type=int, default=0)
    sub.add_parser('verdict').add_argument('results')
    warnings = sub.add_parser('warnings')
    warnings.add_argument('log')
    warnings.add_argument('map')
    args = ap.parse_args(argv)
    if args.command == 'warnings':
        with open(args.log, errors='replace') as f:
            counts = update_warnings(read_counts(args.map), f)
        write_counts(args.map, counts)
        print(sum(counts.values()))
        return 0
    if args.command == 'verdict':
        names = list(read_rows(os.path.join(args.results, 'apply.tsv')))
        print(outcome(collect(args.results, names, '', 0)))
        return 0
    with open(args.names) as f:
        names = f.read().split()
    series = collect(args.results, names, args.source, args.exit, args.spec)
    write_json(os.path.join(args.results, 'series.json'), series, indent=2)
    print('\n'.join(table(series)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
