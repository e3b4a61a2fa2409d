# SPDX-License-Identifier: GPL-2.0
"""expected.py - the status each test must have, and how a run differs.

A SKIP never fails a run, and a test that vanished from the KTAP leaves no
failure behind.  On the baseline a SKIP is right (no tracepoint there); on
the patched kernel the same SKIP is a lost capability.  So each variant has
a file, tests/expected/VARIANT.txt, with every test of the mm-frozen target
(program and subtest, at every level) and the status it must have; a run
whose tests differ from it fails, naming each difference.

The file, a test a line ("#" starts a comment line):

  STATUS[@MACHINE]  PATH[  # REASON]

  STATUS   pass, skip or fail ("fail" where the run exists to show one:
           the baseline's slab checks)
  MACHINE  tcg, icount or kvm: the line holds only under that
           accelerator (the run's accel); a line without one holds under
           any
  PATH     the KTAP names from the program down, joined by " / "; the
           second test of a group with the same name is "NAME [2]"
  REASON   a skip's reason as the test prints it; "*" stands for any text

A test may have more than one line: any of them that holds is a match.

  python3 -m mmfrozen.expected check FILE
      Exit status 0 when FILE reads as an expectation file, else 2 and
      why.
  python3 -m mmfrozen.expected compare RESULTS FILE
      RESULTS/verdict.json's tests against FILE: one line per difference;
      exit status 0 when there is none, 1 otherwise, 2 for a FILE that
      cannot be read.
  python3 -m mmfrozen.expected record RESULTS FILE
      FILE made from RESULTS/verdict.json's tests: the lines of a test
      that its status still matches are kept as they are (a reason's
      "*", a line of the other machine), the others written anew; those
      of the programs that a run of some (--tests) did not ask for stay.
"""

import argparse
import os
import re
import sys

from mmfrozen.results import read_json

STATUSES = ('pass', 'skip', 'fail')
# The accelerators a line may be held to, as runner.sh names them: the
# tests decide by that name (tracing_scripts.sh's function_graph lines
# by MMF_ACCEL=tcg).
MACHINES = ('tcg', 'icount', 'kvm')
SEPARATOR = ' / '


class Line:
    """One line of an expectation file: the test's status, on which
    machine (None: on any), its path and a skip's reason pattern."""

    def __init__(self, status, machine, path, reason, text):
        self.status, self.machine = status, machine
        self.path, self.reason, self.text = path, reason, text

    def holds_on(self, machine):
        return self.machine is None or self.machine == machine

    def matches(self, status, reason):
        if status != self.status:
            return False
        return status != 'skip' or reason_pattern(self.reason).fullmatch(reason) is not None


def reason_pattern(text):
    """TEXT as a regular expression: "*" any text, every other character
    itself (a reason's "?" and "[" are the test's own)."""
    return re.compile('.*'.join(re.escape(part) for part in text.split('*')), re.DOTALL)


class BadInput(Exception):
    """An expectation file or a results directory that cannot be read."""


class BadFile(BadInput):
    """An expectation file that is not one."""


def parse_line(text, number):
    """The Line of TEXT, None for a comment or a blank line."""
    stripped = text.strip()
    if not stripped or stripped.startswith('#'):
        return None
    head, _, rest = stripped.partition(' ')
    status, _, machine = head.partition('@')
    path, _, reason = rest.partition('#')
    path, reason = path.strip(), reason.strip()
    if status not in STATUSES or (machine and machine not in MACHINES) or not path:
        raise BadFile('line %d: not "STATUS[@MACHINE] PATH [# REASON]" with STATUS one of '
                      '%s and MACHINE one of %s: %s'
                      % (number, ', '.join(STATUSES), ', '.join(MACHINES), stripped))
    if reason and status != 'skip':
        raise BadFile('line %d: only a skip has a reason: %s' % (number, stripped))
    return Line(status, machine or None, path, reason, stripped)


