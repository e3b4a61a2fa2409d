# SPDX-License-Identifier: GPL-2.0
"""sources.py - the trees a rebase matrix covers, found in what apt offers.

Every version apt offers of the packages given with --every, the newest
of those given with --newest, and the installed tree first, which stands
for its own version (so that no tree is built twice).  apt-cache madison
lists a package's versions newest first: "PACKAGE | VERSION | ARCHIVE".

Usage: apt-cache madison PACKAGE... | python3 -m mmfrozen.sources
           --installed PACKAGE=VERSION [--every PACKAGE...]
           [--newest PACKAGE...] [--json]
  --installed: the installed source's package and version (its
  candidate when apt has not installed it yet)
Prints a --source SPEC a line, or with --json a list of objects, one a
tree (spec, name, package, version), that a CI matrix reads as it is;
"name" is PACKAGE_VERSION in the characters a file, an artifact or a
cache key may take ("installed" for the installed tree).  Exit status 1 when apt offers none of
the packages.

       python3 -m mmfrozen.sources name TEXT
Prints TEXT in those characters (runner.sh names a tree's directory so).

       apt-cache madison PACKAGE | python3 -m mmfrozen.sources offers PACKAGE VERSION
Exit status 0 when apt offers VERSION of PACKAGE, 1 when not.
"""

import argparse
import json
import re
import sys

INSTALLED = 'installed'


def madison(lines):
    """[(PACKAGE, VERSION)] of apt-cache madison's lines, in their order."""
    found = []
    for line in lines:
        fields = [f.strip() for f in line.split('|')]
        if len(fields) == 3 and fields[0] and fields[1]:
            found.append((fields[0], fields[1]))
    return found


def clean_name(text):
    """TEXT with what a file, an artifact or a cache key name may not
    hold made _."""
    return re.sub(r'[^A-Za-z0-9._+-]', '_', text)


def name_of(package, version):
    """PACKAGE_VERSION, a clean name."""
    return clean_name('%s_%s' % (package, version))


def tree(spec, name, package, version):
    return {'spec': spec, 'name': name, 'package': package, 'version': version}


def sources(offered, installed, every, newest):
    """The trees: INSTALLED ((PACKAGE, VERSION)) first, then every version
    of the packages EVERY, the newest of the packages NEWEST, as OFFERED
    ([(PACKAGE, VERSION)], newest first) lists them."""
    found = [tree(INSTALLED, INSTALLED, *installed)]
    seen = {installed}
    for package, version in offered:
        if (package, version) in seen:
            continue
        if package in every or (package in newest and
                                not any(p == package for p, _ in seen)):
            found.append(tree('%s=%s' % (package, version),
                              name_of(package, version), package, version))
            seen.add((package, version))
    return found


def main(argv=None, stdin=sys.stdin):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ['name'] and len(argv) == 2:
        print(clean_name(argv[1]))
        return 0
    if argv[:1] == ['offers'] and len(argv) == 3:
        return 0 if tuple(argv[1:]) in madison(stdin) else 1
    ap = argparse.ArgumentParser(description='The trees a rebase matrix covers.')
    ap.add_argument('--installed', required=True, metavar='PACKAGE=VERSION')
    ap.add_argument('--every', nargs='+', default=[], metavar='PACKAGE')
    ap.add_argument('--newest', nargs='+', default=[], metavar='PACKAGE')
    ap.add_argument('--json', action='store_true')
    args = ap.parse_args(argv)
    package, _, version = args.installed.partition('=')
    offered = madison(stdin)
    if not offered:
        print('sources: apt offers none of %s (apt-get update?)'
              % ' '.join(args.every + args.newest), file=sys.stderr)
        return 1
    found = sources(offered, (package, version), args.every, args.newest)
    if args.json:
        print(json.dumps(found))
    else:
        print('\n'.join(t['spec'] for t in found))
    return 0


if __name__ == '__main__':
    sys.exit(main())
