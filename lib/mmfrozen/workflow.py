# SPDX-License-Identifier: GPL-2.0
"""workflow.py - a GitHub Actions workflow's glue run on this machine.

The rebase matrix's jobs, in the order their needs make, each step as
GitHub runs it: a "run:" step's script, its ${{ }} expressions replaced
first (mmfrozen.expressions), by "bash --noprofile --norc -eo pipefail" in the job's workspace,
with GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and GITHUB_WORKSPACE files and
paths of the run's own; the step's "env:" and "if:", the job's "if:",
"needs", "outputs", "strategy.matrix" and "continue-on-error".  The
actions are stand-ins (STAND_INS): actions/checkout is a clone of the
repository at its HEAD, artifacts are directories of DIR/artifacts, a
cache restores nothing.  What GitHub provides around the steps (the
runner's image, containers, permissions, concurrency, timeouts) is not
played: the steps run on this machine, with its programs.

A matrix job's result is "failure" when one of its runs failed without
continue-on-error, else "success", as needs.JOB.result reads it.

DIR gets, per job run, its workspace (DIR/JOB/workspace), its steps'
output (DIR/JOB/NN.log), its outputs and its summary (DIR/JOB/summary.md,
the steps' GITHUB_STEP_SUMMARY in order); DIR/artifacts/NAME; and
DIR/run.json: each job's result, outputs and runs (its matrix, status,
steps with their outcome, the artifacts it uploaded).  With --only JOB,
the other jobs' results and outputs are read from DIR/run.json, and JOB
runs again on the artifacts as they are, but for those it uploaded.

Usage: python3 -m mmfrozen.workflow WORKFLOW DIR [--only JOB]
Exit status 0 when the workflow succeeded, 1 when a job failed, 2 on a
usage error or a workflow that uses what this does not play.
"""

import argparse
import fnmatch
import json
import os
import shutil
import subprocess
import sys

import yaml

from mmfrozen.expressions import Unplayed, as_string, condition, evaluate, truthy
from mmfrozen.results import read_json, read_lines, write_json


# ---------------------------------------------------------------- steps

def read_outputs(path):
    """The NAME=VALUE and NAME<<EOF lines of a GITHUB_OUTPUT file."""
    outputs, lines = {}, read_lines(path) or []
    while lines:
        line = lines.pop(0)
        if '<<' in line and ('=' not in line or line.index('<<') < line.index('=')):
            name, end = line.split('<<', 1)
            value = []
            while lines and lines[0] != end:
                value.append(lines.pop(0))
            lines = lines[1:]
            outputs[name] = '\n'.join(value)
        elif '=' in line:
            name, value = line.split('=', 1)
            outputs[name] = value
    return outputs


