# SPDX-License-Identifier: GPL-2.0
"""checkout.py - checkout.json: what a results directory's run ran on.

The tree (its label and the id its base tag records, such as
"linux-source-6.12 6.12.118-1~deb12u1"), its base commit, the variant,
the patches applied in order with their sha256 (none for the baseline),
their patchset hash as KCIDB defines it, and the harness's revision: what
a report read elsewhere (a merged matrix, KCIDB) needs to tell which tree
and which series a job tested.

Usage: python3 -m mmfrozen.checkout RESULTS --tree LABEL --variant V
           [--source-id ID] [--base-commit SHA] [--harness REV]
           [--patches DIR PATCH...]
Writes RESULTS/checkout.json; an empty value is recorded as null.
"""

import argparse
import hashlib
import os
import sys

from mmfrozen.results import write_json


def sha256_of(path):
    """The sha256 of the file at PATH, None when there is none."""
    try:
        with open(path, 'rb') as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def patchset_hash(hashes):
    """KCIDB's patchset hash: the sha256 of the patches' sha256, each
    newline-terminated, in order ("sha256sum *.patch | cut -c-64 |
    sha256sum"); "" for no patch, None when a patch's hash is unknown."""
    if None in hashes:
        return None
    if not hashes:
        return ''
    return hashlib.sha256(''.join(h + '\n' for h in hashes).encode()).hexdigest()


def checkout(tree, variant, source_id, base_commit, harness, patches_dir, names):
    patches = [{'patch': name, 'sha256': sha256_of(os.path.join(patches_dir, name))}
               for name in names]
    return {'tree': tree, 'source_id': source_id or None,
            'base_commit': base_commit or None, 'variant': variant,
            'patches': patches,
            'patchset_hash': patchset_hash([p['sha256'] for p in patches]),
            'harness': harness or None}


def main(argv=None):
    ap = argparse.ArgumentParser(description='What a run ran on.')
    ap.add_argument('results')
    ap.add_argument('--tree', required=True)
    ap.add_argument('--variant', required=True)
    ap.add_argument('--source-id', default='')
    ap.add_argument('--base-commit', default='')
    ap.add_argument('--harness', default='')
    ap.add_argument('--patches', nargs='+', default=[], metavar=('DIR', 'PATCH'))
    args = ap.parse_args(argv)
    patches_dir, names = (args.patches[0], args.patches[1:]) if args.patches else ('', [])
    write_json(os.path.join(args.results, 'checkout.json'),
               checkout(args.tree, args.variant, args.source_id, args.base_commit,
                        args.harness, patches_dir, names), indent=2)
    return 0


if __name__ == '__main__':
    sys.exit(main())
