# SPDX-License-Identifier: GPL-2.0
"""What the unit tests share: the fixtures' place, lib/ on the path, and a
scratch directory per test."""

import contextlib
import io
import os
import shutil
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, 'tests', 'fixtures')
sys.path.insert(0, os.path.join(ROOT, 'lib'))


def fixture(*path):
    return os.path.join(FIXTURES, *path)


def read(path):
    with open(path) as f:
        return f.read()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)
    return path


def run_main(main, argv):
    """(exit status, stdout) of a module's main(ARGV); its stderr is not shown."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = main(argv)
    return status, out.getvalue()


class ScratchTest(unittest.TestCase):
    """A test with a directory of its own, self.tmp, removed after it."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='mmf-unit-')
        self.addCleanup(shutil.rmtree, self.tmp)

    def copy_fixture(self, *path):
        """A fixture directory's copy in self.tmp, to write into."""
        dest = os.path.join(self.tmp, path[-1])
        shutil.copytree(fixture(*path), dest)
        return dest
