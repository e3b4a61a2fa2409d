# SPDX-License-Identifier: GPL-2.0
"""callers.py - the callers that cocci/slab_page_ref.cocci finds in a
tree, held to their classification in docs/callers.md, each with whether
a config (Debian's own) builds it.

Whether a config builds a file is read from the tree's Makefiles: the
line that names the file's object (obj-$(CONFIG_X) += file.o, or a
composite's NAME-$(CONFIG_Y) += file.o and then NAME.o's own line), and
the same for its directory in its parent's Makefile, up to a top-level
directory (built; arch/ only for x86).  Every option on that path must
be set: built-in if all are y, a module if one is m, not built if one is
unset, unknown when a line is not found (an object that a Makefile names
through a variable, or a header).

Usage: python3 -m mmfrozen callers --tree DIR --config .config
                                   --classes docs/callers.md HITS
  HITS  spatch's report lines, FILE:LINE:FUNCTION: WHAT
Prints a table, one row per function of a hit, and each disagreement
with the classification: a function it does not classify, a row no hit
backs, another number of hits or another build.  Exit status 1 on a
disagreement, 2 on unreadable input.
"""

import argparse
import collections
import os
import re
import sys

HIT = re.compile(r'^(?P<file>[^:\s]+):(?P<line>\d+):(?P<function>[^:]*): (?P<what>.+)$')
ASSIGNMENT = re.compile(r'^([A-Za-z0-9_.-]+)-(y|m|objs|\$[({](CONFIG_[A-Za-z0-9_]+)[)}])\s*[:+]?=(.*)$')
CONFIG_VALUE = re.compile(r'^(CONFIG_[A-Za-z0-9_]+)=(.*)$')
# The table's rows in docs/callers.md lie between these two lines.
TABLE_START = '<!-- callers -->'
TABLE_END = '<!-- end -->'
CLASSES = ('kmalloc-backed', 'never kmalloc', 'unknown')
BUILT_IN, MODULE, NOT_BUILT, UNKNOWN = 'built-in', 'module', 'not built', 'unknown'
# The option of a Makefile line obj-m, a module whatever the config.
ALWAYS_MODULE = 'm'
# Built, weakest first.
RANK = ('n', 'm', 'y')
# Top-level directories whose objects no kernel build compiles.
UNBUILT_TOP = ('Documentation', 'samples', 'scripts', 'tools', 'usr')
ARCH = 'x86'

Row = collections.namedtuple('Row', 'file function hits build klass why')


def read_hits(lines):
    """{(file, function): number of hits} of spatch's report lines; a line
    of another shape is not a hit (spatch's HANDLING lines)."""
    hits = collections.Counter()
    for line in lines:
        m = HIT.match(line.strip())
        if m:
            hits[(m.group('file'), m.group('function'))] += 1
    return hits


def makefile_assignments(text):
    """(NAME, CONFIG or '' or ALWAYS_MODULE, words) of each NAME-... line
    of a Makefile's TEXT, continuation lines joined, comments dropped."""
    text = re.sub(r'\\\n', ' ', text)
    for line in text.splitlines():
        m = ASSIGNMENT.match(line.split('#', 1)[0].strip())
        if not m:
            continue
        gate = m.group(3) or (ALWAYS_MODULE if m.group(2) == 'm' else '')
        yield m.group(1), gate, m.group(4).split()


def makefile_text(tree, directory):
    for name in ('Kbuild', 'Makefile'):
        path = os.path.join(tree, directory, name)
        if os.path.isfile(path):
            with open(path, encoding='utf-8', errors='replace') as f:
                return f.read()
    return ''


def option_value(option, config):
    """'y', 'm' or 'n': what CONFIG sets OPTION to ('' is always y)."""
    if option == ALWAYS_MODULE:
        return 'm'
    if not option:
        return 'y'
    value = config.get(option, 'n')
    return value if value in ('y', 'm') else 'n'


def both(first, second):
    """Both built: the weaker of two of 'y', 'm' and 'n'; None if one
    is unknown."""
    if first is None or second is None:
        return None
    return min(first, second, key=RANK.index)


def object_value(assignments, word, config, seen=()):
    """'y', 'm' or 'n': how CONFIG builds WORD (file.o, or dir/) by the
    ASSIGNMENTS of its directory's Makefile, the best of the lines that
    name it; None if none does."""
    values = []
    for name, option, words in assignments:
        if word not in words:
            continue
        value = option_value(option, config)
        if name not in ('obj', 'lib'):
            composite = name + '.o'
            if composite in seen:
                continue
            value = both(value, object_value(assignments, composite, config, seen + (word,)))
        if value is not None:
            values.append(value)
    return max(values, key=RANK.index) if values else None


