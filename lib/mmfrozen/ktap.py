# SPDX-License-Identifier: GPL-2.0
"""ktap.py - read the KTAP of a guest run: a tree of results and a verdict.

Reads KTAP version 1 and the TAP 13 that 6.12's kselftest runner prints:
nesting by indentation (4 spaces a level, KTAP) or by "# " prefixes (one
a level, the kselftest runner's wrapping of each program's output), plans,
"# Subtest:" headers, and the directives SKIP, TODO, XFAIL and TIMEOUT.
Lines that are not KTAP (a console's kernel lines, a tool's output) are
kept as diagnostics of the test they came in, and a kernel timestamp
("[   12.345678] ") in front of a line is dropped first.  As in kunit_tool,
the diagnostics of a level between two of its results belong to the
second too: KUnit prints a suite's totals after its cases, kselftest's
runner a program's name before its output.

What kselftest's own runner does not say, this parser does: a test whose
results stop before its plan says (the kernel panicked, the guest was
killed) is CRASHED, as are the tests still open when the log ends, and a
plan that its results do not match is an error, not a pass.

Usage: python3 -m mmfrozen.ktap [--json FILE] [--name NAME] LOG
  --json FILE  the verdict and the tree of results as JSON (verdict.json)
  --name NAME  the "variant" recorded in the JSON
Prints one line per failure, then "NAME: N passed, N failed, N skipped"
(and the crashed, timed out, xfail, todo and plan errors when there are
any).  Exit status: 0 no failure and at least one result, 1 otherwise,
2 usage or unreadable log.
"""

import argparse
import re
import sys

from mmfrozen.results import write_json

PASS, FAIL, SKIP, XFAIL, TODO, TIMEOUT, CRASHED = (
    'pass', 'fail', 'skip', 'xfail', 'todo', 'timeout', 'crashed')
# Statuses that fail a run; TODO is a known failure, XFAIL an expected one.
FAILING = (FAIL, TIMEOUT, CRASHED)

TIMESTAMP = re.compile(r'^\[ *[0-9]+\.[0-9]+\] ')
VERSION = re.compile(r'^K?TAP version [0-9]+$')
PLAN = re.compile(r'^1\.\.([0-9]+)$')
RESULT = re.compile(r'^(not ok|ok) ([0-9]+)(?: -)?(?: ([^#]*?))?\s*(?:#\s*(.*))?$')
SUBTEST = re.compile(r'^# Subtest: (.*)$')
DIRECTIVE = re.compile(r'^(SKIP|TODO|XFAIL|TIMEOUT)\b\s*(.*)$', re.IGNORECASE)


class Test:
    """One result: a leaf, or a group of subtests with their plan."""

    def __init__(self, name='', depth=0):
        self.name = name
        self.depth = depth
        self.status = None
        self.reason = ''
        self.plan = None
        self.subtests = []
        self.log = []
        self.pending = []       # a group's lines since its last result
        self.errors = []

    def to_dict(self):
        d = {'name': self.name, 'status': self.status}
        if self.reason:
            d['reason'] = self.reason
        if self.plan is not None:
            d['plan'] = self.plan
        if self.errors:
            d['errors'] = self.errors
        if self.subtests:
            d['subtests'] = [t.to_dict() for t in self.subtests]
        return d


def split_line(line):
    """(depth, text, structural) of a line: depth counts the prefixes
    ("# " or 4 spaces) in front of a KTAP line; a line that is not KTAP at
    any depth is a diagnostic of the depth its prefixes reach."""
    line = TIMESTAMP.sub('', line.rstrip('\r\n'))
    depth, rest = 0, line
    while True:
        if is_structural(rest):
            return depth, rest, True
        if rest.startswith('# ') and not SUBTEST.match(rest):
            rest = rest[2:]
        elif rest.startswith('    '):
            rest = rest[4:]
        elif rest == '#':
            rest = ''
        else:
            return max(depth - 1, 0), line, False
        depth += 1


def is_structural(text):
    return bool(VERSION.match(text) or PLAN.match(text)
                or RESULT.match(text) or SUBTEST.match(text))


def result_status(ok, directive):
    """The status of a result line and its directive's reason."""
    m = DIRECTIVE.match(directive or '')
    if m:
        kind, reason = m.group(1).upper(), m.group(2)
        if kind == 'SKIP':
            return SKIP, reason
        if kind == 'TODO':
            return TODO, reason
        if kind == 'XFAIL':
            return XFAIL, reason
        return TIMEOUT, reason
    return (PASS if ok else FAIL), directive or ''


