#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""shell-functions.py - the shell functions of runner.sh and lib/*.sh
that read the run's state, and those that are long.

The run's state is what resolve_run() makes readonly once it has
resolved the command line (its "readonly NAME..." statement, read from
runner.sh: the one list of those names).  A function reads it when its
body expands one of those names ($NAME, ${NAME...}).  The cmd_*
functions and resolve_run() with its parts (resolve_run_*) are where the
options are read, by design, and are listed apart.

Usage: tests/shell-functions.py [--max-readers N] [--max-lines N] [-v]
Prints the count of functions that read the run's state and the count
of functions longer than --max-lines (default 40); -v lists them.
Exit status 1 when a count is over its maximum (--max-readers, if
given; the long functions, if --max-lines is given).
"""

import argparse
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUNCTION = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*)\(\)\s*\{')
READONLY = re.compile(r'^\treadonly ((?:[A-Z_][A-Z0-9_]* ?|\\\n\t*)+)$', re.M)
# The functions that read the options by design.
OPTION_READERS = re.compile(r'^(cmd_.*|resolve_run.*)$')


def run_state_names(runner_text):
    """The names of resolve_run()'s readonly statement."""
    m = READONLY.search(runner_text)
    if not m:
        raise ValueError("runner.sh: no readonly statement in resolve_run()")
    return set(m.group(1).replace('\\', ' ').split())


def functions(path):
    """(name, first line, number of lines, body) of each function of a
    shell file: one on a line of its own, or one whose closing brace is
    alone at the start of a line."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().splitlines()
    found, name, start = [], None, 0
    for number, line in enumerate(lines, 1):
        m = FUNCTION.match(line)
        if m and name is None and line.rstrip().endswith('}'):
            found.append((m.group(1), number, 1, line[m.end():]))
        elif m and name is None:
            name, start = m.group(1), number
        elif line == '}' and name is not None:
            found.append((name, start, number - start + 1, '\n'.join(lines[start:number])))
            name = None
    return found


def reads(body, names):
    """The NAMES that BODY expands, sorted."""
    used = set(re.findall(r'\$\{?#?!?([A-Z_][A-Z0-9_]*)', body))
    return sorted(used & names)


def main(argv=None):
    parser = argparse.ArgumentParser(prog='shell-functions.py')
    parser.add_argument('--max-readers', type=int)
    parser.add_argument('--max-lines', type=int)
    parser.add_argument('-v', '--verbose', action='store_true')
    args = parser.parse_args(argv)
    with open(os.path.join(ROOT, 'runner.sh'), encoding='utf-8') as f:
        names = run_state_names(f.read())
    paths = [os.path.join(ROOT, 'runner.sh')] + sorted(glob.glob(os.path.join(ROOT, 'lib', '*.sh')))
    readers, by_design, long_ones, total = [], [], [], 0
    for path in paths:
        where = os.path.relpath(path, ROOT)
        for name, start, length, body in functions(path):
            total += 1
            state = reads(body, names)
            if state:
                (by_design if OPTION_READERS.match(name) else readers).append(
                    '%s:%d %s: %s' % (where, start, name, ' '.join(state)))
            if length > (args.max_lines or 40):
                long_ones.append('%s:%d %s: %d lines' % (where, start, name, length))
    print('%d functions; %d read the run state (%d more by design: cmd_*, resolve_run*); '
          '%d longer than %d lines' % (total, len(readers), len(by_design), len(long_ones),
                                       args.max_lines or 40))
    if args.verbose:
        for line in readers + ['by design:'] + by_design + ['long:'] + long_ones:
            print('  ' + line)
    over = []
    if args.max_readers is not None and len(readers) > args.max_readers:
        over.append('%d functions read the run state, more than --max-readers %d'
                    % (len(readers), args.max_readers))
    if args.max_lines is not None and long_ones:
        over.append('%d functions are longer than --max-lines %d' % (len(long_ones), args.max_lines))
    for line in over:
        print('shell-functions.py: %s (-v names them)' % line, file=sys.stderr)
    return 1 if over else 0


if __name__ == '__main__':
    sys.exit(main())
