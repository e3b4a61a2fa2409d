# SPDX-License-Identifier: GPL-2.0
"""mmfrozen.kbuild: the preprocessor branches of a file and the markers
that tell which ones a build keeps (tests/fixtures/coverage/branches.c,
through the host's own gcc -E), and an object's compile command made a
preprocessing."""

import shutil
import subprocess
import unittest

from helpers import fixture, read
from mmfrozen import kbuild


class BranchesTest(unittest.TestCase):

    def setUp(self):
        self.lines = read(fixture('coverage', 'branches.c')).splitlines()

    def test_comments_blanked_strings_kept(self):
        code = kbuild.code_lines(self.lines)
        self.assertEqual(code[3].strip(), 'int one;')
        self.assertEqual(code[14].strip(), '')
        self.assertEqual(code[16], 'int after = sizeof("#if");')

    def test_each_line_in_its_branches(self):
        enclosing, openers, _ = kbuild.branches(self.lines)
        self.assertEqual(len(enclosing), len(self.lines))
        # #ifdef ONE is 1, "#if defined(TWO) ||" 2 (its marker after the
        # continued line), #elif 3, #else 4, #ifndef ONE 5.
        self.assertEqual(openers, {3: 1, 6: 2, 8: 3, 10: 4, 18: 5})
        self.assertEqual(enclosing[1], ())            # int top;
        self.assertEqual(enclosing[2], ())            # #ifdef ONE
        self.assertEqual(enclosing[6], (1, 2))        # int two_or_three;
        self.assertEqual(enclosing[7], (1,))          # #elif 1
        self.assertEqual(enclosing[10], (1, 4))       # int never;
        self.assertEqual(enclosing[12], ())           # #endif /* ONE */
        self.assertEqual(enclosing[16], ())           # int after
        self.assertEqual(enclosing[18], (5,))         # int not_one;

    def test_each_branch_named_by_its_directives(self):
        labels = kbuild.branches(self.lines)[2]
        self.assertEqual(labels, {
            1: '#ifdef ONE',
            2: '#if defined(TWO) || defined(THREE)',
            3: '#if defined(TWO) || defined(THREE) / #elif 1',
            4: '#if defined(TWO) || defined(THREE) / #else',
            5: '#ifndef ONE'})

    @unittest.skipUnless(shutil.which('gcc'), 'no gcc to preprocess with')
    def test_the_markers_that_the_preprocessor_keeps(self):
        marked = kbuild.with_markers(
            self.lines, 7, kbuild.branches(self.lines)[1])
        out = subprocess.run(['gcc', '-DONE', '-E', '-P', '-'], input=marked,
                             capture_output=True, text=True, check=True)
        self.assertEqual(kbuild.found_markers(out.stdout),
                         {(7, kbuild.TOP), (7, 1), (7, 3)})


class CommandTest(unittest.TestCase):

    def test_the_compile_command_made_a_preprocessing(self):
        words = ['ccache', 'gcc', '-Wp,-MMD,mm/.swap.o.d', '-nostdinc',
                 '-I../include', '-DX=\'"y"\'', '-c', '-o', 'mm/swap.o',
                 '../mm/swap.c']
        self.assertEqual(
            kbuild.preprocess_words(words, '../mm/swap.c', '/o/mm/swap.c', '/o'),
            ['gcc', '-nostdinc', '-I/o/include', '-I../include', '-DX=\'"y"\'',
             '-iquote', '../mm', '-E', '-o', '-', '/o/mm/swap.c'])

    def test_an_external_module_s_headers_are_found_beside_its_source(self):
        words = ['gcc', '-nostdinc', '-c', '-o', '/m/cases.o', '/m/cases.c']
        self.assertEqual(
            kbuild.preprocess_words(words, '/m/cases.c', '/o/m/cases.c', '/o')[-6:],
            ['-iquote', '/m', '-E', '-o', '-', '/o/m/cases.c'])


if __name__ == '__main__':
    unittest.main()