class Parser:
    """A stack of open groups, the root at depth 0."""

    def __init__(self):
        self.root = Test('(main)', 0)
        self.stack = [self.root]
        self.next_name = {}     # depth -> name from "# selftests: ..."

    def top(self):
        return self.stack[-1]

    def open_to(self, depth):
        while self.top().depth < depth:
            d = self.top().depth + 1
            self.stack.append(Test(self.next_name.pop(d, ''), d))

    def feed(self, raw):
        depth, text, structural = split_line(raw)
        if not structural:
            self.diagnostic(depth, text)
            return
        m = RESULT.match(text)
        # Groups deeper than this line owns end here without the result
        # line of their own: they crashed.
        while len(self.stack) > 1 and self.top().depth > depth + (1 if m else 0):
            self.crash_top()
        if m:
            child = self.stack.pop() if self.top().depth == depth + 1 else None
            self.open_to(depth)
            parent = self.top()
            test = self.result(depth, m, child)
            test.log = test.log + parent.pending
            parent.pending = []
            parent.subtests.append(test)
            return
        self.open_to(depth)
        if PLAN.match(text):
            self.top().plan = int(PLAN.match(text).group(1))
        elif SUBTEST.match(text):
            self.top().name = SUBTEST.match(text).group(1)

    def diagnostic(self, depth, text):
        # kselftest's runner names each program before its output
        m = re.match(r'^(?:# )*(selftests: .*)$', text)
        if m:
            self.next_name[depth + 1] = m.group(1)
        target = self.top()
        for group in reversed(self.stack):
            if group.depth <= depth:
                target = group
                break
        target.log.append(text)
        target.pending.append(text)

    @staticmethod
    def result(depth, m, group):
        """The test of a result line, with the subtests of GROUP."""
        ok, _, name, directive = m.groups()
        test = Test((name or '').strip(), depth)
        test.status, test.reason = result_status(ok == 'ok', directive)
        if group is not None:
            test.subtests, test.plan, test.log = (group.subtests, group.plan,
                                                  group.log)
            if test.plan is not None and test.plan != len(test.subtests):
                test.errors.append('plan 1..%d, %d results'
                                   % (test.plan, len(test.subtests)))
        return test

    def crash_top(self):
        group = self.stack.pop()
        test = Test(group.name or '(unnamed)', group.depth - 1)
        test.status, test.reason = CRASHED, 'no result line'
        if group.plan is not None:
            test.reason += ', %d of %d results' % (len(group.subtests), group.plan)
        test.subtests, test.plan, test.log = group.subtests, group.plan, group.log
        self.top().subtests.append(test)

    def finish(self):
        while len(self.stack) > 1:
            self.crash_top()
        root = self.root
        missing = (root.plan or 0) - len(root.subtests)
        # The log ended before the last tests of the run reported; the
        # first is the one kselftest named last, if it named one.
        for _ in range(max(missing, 0)):
            t = Test(self.next_name.pop(1, '(not reported)'), 0)
            t.status, t.reason = CRASHED, 'the log ends before its result'
            root.subtests.append(t)
        if root.plan is not None and missing < 0:
            root.errors.append('plan 1..%d, %d results'
                               % (root.plan, len(root.subtests)))
        return root


def parse(lines):
    parser = Parser()
    for line in lines:
        parser.feed(line)
    return parser.finish()


def tally(test, path, counts, failures):
    """Counts of the leaves; a group counts itself when it fails and
    none of its leaves does (it crashed, timed out, or exited non-zero)."""
    for error in test.errors:
        counts['plan_errors'] += 1
        failures.append('%s: %s' % (path, error))
    if not test.subtests:
        counts[test.status] += 1
        if test.status in FAILING:
            failures.append('%s %s%s' % (test.status.upper(), path,
                                         ' (%s)' % test.reason if test.reason else ''))
        return
    before = sum(counts[s] for s in FAILING)
    for sub in test.subtests:
        tally(sub, path + ' / ' + (sub.name or '(unnamed)'), counts, failures)
    if test.status in FAILING and sum(counts[s] for s in FAILING) == before:
        counts[test.status] += 1
        failures.append('%s %s%s' % (test.status.upper(), path,
                                     ' (%s)' % test.reason if test.reason else ''))


def verdict(root):
    counts = dict.fromkeys((PASS, FAIL, SKIP, XFAIL, TODO, TIMEOUT, CRASHED,
                            'plan_errors'), 0)
    failures = []
    for error in root.errors:
        counts['plan_errors'] += 1
        failures.append('(run): %s' % error)
    for test in root.subtests:
        tally(test, test.name or '(unnamed)', counts, failures)
    if not root.subtests:
        failures.append('no test result in the log')
    return counts, failures


def read_log(path):
    """The tree of results of the log at PATH."""
    with open(path, errors='replace') as f:
        return parse(f)


def report(root, name):
    """What verdict.json says of the tests of ROOT: the verdict, the
    counts, the failures and the tree of results."""
    counts, failures = verdict(root)
    return {'variant': name, 'verdict': 'fail' if failures else 'pass',
            'passed': counts[PASS], 'failed': counts[FAIL],
            'skipped': counts[SKIP], 'crashed': counts[CRASHED],
            'timed_out': counts[TIMEOUT], 'xfail': counts[XFAIL],
            'todo': counts[TODO], 'plan_errors': counts['plan_errors'],
            'failures': failures,
            'tests': [t.to_dict() for t in root.subtests]}


def report_lines(rep):
    """A failure a line, then "NAME: N passed, N failed, N skipped" and
    the other counts that are not zero."""
    lines = ['    ' + line for line in rep['failures']]
    extra = ''.join(', %d %s' % (rep[k], label) for k, label in (
        ('crashed', 'crashed'), ('timed_out', 'timed out'), ('xfail', 'xfail'),
        ('todo', 'todo'), ('plan_errors', 'plan errors')) if rep[k])
    lines.append('%s: %d passed, %d failed, %d skipped%s' % (
        rep['variant'], rep['passed'], rep['failed'], rep['skipped'], extra))
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description='Read the KTAP of a guest run.')
    ap.add_argument('log')
    ap.add_argument('--json', metavar='FILE')
    ap.add_argument('--name', default='run')
    args = ap.parse_args(argv)
    try:
        rep = report(read_log(args.log), args.name)
    except OSError as e:
        print('ktap.py: %s' % e, file=sys.stderr)
        return 2
    if args.json:
        write_json(args.json, rep)
    print('\n'.join(report_lines(rep)))
    return 0 if rep['verdict'] == 'pass' else 1


if __name__ == '__main__':
    sys.exit(main())
