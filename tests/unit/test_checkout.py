# SPDX-License-Identifier: GPL-2.0
"""checkout.py on the series of this repository: each patch's sha256, and
the patchset hash as KCIDB defines it, checked against the shell command
KCIDB's schema gives for it ("sha256sum *.patch | cut -c-64 | sha256sum
| cut -c-64"); the baseline's empty patchset; a patch that is not there."""

import json
import os
import subprocess

from helpers import ROOT, ScratchTest, read, run_main
from mmfrozen import checkout

PATCHES = os.path.join(ROOT, 'patches')


def series():
    lines = read(os.path.join(PATCHES, 'series')).splitlines()
    return [l.strip() for l in lines if l.strip() and not l.strip().startswith('#')]


class Checkout(ScratchTest):

    def test_the_patchset_hash_as_kcidb_computes_it(self):
        names = series()
        expected = subprocess.run(
            ['bash', '-c', 'sha256sum "$@" | cut -c-64 | sha256sum | cut -c-64', 'sh'] + names,
            cwd=PATCHES, capture_output=True, text=True, check=True)
        status, _ = run_main(checkout.main, [self.tmp, '--tree', 't', '--variant', 'patched',
                                             '--base-commit', 'a' * 40, '--patches', PATCHES] + names)
        self.assertEqual(status, 0)
        written = json.loads(read(os.path.join(self.tmp, 'checkout.json')))
        self.assertEqual(written['patchset_hash'], expected.stdout.strip())
        self.assertEqual([p['patch'] for p in written['patches']], names)
        self.assertEqual((written['base_commit'], written['source_id']), ('a' * 40, None))

    def test_the_baseline_has_no_patches(self):
        run_main(checkout.main, [self.tmp, '--tree', 't', '--variant', 'baseline'])
        written = json.loads(read(os.path.join(self.tmp, 'checkout.json')))
        self.assertEqual((written['patches'], written['patchset_hash']), ([], ''))

    def test_a_patch_that_is_not_there(self):
        self.assertIsNone(checkout.checkout('t', 'patched', '', '', '', self.tmp,
                                            ['none.patch'])['patchset_hash'])