def read_file(path):
    """The Lines of the expectation file at PATH."""
    with open(path) as f:
        lines = [parse_line(text, n) for n, text in enumerate(f, 1)]
    return [line for line in lines if line]


def statuses(tests, prefix=''):
    """{path: (status, reason)} of every test of verdict.json's tree
    TESTS, programs and subtests alike, in the order of the KTAP.  A name
    that a group has more than once is "NAME [2]" the second time."""
    found, seen = {}, {}
    for test in tests:
        name = test['name'] or '(unnamed)'
        seen[name] = seen.get(name, 0) + 1
        path = prefix + name + (' [%d]' % seen[name] if seen[name] > 1 else '')
        found[path] = (test['status'], test.get('reason', ''))
        found.update(statuses(test.get('subtests', []), path + SEPARATOR))
    return found


def program_name(path):
    """The program's own name in a path: "frozen_hazard_test" of
    "selftests: mm-frozen: frozen_hazard_test / slab_page.x"."""
    return path.split(SEPARATOR)[0].split(': ')[-1]


def in_force(lines, machine, programs=None):
    """{path: [Line...]} of the LINES that hold on MACHINE, for the
    PROGRAMS asked for (None: all)."""
    held = {}
    for line in lines:
        if not line.holds_on(machine):
            continue
        if programs is not None and program_name(line.path) not in programs:
            continue
        held.setdefault(line.path, []).append(line)
    return held


def describe(status, reason):
    return status + (' (%s)' % reason if reason else '')


def difference(path, wanted, got, subtests=0):
    """How the test at PATH differs from WANTED, its Lines (None: an
    extra test), with GOT, its (status, reason) (None: it is missing,
    and so are its SUBTESTS expected ones): {path, expected, got, text},
    text the one line that says it; None when one of WANTED matches."""
    diff = {'path': path, 'expected': wanted[0].status if wanted else None,
            'got': got[0] if got else None}
    if not wanted:
        diff['text'] = 'unexpected: %s: %s' % (path, describe(*got))
    elif not got:
        diff['text'] = 'missing: %s (expected %s%s)' % (
            path, wanted[0].status, ', and its %d subtests' % subtests if subtests else '')
    elif any(line.matches(*got) for line in wanted):
        return None
    elif wanted[0].status == got[0] == 'skip':
        diff['text'] = 'skip reason changed: %s: "%s" -> "%s"' % (path, wanted[0].reason, got[1])
    else:
        diff['text'] = '%s -> %s: %s%s' % (wanted[0].status, got[0], path,
                                          ' (%s)' % got[1] if got[1] else '')
    return diff


def differences(lines, tests, machine, programs=None):
    """A difference (see difference()) for each test of TESTS
    (verdict.json's tree) whose status LINES do not expect on MACHINE,
    each extra test, and each missing one, but for the subtests of a
    missing test, which it counts: in the order of the KTAP, then of
    LINES."""
    wanted = in_force(lines, machine, programs)
    found = statuses(tests)
    diffs = [difference(path, wanted.get(path), got) for path, got in found.items()]
    missing = [path for path in wanted if path not in found]
    for path in missing:
        below = [m for m in missing if m.startswith(path + SEPARATOR)]
        if not any(path.startswith(m + SEPARATOR) for m in missing):
            diffs.append(difference(path, wanted[path], None, len(below)))
    return [d for d in diffs if d]


def line_text(path, status, reason, machine):
    head = status + ('@' + machine if machine else '')
    return '%-10s %s%s' % (head, path, '  # ' + reason if reason and status == 'skip' else '')


def test_lines(old, path, got, machine):
    """The lines of the test at PATH, whose status and reason are GOT on
    MACHINE: its OLD lines when one of them that holds on MACHINE still
    matches, else GOT (for MACHINE alone when OLD has lines of another
    machine), and OLD's lines of the other machines."""
    mine = [line for line in old if line.holds_on(machine)]
    others = [line for line in old if not line.holds_on(machine)]
    if any(line.matches(*got) for line in mine):
        return [line.text for line in old]
    return [line_text(path, *got, machine if others else None)] + [line.text for line in others]


