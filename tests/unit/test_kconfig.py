# SPDX-License-Identifier: GPL-2.0
"""kconfig.py: the fragments of config/ checked against the .config of a
real patched build (tests/fixtures/kconfig/patched.config, its settings):
all there; an option Kconfig dropped, or set otherwise, is named; the last
fragment setting an option decides; with patches dropped, an option the
tree does not define is not checked."""

import os
import unittest

from helpers import ROOT, fixture, read
from mmfrozen import kconfig

PATCHED = read(fixture('kconfig', 'patched.config'))
# What the series adds to the tree's Kconfig (patches 0017, 0018).
SERIES_OPTIONS = ('CONFIG_DEBUG_FROZEN_PAGES', 'CONFIG_FROZEN_PAGES_BENCH')


def fragments(*variants):
    return [read(os.path.join(ROOT, 'config', name + '.config'))
            for name in ('mm-frozen',) + variants]


def without(config, names):
    return ''.join(l for l in config.splitlines(True) if not l.startswith(names))


# The options a tree defines: approximated by those its .config lists,
# and the few that fragments unset and Kconfig hides.
DEFINED = {kconfig.SETTING.match(l).group(2) for l in PATCHED.splitlines()} | {
    'CONFIG_SLUB_TINY'}


class Verify(unittest.TestCase):

    def test_the_patched_build_has_every_option(self):
        self.assertEqual(kconfig.verify(kconfig.merged(fragments('variant-patched')), PATCHED),
                         ([], []))

    def test_an_option_kconfig_dropped_is_named(self):
        config = without(PATCHED, ('CONFIG_SLUB_DEBUG=',))
        self.assertEqual(kconfig.verify(kconfig.merged(fragments('variant-patched')), config),
                         ([], ['CONFIG_SLUB_DEBUG=y']))

    def test_an_option_set_otherwise_is_named(self):
        config = PATCHED.replace('CONFIG_NR_CPUS=8\n', 'CONFIG_NR_CPUS=64\n')
        settings = kconfig.merged(fragments('variant-patched') + ['CONFIG_NR_CPUS=8\n'])
        self.assertEqual(kconfig.verify(settings, config)[1], ['CONFIG_NR_CPUS=8'])

    def test_the_last_fragment_decides(self):
        settings = kconfig.merged(fragments('variant-patched', 'variant-noknob'))
        self.assertEqual(settings['CONFIG_DEBUG_FROZEN_PAGES'],
                         '# CONFIG_DEBUG_FROZEN_PAGES is not set')
        self.assertEqual(kconfig.verify(settings, PATCHED)[1],
                         ['CONFIG_LOCALVERSION="-mm-frozen-noknob"',
                          '# CONFIG_DEBUG_FROZEN_PAGES is not set'])

    def test_a_dropped_patch_s_option_is_not_checked(self):
        # the series without the patches that add the options: the tree's
        # .config lacks them, and its Kconfig does not define them
        config = without(PATCHED, SERIES_OPTIONS)
        settings = kconfig.merged(fragments('variant-patched'))
        self.assertEqual(kconfig.verify(settings, config),
                         ([], ['CONFIG_DEBUG_FROZEN_PAGES=y', 'CONFIG_FROZEN_PAGES_BENCH=y']))
        self.assertEqual(kconfig.verify(settings, config, DEFINED - set(SERIES_OPTIONS)),
                         (list(SERIES_OPTIONS), []))

    def test_a_dropped_patch_does_not_hide_a_missing_option(self):
        config = without(PATCHED, SERIES_OPTIONS + ('CONFIG_KSM=',))
        settings = kconfig.merged(fragments('variant-patched'))
        self.assertEqual(kconfig.verify(settings, config, DEFINED)[1],
                         ['CONFIG_KSM=y', 'CONFIG_DEBUG_FROZEN_PAGES=y',
                          'CONFIG_FROZEN_PAGES_BENCH=y'])


if __name__ == '__main__':
    unittest.main()