class Job:
    """One run of a job (one leg of a matrix): its directory, workspace,
    contexts, and its steps' outcomes."""

    def __init__(self, run, name, spec, matrix):
        self.run, self.spec = run, spec
        self.dir = os.path.join(run.dir, name)
        self.workspace = os.path.join(self.dir, 'workspace')
        self.summary = os.path.join(self.dir, 'summary.md')
        self.status, self.steps, self.outcomes, self.uploaded = 'success', {}, [], []
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.workspace)
        self.context = {'github': dict(run.github, workspace=self.workspace),
                        'matrix': matrix, 'needs': run.needs_of(spec),
                        'steps': self.steps, 'env': {}}

    def contexts(self):
        return dict(self.context, status=self.status)

    def log(self, number):
        return os.path.join(self.dir, '%02d.log' % number)

    def execute(self):
        for number, step in enumerate(self.spec.get('steps', []), 1):
            name = step.get('name') or step.get('uses') or step.get('run', '').split('\n')[0]
            if not condition(step.get('if'), self.contexts()):
                self.record(step, name, 'skipped', {})
                continue
            ok, outputs = self.step(step, number)
            if not ok and evaluate(step.get('continue-on-error', False), self.contexts()):
                self.record(step, name, 'failure', outputs, conclusion='success')
                continue
            self.record(step, name, 'success' if ok else 'failure', outputs)
            if not ok:
                self.status = 'failure'
                self.run.say('    %s: failed (%s)' % (name, self.log(number)))
                for line in (read_lines(self.log(number)) or [])[-15:]:
                    self.run.say('      | ' + line)

    def record(self, step, name, outcome, outputs, conclusion=None):
        self.outcomes.append({'name': name, 'outcome': outcome})
        if 'id' in step:
            self.steps[step['id']] = {'outputs': outputs, 'outcome': outcome,
                                      'conclusion': conclusion or outcome}

    def step(self, step, number):
        """(whether STEP succeeded, its outputs)."""
        if 'run' in step:
            return self.shell(step, number)
        uses = step.get('uses', '')
        action = uses.split('@')[0]
        if action not in STAND_INS:
            raise Unplayed('no stand-in for %s' % uses)
        inputs = {k: evaluate(v, self.contexts()) for k, v in (step.get('with') or {}).items()}
        with open(self.log(number), 'w') as log:
            try:
                return True, STAND_INS[action](self, inputs, log) or {}
            except StepFailed as e:
                log.write('%s\n' % e)
                return False, {}

    def shell(self, step, number):
        script = evaluate(step['run'], self.contexts())
        path = os.path.join(self.dir, '%02d.sh' % number)
        output = os.path.join(self.dir, '%02d.output' % number)
        with open(path, 'w') as f:
            f.write(script)
        open(output, 'w').close()
        env = dict(os.environ)
        env.update({k: as_string(evaluate(v, self.contexts()))
                    for k, v in (step.get('env') or {}).items()})
        env.update(GITHUB_OUTPUT=output, GITHUB_STEP_SUMMARY=self.summary,
                   GITHUB_WORKSPACE=self.workspace, CI='true')
        shell = step.get('shell') or self.run.shell(self.spec)
        if shell != 'bash':
            raise Unplayed('shell %s' % shell)
        with open(self.log(number), 'w') as log:
            status = subprocess.call(['bash', '--noprofile', '--norc', '-eo', 'pipefail', path],
                                     cwd=self.workspace, env=env, stdout=log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        return status == 0, read_outputs(output)


class StepFailed(Exception):
    """A stand-in action failed, as the action would have."""


def checkout(job, inputs, log):
    """actions/checkout: a clone of the repository at its HEAD."""
    shutil.rmtree(job.workspace)
    subprocess.check_call(['git', 'clone', '-q', job.run.repository, job.workspace],
                          stdout=log, stderr=subprocess.STDOUT)


def cache_restore(job, inputs, log):
    """actions/cache/restore: nothing cached here."""
    log.write('cache %s: not found (stand-in)\n' % inputs.get('key'))
    return {'cache-hit': 'false', 'cache-primary-key': inputs.get('key', ''),
            'cache-matched-key': ''}


def cache_save(job, inputs, log):
    """actions/cache/save: its key, which must be given."""
    if not inputs.get('key'):
        raise StepFailed('cache save: no key')
    log.write('cache %s: saved (stand-in)\n' % inputs['key'])


def upload_artifact(job, inputs, log):
    """actions/upload-artifact: PATH copied to DIR/artifacts/NAME, once."""
    source = os.path.join(job.workspace, inputs['path'])
    target = os.path.join(job.run.artifacts, inputs.get('name', 'artifact'))
    if os.path.exists(target):
        raise StepFailed('an artifact %s exists already' % inputs.get('name'))
    if not os.path.exists(source):
        if inputs.get('if-no-files-found', 'warn') == 'error':
            raise StepFailed('no files found at %s' % inputs['path'])
        log.write('no files found at %s: nothing uploaded\n' % inputs['path'])
        return
    shutil.copytree(source, target, symlinks=True)
    job.uploaded.append(inputs.get('name', 'artifact'))


def download_artifact(job, inputs, log):
    """actions/download-artifact: the artifact NAME into PATH, or each
    that PATTERN matches into PATH/ITS-NAME."""
    path = os.path.join(job.workspace, inputs.get('path', '.'))
    names = sorted(os.listdir(job.run.artifacts)) if os.path.isdir(job.run.artifacts) else []
    if inputs.get('name'):
        if inputs['name'] not in names:
            raise StepFailed('no artifact %s' % inputs['name'])
        shutil.copytree(os.path.join(job.run.artifacts, inputs['name']), path, dirs_exist_ok=True)
        return
    for name in fnmatch.filter(names, inputs.get('pattern', '*')):
        shutil.copytree(os.path.join(job.run.artifacts, name), os.path.join(path, name))
        log.write('downloaded %s\n' % name)


STAND_INS = {'actions/checkout': checkout, 'actions/cache/restore': cache_restore,
             'actions/cache/save': cache_save, 'actions/upload-artifact': upload_artifact,
             'actions/download-artifact': download_artifact}


# ---------------------------------------------------------------- jobs

def needed(spec):
    """The names of the jobs that the job SPEC needs."""
    needs = spec.get('needs', [])
    return [needs] if isinstance(needs, str) else needs


class Run:
    """The workflow's run in DIR: its jobs' results and outputs."""

    def __init__(self, workflow, directory, repository):
        self.workflow, self.dir, self.repository = workflow, directory, repository
        self.artifacts = os.path.join(directory, 'artifacts')
        self.github = {'event_name': 'push', 'ref_name': 'main', 'head_ref': '',
                       'repository': 'mm-frozen/mm-frozen', 'run_id': '1'}
        self.results = {}

    def say(self, line):
        print(line, flush=True)

    def shell(self, spec):
        defaults = dict(self.workflow.get('defaults') or {}, **(spec.get('defaults') or {}))
        return (defaults.get('run') or {}).get('shell', 'bash')

    def needs_of(self, spec):
        """The needs context of a job: what each job it needs gave."""
        return {n: self.results[n] for n in needed(spec) if n in self.results}

    def order(self):
        """The job names, each after those it needs."""
        jobs, done = self.workflow['jobs'], []
        while len(done) < len(jobs):
            ready = [n for n, spec in jobs.items()
                     if n not in done and all(d in done for d in needed(spec))]
            if not ready:
                raise Unplayed('the jobs\' needs make a cycle')
            done += ready
        return done

    def job_context(self, spec):
        """The contexts of a job's if: and matrix: github, needs, and the
        status that the jobs it needs leave."""
        needs = self.needs_of(spec)
        status = 'success' if all(n['result'] == 'success' for n in needs.values()) else 'failure'
        return {'github': self.github, 'needs': needs, 'status': status}

    def legs(self, name, spec, context):
        """The matrix of job NAME, in CONTEXT: a dict of its values a leg."""
        matrix = evaluate((spec.get('strategy') or {}).get('matrix'), context)
        if not matrix:
            return [{}]
        if any(k in ('include', 'exclude') for k in matrix):
            raise Unplayed('%s: matrix include/exclude' % name)
        legs = [{}]
        for key, values in matrix.items():
            values = evaluate(values, context)
            if not isinstance(values, list):
                raise Unplayed('%s: matrix %s is not a list: %r' % (name, key, values))
            legs = [dict(leg, **{key: value}) for leg in legs for value in values]
        return legs

    def job(self, name):
        spec = self.workflow['jobs'][name]
        context = self.job_context(spec)
        if not condition(spec.get('if'), context):
            self.say('job %s: skipped' % name)
            self.results[name] = {'result': 'skipped', 'outputs': {}, 'runs': []}
            return
        runs, result, outputs = [], 'success', {}
        legs = self.legs(name, spec, context)
        for i, matrix in enumerate(legs):
            label = name if len(legs) == 1 else '%s-%d' % (name, i + 1)
            self.say('job %s%s' % (label, ' %s' % json.dumps(matrix) if matrix else ''))
            job = Job(self, label, spec, matrix)
            job.execute()
            tolerated = evaluate(spec.get('continue-on-error', False), job.contexts())
            if job.status != 'success' and not truthy(tolerated):
                result = 'failure'
            outputs.update({k: as_string(evaluate(v, job.contexts()))
                            for k, v in (spec.get('outputs') or {}).items()})
            runs.append({'job': label, 'matrix': matrix, 'status': job.status,
                         'continue_on_error': truthy(tolerated), 'steps': job.outcomes,
                         'artifacts': job.uploaded})
            self.say('job %s: %s' % (label, job.status))
        self.results[name] = {'result': result, 'outputs': outputs, 'runs': runs}

    def execute(self, only=None):
        for name in self.order():
            if only in (None, name):
                self.job(name)
        write_json(os.path.join(self.dir, 'run.json'), self.results)
        return all(r['result'] != 'failure' for r in self.results.values())


def main(argv=None):
    ap = argparse.ArgumentParser(description="A workflow's glue run here.")
    ap.add_argument('workflow')
    ap.add_argument('dir')
    ap.add_argument('--only')
    args = ap.parse_args(argv)
    with open(args.workflow) as f:
        workflow = yaml.safe_load(f)
    repository = subprocess.check_output(['git', '-C', os.path.dirname(os.path.abspath(
        args.workflow)), 'rev-parse', '--show-toplevel'], text=True).strip()
    os.makedirs(args.dir, exist_ok=True)
    run = Run(workflow, os.path.abspath(args.dir), repository)
    if args.only:
        if args.only not in workflow['jobs']:
            print('workflow: no job %s' % args.only, file=sys.stderr)
            return 2
        run.results = read_json(os.path.join(run.dir, 'run.json')) or {}
        # a job run again uploads its artifacts again
        for leg in run.results.pop(args.only, {}).get('runs', []):
            for name in leg['artifacts']:
                shutil.rmtree(os.path.join(run.artifacts, name), ignore_errors=True)
    try:
        return 0 if run.execute(args.only) else 1
    except Unplayed as e:
        print('workflow: %s' % e, file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
