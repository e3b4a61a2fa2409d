# SPDX-License-Identifier: GPL-2.0
"""mmfrozen.expressions: the ${{ }} expressions as GitHub evaluates them:
paths into the contexts, || and && giving a value, == ignoring the case
of strings, fromJSON keeping a whole expression's value, hashFiles over
the workspace, a bare "if:" being success() && it, and what is not
played refused."""

import hashlib
import os
import unittest

from helpers import ScratchTest, write
from mmfrozen import expressions

CONTEXT = {'github': {'head_ref': '', 'ref_name': 'main', 'workspace': '/nowhere'},
           'needs': {'sources': {'outputs': {'trees': '[{"spec": "a"}, {"spec": "b"}]'},
                                 'result': 'success'},
                     'series': {'result': 'failure', 'outputs': {}}},
           'matrix': {'tree': {'package': 'linux-source-6.1', 'spec': 'x=1'}},
           'steps': {'c': {'outputs': {'cache-hit': 'false'}}},
           'status': 'success'}


def value(text):
    return expressions.evaluate(text, CONTEXT)


class ExpressionTest(unittest.TestCase):

    def test_paths_and_interpolation(self):
        self.assertEqual(value('--source "${{ matrix.tree.spec }}"'), '--source "x=1"')
        self.assertEqual(value("${{ matrix['tree'].package }}"), 'linux-source-6.1')
        self.assertIsNone(value('${{ matrix.nothing.here }}'))

    def test_or_and_give_values(self):
        self.assertEqual(value('${{ github.head_ref || github.ref_name }}'), 'main')
        self.assertEqual(value("${{ matrix.tree.spec && 'yes' }}"), 'yes')
        self.assertEqual(value("rebase-${{ github.head_ref || github.ref_name }}"), 'rebase-main')

    def test_comparisons_ignore_case_of_strings(self):
        self.assertIs(value("${{ matrix.tree.package != 'linux-source-6.12' }}"), True)
        self.assertIs(value("${{ matrix.tree.package == 'LINUX-source-6.1' }}"), True)
        self.assertIs(value("${{ !(steps.c.outputs.cache-hit != 'true') }}"), False)

    def test_from_json_keeps_the_value_of_a_whole_expression(self):
        self.assertEqual(value('${{ fromJSON(needs.sources.outputs.trees) }}'),
                         [{'spec': 'a'}, {'spec': 'b'}])
        self.assertEqual(value('x ${{ fromJSON(needs.sources.outputs.trees)[1].spec }}'), 'x b')

    def test_conditions(self):
        self.assertTrue(expressions.condition(None, CONTEXT))
        self.assertFalse(expressions.condition(None, dict(CONTEXT, status='failure')))
        self.assertTrue(expressions.condition('always()', dict(CONTEXT, status='failure')))
        self.assertTrue(expressions.condition("needs.series.result != 'success'", CONTEXT))
        self.assertFalse(expressions.condition("${{ needs.series.result != 'success' }}",
                                            dict(CONTEXT, status='failure')))

    def test_what_is_not_played_is_said(self):
        for text in ('${{ format(1) }}', '${{ a = b }}', '${{ (a }}'):
            with self.assertRaises(expressions.Unplayed):
                value(text)


class HashFilesTest(ScratchTest):

    def test_the_files_that_match_in_the_workspace(self):
        context = {'github': {'workspace': self.tmp}}
        write(os.path.join(self.tmp, 'config', 'a.config'), 'a\n')
        write(os.path.join(self.tmp, 'patches', 'b.patch'), 'b\n')
        digests = b''.join(hashlib.sha256(t).digest() for t in (b'a\n', b'b\n'))
        self.assertEqual(expressions.evaluate("${{ hashFiles('config/**', 'patches/**') }}", context),
                         hashlib.sha256(digests).hexdigest())
        self.assertEqual(expressions.evaluate("${{ hashFiles('none/**') }}", context), '')


if __name__ == '__main__':
    unittest.main()
