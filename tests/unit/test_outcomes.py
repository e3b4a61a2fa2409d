# SPDX-License-Identifier: GPL-2.0
"""outcomes.py: the outcomes are lib/core.sh's exit-code table's, read
from it; every outcome of the table is a name of the module and the
other way round; no other module of lib/mmfrozen writes an outcome of
the table as a string of its own (but "passed", also a count's key)."""

import glob
import io
import os
import tokenize
import unittest

from helpers import ROOT
from mmfrozen import outcomes

MODULES = os.path.join(ROOT, 'lib', 'mmfrozen')


def module_names():
    return {value for name, value in vars(outcomes).items() if name.isupper() and name != 'CORE_SH'}


def string_literals(path):
    with open(path, encoding='utf-8') as f:
        tokens = tokenize.generate_tokens(io.StringIO(f.read()).readline)
        return [(tok.start[0], tok.string.strip('\'"')) for tok in tokens
                if tok.type == tokenize.STRING and not tok.string.startswith(('"""', "'''"))]


class Outcomes(unittest.TestCase):

    def test_the_table_and_the_module_name_the_same_outcomes(self):
        self.assertEqual(set(outcomes.table()), module_names())

    def test_the_table_gives_each_its_status(self):
        self.assertEqual(outcomes.table()[outcomes.PASSED][0], 0)
        self.assertEqual(outcomes.table()[outcomes.KERNEL_PROBLEM][0], 7)
        self.assertEqual(outcomes.table()[outcomes.INTERRUPTED][0], 130)

    def test_a_name_the_table_lacks_is_refused(self):
        with self.assertRaises(ValueError):
            outcomes.named('tests-passed')

    def test_no_other_module_retypes_an_outcome(self):
        retyped = set(outcomes.table()) - {outcomes.PASSED}
        found = []
        for path in sorted(glob.glob(os.path.join(MODULES, '*.py'))):
            if os.path.basename(path) == 'outcomes.py':
                continue
            found += ['%s:%d %s' % (os.path.basename(path), line, text)
                      for line, text in string_literals(path) if text in retyped]
        self.assertEqual(found, [])


if __name__ == '__main__':
    unittest.main()