def recorded(lines, tests, machine, programs=None):
    """The lines of an expectation file for TESTS run on MACHINE, of the
    PROGRAMS asked for (None: all), in the order of the KTAP
    (test_lines); a test that LINES expect on other machines alone, or
    of a program the run did not ask for, stays after the test it
    follows there."""
    old, after, anchor = {}, {}, None
    for line in lines:
        old.setdefault(line.path, []).append(line)
    for path, held in old.items():
        if path in in_force(held, machine, programs):
            anchor = path
        else:
            after.setdefault(anchor, []).append(path)
    found = statuses(tests)
    out = []
    for path in [None] + list(found):
        if path is not None:
            out += test_lines(old.get(path, []), path, found[path], machine)
        out += [line.text for other in after.pop(path, []) for line in old[other]]
    # those that followed a test gone from the run
    out += [line.text for paths in after.values() for other in paths for line in old[other]]
    return out


HEADER = '''\
# The status each test of the mm-frozen target must have in a run of this
# variant (lib/mmfrozen/expected.py has the format).  Made by
# "runner.sh expect --record" from a run, then reviewed by hand.
'''


def header_of(path):
    """The comment lines at the top of the file at PATH (HEADER for a
    new file): what a reviewer wrote there stays."""
    if not os.path.isfile(path):
        return HEADER
    head = []
    with open(path) as f:
        for text in f:
            if not text.startswith('#'):
                break
            head.append(text)
    return ''.join(head) or HEADER


def run_tests(results):
    """verdict.json's tree of tests, the machine and the programs the
    run asked for; BadInput when RESULTS holds no tests' verdict."""
    verdict = read_json(os.path.join(results, 'verdict.json')) or {}
    if 'tests' not in verdict:
        raise BadInput('no tests in %s/verdict.json' % results)
    accel = (verdict.get('accel') or {}).get('name')
    return verdict['tests'], accel, (verdict.get('expected') or {}).get('programs')


def record(results, path):
    """The expectation file at PATH made from the tests of RESULTS."""
    tests, accel, programs = run_tests(results)
    broken = ['%s: %s' % (path, got[0]) for path, got in statuses(tests).items()
              if got[0] not in STATUSES]
    if broken:
        raise BadInput('%s has tests that no file expects (%s): record from a run that '
                       'ended well' % (results, '; '.join(broken)))
    lines = read_file(path) if os.path.isfile(path) else []
    text = header_of(path) + '\n'.join(recorded(lines, tests, accel, programs)) + '\n'
    with open(path + '.tmp', 'w') as f:
        f.write(text)
    os.replace(path + '.tmp', path)
    print('%s: %d tests, as %s ran them on %s' % (path, len(statuses(tests)), results, accel))
    return 0


def compare(results, path):
    """The differences of the tests of RESULTS from the file at PATH."""
    tests, accel, programs = run_tests(results)
    diffs = differences(read_file(path), tests, accel, programs)
    print('\n'.join(d['text'] for d in diffs) if diffs else 'every status as expected')
    return 1 if diffs else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description='Tests against their expected statuses.')
    sub = ap.add_subparsers(dest='command', required=True)
    sub.add_parser('check').add_argument('file')
    for name in ('compare', 'record'):
        p = sub.add_parser(name)
        p.add_argument('results')
        p.add_argument('file')
    args = ap.parse_args(argv)
    try:
        if args.command == 'check':
            read_file(args.file)
            return 0
        if args.command == 'compare':
            return compare(args.results, args.file)
        return record(args.results, args.file)
    except BadFile as e:
        print('expected: %s: %s' % (args.file, e), file=sys.stderr)
        return 2
    except (OSError, BadInput) as e:
        print('expected: %s' % e, file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
