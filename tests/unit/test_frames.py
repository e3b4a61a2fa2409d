# SPDX-License-Identifier: GPL-2.0
"""frames.py: a decoded frame's own line lies in its function in the
tree; one that names another tree's absolute path, a line of another
function, a file the tree lacks, or no frame at all fails."""

import os
import unittest

from helpers import ScratchTest, fixture, read, run_main, write
from mmfrozen import frames

DECODED = fixture('frames', 'decoded-console.log')
TREE = fixture('frames', 'tree')


def lines(text=None):
    return (text if text is not None else read(DECODED)).splitlines()


class Frames(unittest.TestCase):
    def test_the_functions_own_line_of_an_inlined_frame(self):
        self.assertEqual(frames.first_frame(lines(), '__folio_put'), ('mm/swap.c', 18))

    def test_frames_in_their_functions(self):
        for function in ('__folio_put', 'release_large'):
            passed, what = frames.check_frame(TREE, lines(), function)
            self.assertTrue(passed, what)

    def test_a_line_of_another_function(self):
        moved = read(DECODED).replace('mm/swap.c:18', 'mm/swap.c:7')
        passed, what = frames.check_frame(TREE, lines(moved), '__folio_put')
        self.assertFalse(passed)
        self.assertIn('mm/swap.c:7 lies in release_large, not in __folio_put', what)

    def test_a_line_between_functions(self):
        moved = read(DECODED).replace('mm/swap.c:18', 'mm/swap.c:9')
        passed, what = frames.check_frame(TREE, lines(moved), '__folio_put')
        self.assertFalse(passed)
        self.assertIn('lies in no function', what)

    def test_another_builds_absolute_path(self):
        foreign = read(DECODED).replace(
            'mm/swap.c:18', '/root/.cache/mm-frozen/linux/.build-kasan/../mm/swap.c:18')
        passed, what = frames.check_frame(TREE, lines(foreign), '__folio_put')
        self.assertFalse(passed)
        self.assertIn('is not a path of the tree', what)

    def test_a_file_the_tree_lacks(self):
        passed, what = frames.check_frame(TREE, lines(), 'free_frozen_pages')
        self.assertFalse(passed)
        self.assertIn('mm/page_alloc.c:2741: no such file', what)

    def test_no_frame(self):
        passed, what = frames.check_frame(TREE, lines(), '__free_slab')
        self.assertFalse(passed)
        self.assertEqual(what, '__free_slab: no decoded frame')

    def test_a_line_past_the_files_end(self):
        passed, _ = frames.check_frame(TREE, lines(read(DECODED).replace(':18)', ':180)')), '__folio_put')
        self.assertFalse(passed)


class Main(ScratchTest):
    def test_exit_status(self):
        tree = self.copy_fixture('frames', 'tree')
        status, out = run_main(frames.main, ['--tree', tree, DECODED, '__folio_put', 'release_large'])
        self.assertEqual((status, out), (0, 'ok __folio_put: mm/swap.c:18\nok release_large: mm/swap.c:7\n'))
        # another version of the file: lines put in before the frame's
        # line move __folio_put's body away from it
        source = os.path.join(tree, 'mm', 'swap.c')
        write(source, read(source).replace('{\n\tfree_huge', '{\n' + '\n' * 10 + '\tfree_huge'))
        self.assertEqual(run_main(frames.main, ['--tree', tree, DECODED, '__folio_put'])[0], 1)
        self.assertEqual(run_main(frames.main, ['--tree', tree, os.path.join(self.tmp, 'none'), 'f'])[0], 2)


if __name__ == '__main__':
    unittest.main()
