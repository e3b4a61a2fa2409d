# SPDX-License-Identifier: GPL-2.0
"""matrix.py on the series.json of two real checks, the installed 6.12
and 6.1: the table the runner's former jq and awk printed from them
(tests/fixtures/matrix/expected-table.txt), where checkpatch's warnings
do not count but its errors do; matrix.json; the exit status; a source
whose check wrote no series.json; and the same table merged from the
results directories of jobs that ran on their own, with a row "missing"
for each tree expected (--trees) that left none."""

import json
import os
import shutil

from helpers import ScratchTest, fixture, read, run_main
from mmfrozen import matrix

SOURCES = ('installed', '6.1')


class Matrix(ScratchTest):

    def job(self, name):
        """A results directory in self.tmp holding the series.json of the
        fixture NAME."""
        results = os.path.join(self.tmp, 'jobs', name)
        os.makedirs(results)
        shutil.copy(fixture('series', name, 'expected.json'), os.path.join(results, 'series.json'))
        return results

    def source_args(self, *names):
        args = []
        for name in names:
            results = self.job(name)
            series = json.loads(read(os.path.join(results, 'series.json')))
            args += ['--source', series['source'], str(series['exit']), results]
        return args

    def test_the_table_as_the_runner_printed_it(self):
        status, out = run_main(matrix.main, [self.tmp] + self.source_args(*SOURCES))
        self.assertEqual(status, 1)
        lines = out.splitlines()
        self.assertEqual('\n'.join(lines[:3]) + '\n', read(fixture('matrix', 'expected-table.txt')))
        self.assertIn(os.path.join(self.tmp, 'matrix.json'), lines[3])
        written = json.loads(read(os.path.join(self.tmp, 'matrix.json')))
        self.assertEqual([s['source'] for s in written],
                         ['linux-source-6.12 (installed)', 'linux-source-6.1'])

    def test_every_source_passing(self):
        self.assertEqual(run_main(matrix.main, [self.tmp] + self.source_args('installed', 'in-tree'))[0], 0)

    def test_a_checkpatch_error_fails_its_cell(self):
        series = json.loads(read(fixture('series', 'installed', 'expected.json')))
        series['patches'][0]['checkpatch']['errors'] = 1
        self.assertEqual(matrix.row(series)[1:3], ['FAIL', 'OK'])

    def test_a_source_without_series_json(self):
        status, out = run_main(matrix.main, [self.tmp, '--source', 'linux-source-6.0', '2',
                                             os.path.join(self.tmp, 'none')]
                               + self.source_args('installed'))
        self.assertEqual(status, 1)
        self.assertRegex(out, r'(?m)^linux-source-6\.0 +2 +-$')
        self.assertRegex(out.splitlines()[0], r'^source +0001 ')

    def test_merged_jobs_give_the_same_table(self):
        live = os.path.join(self.tmp, 'live')
        merged = os.path.join(self.tmp, 'merged')
        os.makedirs(live)
        os.makedirs(merged)
        args = self.source_args(*SOURCES)
        status, out = run_main(matrix.main, [live] + args)
        jobs = [a for a in args[3::4]]
        self.assertEqual(run_main(matrix.main, [merged] + sum((['--job', j] for j in jobs), [])),
                         (status, out.replace(live, merged)))
        self.assertEqual(read(os.path.join(live, 'matrix.json')),
                         read(os.path.join(merged, 'matrix.json')))

    def test_an_expected_tree_without_a_job_is_missing(self):
        jobs = [self.job(name) for name in SOURCES]
        trees = os.path.join(self.tmp, 'trees.json')
        with open(trees, 'w') as f:
            json.dump([{'spec': 'installed', 'name': 'installed'},
                       {'spec': 'linux-source-6.12=6.12.117-1~deb12u1', 'name': '117'},
                       {'spec': 'linux-source-6.1', 'name': '6.1'}], f)
        status, out = run_main(matrix.main, [self.tmp, '--job', jobs[0], '--trees', trees])
        self.assertEqual(status, 1)
        self.assertRegex(out, r'(?m)^linux-source-6\.12=6\.12\.117-1~deb12u1 +missing +-$')
        self.assertRegex(out, r'(?m)^linux-source-6\.1 +missing +-$')
        self.assertTrue(read(os.path.join(self.tmp, 'matrix.md')).endswith(
            '| linux-source-6.1 |' + '  |' * 18 + ' missing | - |\n'))
        self.assertNotRegex(out, r'(?m)^installed ')
        self.assertEqual(run_main(matrix.main, [self.tmp, '--job', jobs[0], '--job', jobs[1],
                                                '--trees', trees])[1].count('missing'), 1)

    def test_trees_that_are_not_a_list_of_trees(self):
        trees = os.path.join(self.tmp, 'trees.json')
        with open(trees, 'w') as f:
            json.dump({'spec': 'installed'}, f)
        self.assertEqual(run_main(matrix.main, [self.tmp, '--job', self.job('installed'),
                                                '--trees', trees]), (2, ''))
        with self.assertRaisesRegex(matrix.Unreadable, 'not a list of trees'):
            matrix.read_trees(trees)

    def test_the_table_in_markdown(self):
        status, out = run_main(matrix.main, [self.tmp] + self.source_args(*SOURCES))
        md = read(os.path.join(self.tmp, 'matrix.md')).splitlines()
        self.assertEqual(len(md), 2 + len(SOURCES))
        self.assertTrue(md[0].startswith('| source | 0001 | '))
        self.assertEqual(set(md[1]), {'|', '-'})
        self.assertTrue(md[2].startswith('| linux-source-6.12 (installed) | OK | '))
        self.assertEqual({line.count('|') for line in md}, {md[0].count('|')})

    def test_a_job_without_series_json_is_no_failed_tree(self):
        self.assertEqual(run_main(matrix.main, [self.tmp, '--job', self.tmp]), (2, ''))
        with open(os.path.join(self.tmp, 'series.json'), 'w') as f:
            f.write('not JSON')
        with self.assertRaisesRegex(matrix.Unreadable, 'holds no series.json'):
            matrix.read_job(self.tmp)
