# SPDX-License-Identifier: GPL-2.0
"""kconfig.py - the config fragments' options, checked in the final .config.

Kconfig drops an option whose dependencies are unmet without a word: each
option that the fragments set, as the last fragment setting it says, must
be in the final .config ("CONFIG_X=v" as it is; "# CONFIG_X is not set"
as no "CONFIG_X=" line).  With patches dropped from the series an option
that no Kconfig file of the tree defines is not checked: a dropped patch
may be the one that adds it.

Usage: python3 -m mmfrozen.kconfig --config .config [--defined FILE] FRAGMENT...
  --defined FILE  the options the tree's Kconfig files define, one
                  CONFIG_NAME a line; the others are not checked
Prints "not defined in this tree, not checked: NAME..." when some were
not checked and "not in the final .config: LINE" for each option that is
missing.  Exit status 1 when an option is missing, 2 on unreadable input.
"""

import argparse
import re
import sys

SETTING = re.compile(r'^(# )?(CONFIG_[A-Za-z0-9_]+)')
NOT_SET = re.compile(r'^# (CONFIG_[A-Za-z0-9_]+) is not set$')


def merged(fragments):
    """{NAME: LINE} of the fragments' texts, the last setting of each
    option winning, in the order the options first appear."""
    settings = {}
    for text in fragments:
        for line in text.splitlines():
            m = SETTING.match(line)
            if m:
                settings[m.group(2)] = line
    return settings


def missing(settings, config):
    """The lines of SETTINGS that the .config text CONFIG does not honour."""
    lines = set(config.splitlines())
    assigned = {l.split('=', 1)[0] for l in lines if l.startswith('CONFIG_')}
    out = []
    for name, line in settings.items():
        if line.startswith('CONFIG_') and '=' in line:
            if line not in lines:
                out.append(line)
        elif NOT_SET.match(line) and name in assigned:
            out.append(line)
    return out


def verify(settings, config, defined=None):
    """(unchecked names, missing lines); with DEFINED, a set of names,
    the options outside it are not checked."""
    unchecked = [n for n in settings if defined is not None and n not in defined]
    checked = {n: l for n, l in settings.items() if n not in unchecked}
    return unchecked, missing(checked, config)


def read(path):
    with open(path) as f:
        return f.read()


def main(argv=None):
    ap = argparse.ArgumentParser(description='Check the fragments in .config.')
    ap.add_argument('--config', required=True)
    ap.add_argument('--defined')
    ap.add_argument('fragments', nargs='+')
    args = ap.parse_args(argv)
    try:
        settings = merged(read(f) for f in args.fragments)
        defined = set(read(args.defined).split()) if args.defined else None
        unchecked, lost = verify(settings, read(args.config), defined)
    except OSError as e:
        print('kconfig.py: %s' % e, file=sys.stderr)
        return 2
    if unchecked:
        print('not defined in this tree, not checked: ' + ' '.join(unchecked))
    for line in lost:
        print('not in the final .config: ' + line)
    return 1 if lost else 0


if __name__ == '__main__':
    sys.exit(main())
