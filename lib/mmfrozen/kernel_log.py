# SPDX-License-Identifier: GPL-2.0
"""kernel_log.py - the kernel log lines that fail a run.

A line counts only from the kernel's printk timestamp ("[   12.345678] "),
so that a test printing "WARNING:" itself does not trip the scan; on the
serial console a kernel line can start in the middle of a line that user
space had not ended ("# # bvec[  367.37] frozen_pages: ..."), and counts
from its timestamp.  Its text is matched against the patterns of
selftests/mm-frozen/kernel-problems (an extended regular expression a
line), which the tests read too.

Tests mark their windows in the log ("mm-frozen: test begin NAME",
"mm-frozen: test end NAME", selftests/mm-frozen/mm_frozen.h): a problem
in a window names its test.  A window may declare the report it provokes
("mm-frozen: test expect COUNT ERE"): then exactly COUNT lines matching
ERE are not problems, and any other count is one.

kmemleak's report, which the guest asks for once its command has ended
(guest/kmemleak.txt, a kernel with kmemleak), fails a run with each
object it lists: a backtrace that kmemleak records starts in the slab
allocator, in mm/, so every leak it finds passes through mm/.

A log that the guest is still writing (--live, runner.sh
--stop-at-problem's looks at the console) is judged on what is sure
already: its last line only once it has ended, and the report that a
window still open declared not before the window ends, since it may
still come.

Usage: python3 -m mmfrozen.kernel_log --patterns FILE [--outside] [--live]
       [--kmemleak REPORT] LOG...
Prints the problem lines of the logs, each once (a console log and a
dmesg hold the same lines); a LOG that does not exist is skipped;
--outside: only the lines outside every test window; --live: the logs
are still being written; --kmemleak: a line for each object of
kmemleak's REPORT too, if there is one.  Exit status 0, 2 when a file
cannot be read.

       python3 -m mmfrozen.kernel_log text LINE
Prints the problem LINE without the suffix that names its test window.
"""

import argparse
import os
import re
import sys

from mmfrozen import outcomes

TIMESTAMP = re.compile(r'\[ *[0-9]+\.[0-9]+\] ')
BEGIN = 'mm-frozen: test begin '
EXPECT = re.compile(r'^mm-frozen: test expect ([0-9]+) (.*)$')
END = 'mm-frozen: test end '
# A problem line names the window it is in: this module writes the
# suffix and the miscount line, and problem_window() reads them back
# (mutants.py, and runner.sh through "kernel_log text").
DURING = '  [during test %s]'
DURING_LINE = re.compile(r'^(.*)  \[during test (.*)\]$')
MISCOUNT = '%s mm-frozen: test %s: expected %d kernel line(s) matching /%s/, saw %d%s'
MISCOUNT_LINE = re.compile(r'^\[ *[0-9.]+\] mm-frozen: test (\S+): expected ')
# kmemleak's report (mm/kmemleak.c, print_unreferenced()): an object, the
# task that allocated it, a hex dump, then its backtrace, a frame a line.
LEAK_OBJECT = re.compile(r'^unreferenced object (0x[0-9a-f]+) \(size ([0-9]+)\):')
LEAK_COMM = re.compile(r'^  comm "(.*)", pid [0-9]+')
LEAK_BACKTRACE = '  backtrace'
LEAK_FRAME = re.compile(r'^    (\S+\+0x[0-9a-f]+/0x[0-9a-f]+(?: \[\S+\])?)')
# The outcomes of a run whose kernel log was checked and held no problem;
# a guest that did not finish had its log read by nobody.
CHECKED_CLEAN = (outcomes.PASSED, outcomes.TESTS_FAILED)


def read_patterns(path):
    """The patterns of a kernel-problems file as one regular expression."""
    with open(path) as f:
        lines = [l.rstrip('\n') for l in f]
    return re.compile('|'.join('(?:%s)' % l for l in lines
                               if l and not l.startswith('#')))


class Window:
    """A test's window: its name and the report it declared."""

    def __init__(self, name):
        self.name = name
        self.want = 0
        self.ere = None
        self.seen = 0

    def declare(self, count, ere):
        self.want, self.ere, self.seen = count, re.compile(ere), 0

    def accepts(self, text):
        if self.ere is not None and self.ere.search(text):
            self.seen += 1
            return True
        return False

    def check(self, ts, where=''):
        """The problem line of a declared report seen too few or too
        many times, or None."""
        if self.ere is None or self.seen == self.want:
            return None
        return MISCOUNT % (ts, self.name, self.want, self.ere.pattern, self.seen, where)


def problem_window(line):
    """(TEST, TEXT) of a problem line: the window it names ('' outside
    every window) and the line without the suffix that names it."""
    m = DURING_LINE.match(line)
    if m:
        return m.group(2), m.group(1)
    miscount = MISCOUNT_LINE.match(line)
    return (miscount.group(1) if miscount else ''), line


