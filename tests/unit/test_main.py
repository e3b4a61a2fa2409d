# SPDX-License-Identifier: GPL-2.0
"""The entry point python3 -m mmfrozen MODULE: a module's own statuses
pass (matrix.py's 1 for a source that failed), a module that does not
exist is a usage error, and a crash, matrix.py on a series.json that is
not one, exits CRASHED with its traceback, never 1."""

import contextlib
import io
import os
import shutil

from helpers import ScratchTest, fixture, write
import mmfrozen.__main__ as entry


def call(argv):
    """(status, stderr) of the entry point on ARGV."""
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = entry.main(argv)
    return status, err.getvalue()


class EntryPoint(ScratchTest):

    def job(self, name, series_json):
        results = os.path.join(self.tmp, name)
        os.makedirs(results)
        shutil.copy(series_json, os.path.join(results, 'series.json'))
        return results

    def test_a_modules_own_status(self):
        job = self.job('6.1', fixture('series', '6.1', 'expected.json'))
        self.assertEqual(call(['matrix', self.tmp, '--job', job])[0], 1)

    def test_a_crash(self):
        job = os.path.join(self.tmp, 'bad')
        write(os.path.join(job, 'series.json'), '{}\n')
        status, err = call(['matrix', self.tmp, '--job', job])
        self.assertEqual(status, entry.CRASHED)
        self.assertIn('Traceback (most recent call last)', err)
        self.assertIn('mmfrozen: matrix crashed', err)

    def test_no_such_module(self):
        self.assertEqual(call(['no_such_module']), (2, 'mmfrozen: no module no_such_module\n'))
        self.assertEqual(call([])[0], 2)
