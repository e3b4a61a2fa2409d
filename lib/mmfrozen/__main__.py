# SPDX-License-Identifier: GPL-2.0
"""python3 -m mmfrozen MODULE ARGS...: MODULE's main(ARGS), the one entry
point through which runner.sh calls the verdict modules.

A module's own exit statuses pass as they are (0; 1, what it checked
failed; 2, a usage error or an unreadable input).  An exception it did
not catch is not a verdict but a crash of the harness: its traceback
goes to stderr, and the exit status is CRASHED, which runner.sh's mmf_py
turns into the exit-code table's internal-error, so that a crash never
reads as a failed test.
"""

import importlib
import sys
import traceback

CRASHED = 70


def main(argv):
    if not argv or argv[0].startswith('-'):
        print('usage: python3 -m mmfrozen MODULE ARGS...', file=sys.stderr)
        return 2
    try:
        module = importlib.import_module('mmfrozen.' + argv[0])
    except ModuleNotFoundError:
        print('mmfrozen: no module %s' % argv[0], file=sys.stderr)
        return 2
    try:
        return module.main(argv[1:])
    except Exception:  # pylint: disable=broad-except: every crash is one
        traceback.print_exc()
        print('mmfrozen: %s crashed' % argv[0], file=sys.stderr)
        return CRASHED


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
