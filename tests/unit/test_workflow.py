# SPDX-License-Identifier: GPL-2.0
"""mmfrozen.workflow: GITHUB_OUTPUT's two forms, and, on made-up
workflows in a scratch directory, jobs in the order their needs make, a
matrix from a job's output, outputs through needs, a failed step
skipping the next but not an always() one, continue-on-error, artifacts
up and down, and an action with no stand-in refused."""

import json
import os
import subprocess
import unittest

import yaml

from helpers import ScratchTest, read, run_main, write
from mmfrozen import workflow


class OutputsTest(ScratchTest):

    def test_both_forms(self):
        path = write(os.path.join(self.tmp, 'out'), 'a=1\nb<<EOF\nx=y\nz\nEOF\nc=\n')
        self.assertEqual(workflow.read_outputs(path), {'a': '1', 'b': 'x=y\nz', 'c': ''})


class RunTest(ScratchTest):
    """Made-up workflows, run in a scratch git repository."""

    def run_workflow(self, text, *argv):
        repo = os.path.join(self.tmp, 'repo')
        write(os.path.join(repo, 'data', 'f'), 'f\n')
        path = write(os.path.join(repo, 'wf.yml'), text)
        if not os.path.isdir(os.path.join(repo, '.git')):
            for command in (['init', '-q'], ['add', '.'],
                            ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'x']):
                subprocess.check_call(['git', '-C', repo] + command)
        self.dir = os.path.join(self.tmp, 'run')
        status, self.out = run_main(workflow.main, [path, self.dir] + list(argv))
        return status, json.loads(read(os.path.join(self.dir, 'run.json'))) if status < 2 else None

    MATRIX = yaml.safe_dump({'jobs': {
        'merge': {'needs': ['legs', 'list'], 'if': '${{ always() }}', 'steps': [
            {'uses': 'actions/download-artifact@v4', 'with': {'pattern': 'leg-*', 'path': 'got'}},
            {'run': 'ls got > "$GITHUB_STEP_SUMMARY"'}]},
        'legs': {'needs': 'list', 'strategy': {'matrix': {
            'n': '${{ fromJSON(needs.list.outputs.n) }}'}},
            'continue-on-error': '${{ matrix.n == 2 }}', 'steps': [
                {'uses': 'actions/checkout@v4'},
                {'run': 'mkdir out && cp data/f out/${{ matrix.n }}'},
                {'run': 'exit $(( ${{ matrix.n }} - 1 ))'},
                {'name': 'never', 'run': 'true'},
                {'if': 'always()', 'uses': 'actions/upload-artifact@v4',
                 'with': {'name': 'leg-${{ matrix.n }}', 'path': 'out'}}]},
        'list': {'outputs': {'n': '${{ steps.s.outputs.n }}'}, 'steps': [
            {'id': 's', 'run': 'echo "n=[1, 2]" >> "$GITHUB_OUTPUT"'}]}}})

    def test_a_matrix_from_needs_steps_and_artifacts(self):
        status, run = self.run_workflow(self.MATRIX)
        self.assertEqual(status, 0)
        self.assertEqual(list(run), ['list', 'legs', 'merge'])
        self.assertEqual(run['list']['outputs'], {'n': '[1, 2]'})
        legs = run['legs']
        self.assertEqual(legs['result'], 'success')
        self.assertEqual([(r['matrix'], r['status'], r['continue_on_error']) for r in legs['runs']],
                         [({'n': 1}, 'success', False), ({'n': 2}, 'failure', True)])
        self.assertEqual([s['outcome'] for s in legs['runs'][1]['steps']],
                         ['success', 'success', 'failure', 'skipped', 'success'])
        self.assertEqual(read(os.path.join(self.dir, 'merge', 'summary.md')), 'leg-1\nleg-2\n')
        self.assertEqual(read(os.path.join(self.dir, 'artifacts', 'leg-2', '2')), 'f\n')

    def test_only_one_job_again_on_the_artifacts_as_they_are(self):
        self.run_workflow(self.MATRIX)
        os.rename(os.path.join(self.dir, 'artifacts', 'leg-1'),
                  os.path.join(self.dir, 'artifacts', 'other'))
        status, run = self.run_workflow(self.MATRIX, '--only', 'merge')
        self.assertEqual((status, run['legs']['result']), (0, 'success'))
        self.assertEqual(read(os.path.join(self.dir, 'merge', 'summary.md')), 'leg-2\n')

    def test_a_failed_job_fails_the_run_and_skips_its_needers(self):
        text = yaml.safe_dump({'jobs': {'a': {'steps': [{'run': 'false'}]},
                                        'b': {'needs': 'a', 'steps': [{'run': 'true'}]}}})
        status, run = self.run_workflow(text)
        self.assertEqual(status, 1)
        self.assertEqual((run['a']['result'], run['b']['result']), ('failure', 'skipped'))

    def test_an_upload_of_nothing_fails_when_asked(self):
        text = yaml.safe_dump({'jobs': {'a': {'steps': [
            {'uses': 'actions/upload-artifact@v4',
             'with': {'name': 'x', 'path': 'none', 'if-no-files-found': 'error'}}]}}})
        self.assertEqual(self.run_workflow(text)[0], 1)

    def test_an_action_with_no_stand_in_is_refused(self):
        text = yaml.safe_dump({'jobs': {'a': {'steps': [{'uses': 'someone/else@v1'}]}}})
        self.assertEqual(self.run_workflow(text)[0], 2)


if __name__ == '__main__':
    unittest.main()