def directory_value(tree, directory, config):
    """'y', 'm' or 'n': how CONFIG builds DIRECTORY's objects; None if
    unknown."""
    parts = directory.split('/')
    if parts[0] == 'arch' and parts[1:2] != [ARCH]:
        return 'n'
    if len(parts) == 1 or parts == ['arch', ARCH]:
        return 'n' if parts[0] in UNBUILT_TOP else 'y'
    # The nearest Makefile that names it: drivers/Makefile names
    # hwtracing/coresight/ itself.
    for depth in range(len(parts) - 1, 0, -1):
        ancestor = '/'.join(parts[:depth])
        assignments = list(makefile_assignments(makefile_text(tree, ancestor)))
        value = object_value(assignments, '/'.join(parts[depth:]) + '/', config)
        if value is not None:
            return both(value, directory_value(tree, ancestor, config))
    return None


def build_of(tree, path, config):
    """BUILT_IN, MODULE, NOT_BUILT or UNKNOWN: what CONFIG makes of the
    C file PATH of TREE."""
    directory, name = os.path.split(path)
    outer = directory_value(tree, directory, config)
    if outer == 'n':
        return NOT_BUILT
    value = None
    if name.endswith('.c'):
        assignments = list(makefile_assignments(makefile_text(tree, directory)))
        value = both(object_value(assignments, name[:-2] + '.o', config), outer)
    return {'y': BUILT_IN, 'm': MODULE, 'n': NOT_BUILT, None: UNKNOWN}[value]


def read_config(lines):
    """{CONFIG_NAME: value} of a .config's set options."""
    config = {}
    for line in lines:
        m = CONFIG_VALUE.match(line.strip())
        if m:
            config[m.group(1)] = m.group(2)
    return config


def table_rows(text):
    """{(file, function): Row} of the table in docs/callers.md's TEXT:
    | file | function | hits | Debian amd64 | class | why |"""
    rows, inside = {}, False
    for line in text.splitlines():
        if line.strip() == TABLE_START:
            inside = True
        elif line.strip() == TABLE_END:
            inside = False
        elif inside and line.startswith('|') and not line.startswith('|-'):
            cells = [cell.strip().strip('`') for cell in line.strip().strip('|').split('|')]
            if len(cells) != 6 or cells[0] == 'File':
                continue
            row = Row(cells[0], cells[1].rstrip('()'), cells[2], cells[3], cells[4], cells[5])
            rows[(row.file, row.function)] = row
    return rows


def disagreements(found, classified):
    """What the FOUND rows (the tree's) and the CLASSIFIED ones (the
    docs') disagree on, one sentence each."""
    said = []
    for key, row in sorted(found.items()):
        doc = classified.get(key)
        where = '%s %s()' % key
        if doc is None:
            said.append('%s: %s hit(s), not classified' % (where, row.hits))
            continue
        if doc.hits != row.hits:
            said.append('%s: %s hit(s), the table says %s' % (where, row.hits, doc.hits))
        if doc.build != row.build:
            said.append('%s: %s, the table says %s' % (where, row.build, doc.build))
        if doc.klass not in CLASSES:
            said.append('%s: class "%s" is none of %s' % (where, doc.klass, ', '.join(CLASSES)))
    for key in sorted(set(classified) - set(found)):
        said.append('%s %s(): in the table, not hit' % key)
    return said


def found_rows(tree, hits, config, classified):
    """{(file, function): Row} of the HITS, built by CONFIG, with the
    CLASSIFIED row's class."""
    rows = {}
    for (path, function), count in hits.items():
        doc = classified.get((path, function))
        rows[(path, function)] = Row(path, function, str(count),
                                     build_of(tree, path, config),
                                     doc.klass if doc else '?', doc.why if doc else '')
    return rows


def print_table(rows, out):
    fmt = '%-58s %-32s %4s  %-9s  %s\n'
    out.write(fmt % ('FILE', 'FUNCTION', 'HITS', 'DEBIAN', 'CLASS'))
    for _, row in sorted(rows.items()):
        out.write(fmt % (row.file, row.function, row.hits, row.build, row.klass))
    counts = collections.Counter((row.klass, row.build) for row in rows.values())
    out.write('%d functions; kmalloc-backed and built by the config: %d\n' % (
        len(rows), counts[('kmalloc-backed', BUILT_IN)] + counts[('kmalloc-backed', MODULE)]))


def main(argv=None):
    parser = argparse.ArgumentParser(prog='mmfrozen callers')
    parser.add_argument('--tree', required=True)
    parser.add_argument('--config', required=True)
    parser.add_argument('--classes', required=True)
    parser.add_argument('hits')
    args = parser.parse_args(argv)
    try:
        with open(args.hits, encoding='utf-8') as f:
            hits = read_hits(f)
        with open(args.config, encoding='utf-8') as f:
            config = read_config(f)
        with open(args.classes, encoding='utf-8') as f:
            classified = table_rows(f.read())
    except OSError as e:
        print('mmfrozen callers: %s' % e, file=sys.stderr)
        return 2
    if not os.path.isdir(args.tree):
        print('mmfrozen callers: %s: not a directory' % args.tree, file=sys.stderr)
        return 2
    rows = found_rows(args.tree, hits, config, classified)
    print_table(rows, sys.stdout)
    said = disagreements(rows, classified)
    for sentence in said:
        print('%s: %s' % (args.classes, sentence))
    return 1 if said else 0


if __name__ == '__main__':
    sys.exit(main())
