# SPDX-License-Identifier: GPL-2.0
"""summary.py - pages and refcount atomics per path, patched beside baseline.

frozen_pages_test writes counts.json into its run's results: for each
path ("slab", "knob_1", "knob_0", "free_pages") the pages it followed
from allocation to free ("traced") and the refcount atomics it saw.

Usage: python3 -m mmfrozen.summary RESULTS-ROOT
  reads RESULTS-ROOT/{patched,baseline}/counts.json; a kernel without
  them, or a path it did not count, shows "-"
"""

import math
import os
import sys

from mmfrozen.results import read_json

PATHS = (
    ('slab', 'slab pages, kmem_cache_destroy'),
    ('knob_1', 'slab pages, slab_frozen=1'),
    ('knob_0', 'slab pages, slab_frozen=0'),
    ('free_pages', 'alloc_pages()/__free_pages()'),
)
VARIANTS = ('patched', 'baseline')


def read_counts(root, variant):
    return read_json(os.path.join(root, variant, 'counts.json')) or {}


def cells(counts, path):
    """(pages, atomics per page, to two decimals) of PATH, "-" where none."""
    c = counts.get(path)
    if not c:
        return '-', '-'
    if c['traced'] <= 0:
        return str(c['traced']), '-'
    per_page = math.floor(c['atomics'] / c['traced'] * 100 + 0.5) / 100
    return str(c['traced']), '%g' % per_page


def table(root):
    counts = {v: read_counts(root, v) for v in VARIANTS}
    lines = ['', '%-34s %21s %21s' % ('path', 'patched', 'baseline'),
             '%-34s %10s %10s %10s %10s' % ('', 'pages', 'atomics/pg',
                                            'pages', 'atomics/pg')]
    for path, label in PATHS:
        lines.append('%-34s %10s %10s %10s %10s' % (
            (label,) + cells(counts['patched'], path) + cells(counts['baseline'], path)))
    lines.append('(from %s/{patched,baseline}/counts.json)' % root)
    return lines


def main(argv):
    if len(argv) != 1:
        print('usage: python3 -m mmfrozen.summary RESULTS-ROOT', file=sys.stderr)
        return 2
    print('\n'.join(table(argv[0])))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
