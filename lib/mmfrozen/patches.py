# SPDX-License-Identifier: GPL-2.0
"""patches.py - why a patch does not apply: its files and failing hunks.

git apply stops at a file's first failing hunk; GNU patch, run without
fuzz (--dry-run -F0) over the files as the scratch index has them, names
every hunk that fails.  Together they give the detail of a conflict:
"FILE: hunks at LINE, LINE" for a file whose hunks fail, "FILE: missing"
for one the patch changes and the tree lacks, "FILE: exists" for one it
creates and the tree has; one a file, sorted, joined by "; ".

  python3 -m mmfrozen.patches detail PATCH-OUTPUT GIT-APPLY-ERRORS
      the detail of a conflict, from the output of patch --dry-run and
      the errors of git apply
  python3 -m mmfrozen.patches files DETAIL
      the detail as the error message names the files:
      "FILE (hunks at LINE), FILE (missing)"
"""

import re
import sys

CHECKING = re.compile(r'^checking file (.*)$')
HUNK_FAILED = re.compile(r'^Hunk #[0-9]+ FAILED at ([0-9]+)')
APPLY_ERROR = re.compile(r'^error: ([^:]*): (does not exist|already exists) in index$')


def failed_hunks(patch_output):
    """{FILE: [LINE...]} of the hunks that GNU patch could not place."""
    hunks = {}
    current = None
    for line in patch_output.splitlines():
        m = CHECKING.match(line)
        if m:
            current = m.group(1)
            continue
        m = HUNK_FAILED.match(line)
        if m:
            hunks.setdefault(current, []).append(m.group(1))
    return hunks


def detail(patch_output, apply_errors):
    """The conflict's detail (see the module's text)."""
    items = ['%s: hunks at %s' % (f, ', '.join(lines))
             for f, lines in failed_hunks(patch_output).items()]
    for line in apply_errors.splitlines():
        m = APPLY_ERROR.match(line)
        if m:
            items.append('%s: %s' % (m.group(1), 'missing' if m.group(2) ==
                                     'does not exist' else 'exists'))
    return '; '.join(sorted(items))


def files(conflict_detail):
    """"FILE (WHAT), FILE (WHAT)" of a conflict's detail; an item that
    names no file ("see git apply") as it is."""
    items = [item.strip().split(': ', 1) for item in conflict_detail.split(';')]
    return ', '.join('%s (%s)' % tuple(i) if len(i) == 2 else i[0]
                     for i in items if i[0])


def read(path):
    with open(path, errors='replace') as f:
        return f.read()


def main(argv):
    if len(argv) == 3 and argv[0] == 'detail':
        print(detail(read(argv[1]), read(argv[2])))
    elif len(argv) == 2 and argv[0] == 'files':
        print(files(argv[1]))
    else:
        print(__doc__.split('\n\n')[2], file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