def located_problems(lines, patterns, live=False):
    """(TEST, LINE, SUFFIX) of each problem line of one log, in order:
    TEST the window it is in ('' outside every window), SUFFIX what names
    the window after a kernel line (a declared report's count names it in
    its own words).  LIVE: the log is still being written (see above)."""
    window = Window('')
    ts = ''
    for line in lines:
        if live and not line.endswith('\n'):
            break
        m = TIMESTAMP.search(line.rstrip('\r\n'))
        if not m:
            continue
        ts, text = m.group(0)[:-1], line.rstrip('\r\n')[m.end():]
        if text.startswith(BEGIN):
            window = Window(text[len(BEGIN):])
            continue
        expect = EXPECT.match(text)
        if expect:
            window.declare(int(expect.group(1)), expect.group(2))
            continue
        if text.startswith(END):
            if miscount := window.check(ts):
                yield window.name, miscount, ''
            window = Window('')
            continue
        if patterns.search(text) and not window.accepts(text):
            yield (window.name, ts + ' ' + text,
                   DURING % window.name if window.name else '')
    if not live and (miscount := window.check(ts, ' (the log ends in the test)')):
        yield window.name, miscount, ''


def problems(lines, patterns, live=False):
    """The problem lines of one log, in order, each in a window named."""
    return [line + suffix for _, line, suffix in located_problems(lines, patterns, live)]


def windows(lines):
    """{TEST: [its kernel lines]} of a log's test windows, the markers
    left out."""
    found = {}
    window = None
    for line in lines:
        m = TIMESTAMP.search(line.rstrip('\r\n'))
        if not m:
            continue
        text = line.rstrip('\r\n')[m.end():]
        if text.startswith(BEGIN):
            window = found.setdefault(text[len(BEGIN):], [])
        elif text.startswith(END):
            window = None
        elif window is not None and not EXPECT.match(text):
            window.append(m.group(0) + text)
    return found


def read_logs(paths, patterns, live=False):
    """{(TEST, LINE, SUFFIX): None} of the problems of the logs at PATHS, in
    order, each once (a console log and a dmesg hold the same lines); a
    log that is not there (a guest that wrote no dmesg) has none."""
    seen = {}
    for path in paths:
        if not os.path.isfile(path):
            continue
        with open(path, errors='replace') as f:
            for found in located_problems(f, patterns, live):
                seen.setdefault(found, None)
    return seen


def log_problems(paths, patterns, outside=False, live=False):
    """The problem lines of the logs at PATHS, each in a window named;
    OUTSIDE: only those outside every window; LIVE: logs still written."""
    return [line + suffix for test, line, suffix in read_logs(paths, patterns, live)
            if not (outside and test)]


def window_problems(paths, patterns):
    """{TEST: [its problem lines]} of the logs at PATHS, '' the lines
    outside every window."""
    found = {}
    for test, line, _ in read_logs(paths, patterns):
        found.setdefault(test, []).append(line)
    return found


def kmemleak_problems(lines):
    """A line for each object of a kmemleak report: its address and size,
    the task that allocated it, and its backtrace, innermost first."""
    found, leak, in_backtrace = [], None, False
    for line in lines:
        m = LEAK_OBJECT.match(line)
        if m:
            leak = {'object': m.group(1), 'size': m.group(2), 'comm': '?', 'frames': []}
            found.append(leak)
            in_backtrace = False
        elif leak is None:
            continue
        elif (m := LEAK_COMM.match(line)):
            leak['comm'] = m.group(1)
        elif line.startswith(LEAK_BACKTRACE):
            in_backtrace = True
        elif in_backtrace and (m := LEAK_FRAME.match(line)):
            leak['frames'].append(m.group(1))
    return ['kmemleak: unreferenced object %s (size %s) allocated by "%s": %s'
            % (l['object'], l['size'], l['comm'], ' < '.join(l['frames']) or '(no backtrace)')
            for l in found]


def read_kmemleak(path):
    """The problem lines of the kmemleak report at PATH, none if there is
    no report (a kernel without kmemleak)."""
    if not path or not os.path.isfile(path):
        return []
    with open(path, errors='replace') as f:
        return kmemleak_problems(f)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ['text'] and len(argv) == 2:
        print(problem_window(argv[1])[1])
        return 0
    ap = argparse.ArgumentParser(description='The kernel log lines that fail a run.')
    ap.add_argument('--patterns', required=True)
    ap.add_argument('--outside', action='store_true')
    ap.add_argument('--live', action='store_true')
    ap.add_argument('--kmemleak')
    ap.add_argument('logs', nargs='+')
    args = ap.parse_args(argv)
    try:
        lines = log_problems(args.logs, read_patterns(args.patterns), args.outside, args.live)
        lines += read_kmemleak(args.kmemleak)
    except OSError as e:
        print('kernel_log.py: %s' % e, file=sys.stderr)
        return 2
    for line in lines:
        print(line)
    return 0


if __name__ == '__main__':
    sys.exit(main())
