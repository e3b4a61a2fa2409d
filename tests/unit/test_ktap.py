# SPDX-License-Identifier: GPL-2.0
"""ktap.py, the KTAP reader behind every verdict, on tests/fixtures/ktap/:
kselftest's nesting, KTAP v1 subtests, SKIP, TODO, XFAIL and TIMEOUT, a
plan its results do not match, a kernel panic in the middle of a test,
console noise, and the serial console of a real patched run.  Each LOG
must print its EXPECTED, exit status included, and the JSON must agree."""

import contextlib
import glob
import io
import json
import os
import unittest

from helpers import ScratchTest, fixture, read, run_main
from mmfrozen import ktap


class KtapFixtures(ScratchTest):

    def run_ktap(self, log):
        path = os.path.join(self.tmp, 'verdict.json')
        status, out = run_main(ktap.main, ['--json', path, log])
        return out + 'exit %d\n' % status, status, json.loads(read(path))

    def test_fixtures(self):
        logs = sorted(glob.glob(fixture('ktap', '*.log')))
        self.assertGreater(len(logs), 0)
        for log in logs:
            with self.subTest(log=os.path.basename(log)):
                out, status, verdict = self.run_ktap(log)
                self.assertEqual(out, read(log[:-4] + '.expected'))
                summary = [l for l in out.splitlines() if l.startswith('run: ')][0]
                self.assertTrue(summary.startswith(
                    'run: %(passed)d passed, %(failed)d failed, %(skipped)d skipped' % verdict))
                self.assertEqual(verdict['verdict'], 'pass' if status == 0 else 'fail')

    def test_crash_is_never_a_pass(self):
        root = ktap.read_log(fixture('ktap', 'crash.log'))
        rep = ktap.report(root, 'run')
        self.assertGreater(rep['crashed'], 0)
        self.assertEqual(rep['verdict'], 'fail')

    def test_unreadable_log(self):
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(ktap.main([os.path.join(self.tmp, 'none.log')]), 2)


if __name__ == '__main__':
    unittest.main()
