# SPDX-License-Identifier: GPL-2.0
"""sources.py on what apt-cache madison printed here
(tests/fixtures/sources/madison.txt: six linux-source-6.12 versions,
seven of linux-source-6.1): the installed tree first, standing for its
version; every other 6.12; the newest 6.1 only; names as the trees'
directories; and no tree at all when apt offers none."""

import glob
import io
import json
import os

from helpers import ROOT, ScratchTest, fixture, read, run_main
from mmfrozen import sources

MADISON = fixture('sources', 'madison.txt')
ARGS = ['--every', 'linux-source-6.12', '--newest', 'linux-source-6.1']


def trees(installed, *extra):
    with open(MADISON) as stdin:
        status, out = run_main(lambda argv: sources.main(argv, stdin),
                               ['--installed', installed] + ARGS + list(extra))
    return status, out


class Sources(ScratchTest):

    def test_the_newest_installed(self):
        status, out = trees('linux-source-6.12=6.12.118-1~deb12u1')
        self.assertEqual(status, 0)
        self.assertEqual(out.split(), [
            'installed',
            'linux-source-6.12=6.12.117-1~deb12u1', 'linux-source-6.12=6.12.115-2~deb12u1',
            'linux-source-6.12=6.12.113-1~deb12u1', 'linux-source-6.12=6.12.111-1~deb12u1',
            'linux-source-6.12=6.12.107-1~deb12u1', 'linux-source-6.1=6.1.192-3'])

    def test_an_older_installed_leaves_the_newest_in(self):
        out = trees('linux-source-6.12=6.12.111-1~deb12u1')[1].split()
        self.assertIn('linux-source-6.12=6.12.118-1~deb12u1', out)
        self.assertNotIn('linux-source-6.12=6.12.111-1~deb12u1', out)
        self.assertEqual(len(out), 7)

    def test_json_for_a_ci_matrix(self):
        found = json.loads(trees('linux-source-6.12=6.12.118-1~deb12u1', '--json')[1])
        self.assertEqual(found[0], {'spec': 'installed', 'name': 'installed',
                                    'package': 'linux-source-6.12',
                                    'version': '6.12.118-1~deb12u1'})
        self.assertEqual(found[-1], {'spec': 'linux-source-6.1=6.1.192-3',
                                     'name': 'linux-source-6.1_6.1.192-3',
                                     'package': 'linux-source-6.1', 'version': '6.1.192-3'})
        self.assertEqual(found[1]['name'], 'linux-source-6.12_6.12.117-1_deb12u1')

    def test_apt_offers_nothing(self):
        status, out = run_main(lambda argv: sources.main(argv, io.StringIO('')),
                               ['--installed', 'linux-source-6.12=1'] + ARGS)
        self.assertEqual((status, out), (1, ''))

    def test_the_fixture_is_madison_output(self):
        self.assertEqual(len(sources.madison(read(MADISON).splitlines())), 13)


class Owner(ScratchTest):
    """The module is the one reader of madison and the one cleaner of a
    tree's name: runner.sh asks it ("offers", "name") and has no copy."""

    def offers(self, package, version):
        with open(MADISON) as stdin:
            return run_main(lambda argv: sources.main(argv, stdin), ['offers', package, version])[0]

    def test_a_version_apt_offers(self):
        self.assertEqual(self.offers('linux-source-6.12', '6.12.107-1~deb12u1'), 0)

    def test_a_version_of_another_package_is_not_offered(self):
        self.assertEqual(self.offers('linux-source-6.1', '6.12.107-1~deb12u1'), 1)
        self.assertEqual(self.offers('linux-source-6.12', '6.12.107'), 1)

    def test_a_name_cleaned_as_the_trees_are(self):
        self.assertEqual(run_main(sources.main, ['name', 'linux-source-6.12_6.12.107-1~deb12u1']),
                         (0, 'linux-source-6.12_6.12.107-1_deb12u1\n'))
        self.assertEqual(sources.name_of('linux-source-6.12', '6.12.107-1~deb12u1'),
                         'linux-source-6.12_6.12.107-1_deb12u1')

    def test_the_shell_has_no_copy(self):
        shell = ''.join(read(path) for path in
                        glob.glob(os.path.join(ROOT, 'lib', '*.sh')) + [os.path.join(ROOT, 'runner.sh')])
        self.assertNotIn("tr -c 'A-Za-z0-9", shell)
        self.assertNotIn("madison \"$package\" | cut", shell)
