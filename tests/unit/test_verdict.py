# SPDX-License-Identifier: GPL-2.0
"""verdict.py: verdict.json after a guest run, and how every run ends."""

import json
import os
import shutil
import unittest

from helpers import ScratchTest, fixture, read, run_main, write
from mmfrozen import verdict


class Verdict(ScratchTest):

    def results(self, output=None, console=None, status=None):
        dir = os.path.join(self.tmp, 'r')
        os.makedirs(os.path.join(dir, 'guest'))
        if output:
            shutil.copy(fixture('ktap', output), os.path.join(dir, 'guest', 'output.log'))
        if console:
            shutil.copy(fixture('ktap', console), os.path.join(dir, 'console.log'))
        if status is not None:
            write(os.path.join(dir, 'guest', 'status'), '%d\n' % status)
        return dir

    def json(self, dir):
        return json.loads(read(os.path.join(dir, 'verdict.json')))

    def test_tests_read_the_output_of_a_guest_that_finished(self):
        dir = self.results(output='kselftest-pass.log', console='crash.log', status=0)
        self.assertEqual(run_main(verdict.main, ['tests', dir, '--variant', 'patched',
                                       '--release', '6.12.118-mm-frozen', '--status', '0'])[0], 0)
        v = self.json(dir)
        self.assertEqual(list(v)[:4], ['variant', 'kernelrelease', 'guest_status', 'verdict'])
        self.assertEqual((v['variant'], v['kernelrelease'], v['guest_status'], v['verdict']),
                         ('patched', '6.12.118-mm-frozen', 0, 'pass'))
        self.assertEqual(v['crashed'], 0)

    def test_a_failed_command_fails_tests_that_passed(self):
        dir = self.results(output='kselftest-pass.log', status=3)
        self.assertEqual(run_main(verdict.main, ['tests', dir, '--variant', 'patched',
                                       '--release', 'r', '--status', '3'])[0], 1)
        self.assertEqual(self.json(dir)['verdict'], 'pass')

    def test_a_guest_that_did_not_finish_is_read_from_its_console(self):
        dir = self.results(output='kselftest-pass.log', console='crash.log')
        self.assertEqual(run_main(verdict.main, ['tests', dir, '--variant', 'patched',
                                       '--release', 'r'])[0], 1)
        v = self.json(dir)
        self.assertIsNone(v['guest_status'])
        self.assertGreater(v['crashed'], 0)

    def test_finish_adds_how_the_run_ended(self):
        dir = self.results(output='kselftest-pass.log', status=0)
        run_main(verdict.main, ['tests', dir, '--variant', 'patched', '--release', 'r', '--status', '0'])
        write(os.path.join(dir, 'guest', 'status'), '0\n')
        run_main(verdict.main, ['finish', dir, '--variant', 'patched', '--outcome', 'kernel-problem',
                      '--exit', '7'])
        v = self.json(dir)
        self.assertEqual((v['outcome'], v['exit'], v['guest_status'], v['verdict']),
                         ('kernel-problem', 7, 0, 'pass'))

    def test_finish_says_which_accelerator_ran_and_why(self):
        dir = self.results()
        write(os.path.join(dir, 'accel'), 'tcg\nkvm probe: the boot did not finish in 20 s\n')
        run_main(verdict.main, ['finish', dir, '--variant', 'patched', '--outcome', 'passed',
                                '--exit', '0'])
        self.assertEqual(self.json(dir)['accel'], {'name': 'tcg',
                                                   'reason': 'kvm probe: the boot did not finish in 20 s'})

    def test_finish_without_tests_says_how_the_run_ended(self):
        dir = self.results()
        run_main(verdict.main, ['finish', dir, '--variant', 'drop-0014', '--outcome', 'build-failed',
                      '--exit', '5'])
        self.assertEqual(self.json(dir), {'variant': 'drop-0014', 'outcome': 'build-failed',
                                          'exit': 5})


if __name__ == '__main__':
    unittest.main()
