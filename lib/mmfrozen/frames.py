# SPDX-License-Identifier: GPL-2.0
"""frames.py - a decoded report's frames held to the tree the kernel was
built from.

scripts/decode_stacktrace.sh writes a frame as "FUNCTION (PATH:LINE
...)": the lines of what was inlined first, FUNCTION's own line last.
That last PATH:LINE must be a line of FUNCTION's body in TREE/PATH.  An
object that ccache served from another build directory or tree would
name that directory's path (an absolute one: the decoder strips only
its own build's), or a line of another version of the file.

Usage: python3 -m mmfrozen.frames --tree TREE DECODED FUNCTION...
The first frame of each FUNCTION in the decoded log DECODED, a line
each; exit 0 when each is there and lies in its function, 1 when one
does not, 2 when DECODED cannot be read.
"""

import argparse
import os
import re
import sys

# "... FUNCTION (PATH:LINE PATH:LINE) module": the frame's locations.
FRAME = re.compile(r'(?:^|\s)(?P<function>[A-Za-z_][A-Za-z0-9_.]*) \((?P<where>[^()]*:\d+[^()]*)\)')
LOCATION = re.compile(r'(\S+):(\d+)')
# A line at the file's top level that starts a definition: its name is
# the identifier before the first parenthesis.
DEFINITION = re.compile(r'^[A-Za-z_][^(]*?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(')


def first_frame(lines, function):
    """(PATH, LINE) of FUNCTION's first frame in the decoded LINES, its
    own location; None when no line has it."""
    for line in lines:
        for m in FRAME.finditer(line):
            if m.group('function') == function:
                path, number = LOCATION.findall(m.group('where'))[-1]
                return path, int(number)
    return None


def enclosing_function(source, number):
    """The function whose body holds line NUMBER (1-based) of SOURCE, a
    list of lines: the definition found first going up from it, past
    the body's indented lines; None when a function's closing brace or
    the file's start comes first."""
    for line in reversed(source[:number]):
        if line.startswith('}'):
            return None
        m = DEFINITION.match(line)
        if m:
            return m.group(1)
    return None


def check_frame(tree, lines, function):
    """(passed, what): FUNCTION's first frame in LINES, held to TREE."""
    frame = first_frame(lines, function)
    if frame is None:
        return False, '%s: no decoded frame' % function
    path, number = frame
    where = '%s:%d' % frame
    if os.path.isabs(path):
        return False, '%s: %s is not a path of the tree (another build\'s object?)' % (function, where)
    try:
        with open(os.path.join(tree, path), encoding='utf-8', errors='replace') as f:
            source = f.read().splitlines()
    except OSError:
        return False, '%s: %s: no such file in %s' % (function, where, tree)
    found = enclosing_function(source, number) if number <= len(source) else None
    if found != function:
        return False, '%s: %s lies in %s, not in %s' % (function, where, found or 'no function', function)
    return True, '%s: %s' % (function, where)


def main(argv=None):
    parser = argparse.ArgumentParser(prog='mmfrozen.frames')
    parser.add_argument('--tree', required=True)
    parser.add_argument('decoded')
    parser.add_argument('functions', nargs='+')
    args = parser.parse_args(argv)
    try:
        with open(args.decoded, encoding='utf-8', errors='replace') as f:
            lines = f.read().splitlines()
    except OSError as e:
        print('mmfrozen.frames: %s' % e, file=sys.stderr)
        return 2
    status = 0
    for function in args.functions:
        passed, what = check_frame(args.tree, lines, function)
        print(('ok ' if passed else 'not ok ') + what)
        status = status if passed else 1
    return status


if __name__ == '__main__':
    sys.exit(main())
