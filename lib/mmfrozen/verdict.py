# SPDX-License-Identifier: GPL-2.0
"""verdict.py - RESULTS/verdict.json: the tests' verdict and how the run ended.

  python3 -m mmfrozen.verdict tests RESULTS --variant V --release R [--status N]
                                 [--expect FILE] [--programs NAME,...]
      The tests' verdict from the KTAP of the guest's command:
      RESULTS/guest/output.log, or, without --status (the guest did not
      finish), RESULTS/console.log, whose last lines the output file may
      lack.  With --expect, each test's status against FILE (expected.py)
      on the accelerator of RESULTS/accel, for the programs asked for
      (--programs, else all of them).  Writes verdict.json (variant,
      kernelrelease, guest_status, then the counts and the tree of
      ktap.py, and "expected"), prints the failures, the differences and
      the summary line.  Exit status 0 when every test passed as expected
      and the command exited 0, else 1; 2 for a FILE that cannot be read.

  python3 -m mmfrozen.verdict finish RESULTS --variant V --outcome NAME --exit N
      How the run ended, added to verdict.json (written with the variant
      alone when the run ended before its tests): outcome, exit, the
      guest command's status from RESULTS/guest/status when there is one,
      and the accelerator the guest ran under and why, from RESULTS/accel
      ("kvm" and "kvm: ok, the probe boot finished", say).
"""

import argparse
import os
import sys

from mmfrozen import expected, kernel_log, ktap
from mmfrozen.results import read_json, read_lines, write_json


def guest_log(results, status):
    if status is None:
        return os.path.join(results, 'console.log')
    return os.path.join(results, 'guest', 'output.log')


def tests_verdict(results, variant, release, status, expect=None, programs=None):
    """verdict.json's contents after a guest run; STATUS is the guest
    command's exit status, None when it did not finish; EXPECT the
    expectation file's path (None: none), PROGRAMS the programs the run
    asked for (None: all).  A test whose status differs from what EXPECT
    says fails the verdict."""
    head = {'variant': variant, 'kernelrelease': release,
            'guest_status': status}
    head.update(ktap.report(ktap.read_log(guest_log(results, status)), variant))
    diffs = []
    if expect:
        accel = (read_accel(results) or {}).get('name')
        diffs = expected.differences(expected.read_file(expect), head['tests'], accel, programs)
    head['expected'] = {'file': expect, 'programs': programs, 'differences': diffs}
    if diffs:
        head['verdict'] = 'fail'
    return head


def verdict_lines(verdict):
    """What the runner prints of a verdict: the failures, the
    differences from the expected statuses, the summary line."""
    lines = ktap.report_lines(verdict)
    exp = verdict['expected']
    if not exp['file']:
        return lines[:-1] + ['    statuses not compared: no expectation file'] + lines[-1:]
    diffs = ['    ' + d['text'] for d in exp['differences']]
    if diffs:
        tail = ', %d not as expected (%s)' % (len(diffs), exp['file'])
    else:
        tail = ', every status as expected (%s)' % exp['file']
    return lines[:-1] + diffs + [lines[-1] + tail]


def read_guest_status(results):
    """The guest command's exit status, None when it wrote none."""
    try:
        with open(os.path.join(results, 'guest', 'status')) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def read_accel(results):
    """{name, reason} of the accelerator the guest ran under, None when
    no guest ran."""
    lines = read_lines(os.path.join(results, 'accel'))
    if not lines:
        return None
    return {'name': lines[0], 'reason': lines[1] if len(lines) > 1 else ''}


def read_run(results):
    """What RESULTS says of its run, for the reports: verdict.json ({}
    before there is one), the test windows of the console's kernel log
    ({TEST: lines}), and the kernel's problem lines (kernel-problems.txt;
    [] when the tests were read and none were found; None when the log
    was not checked)."""
    verdict = read_json(os.path.join(results, 'verdict.json')) or {}
    console = read_lines(os.path.join(results, 'console.log')) or []
    problems = read_lines(os.path.join(results, 'kernel-problems.txt'))
    if problems is None and 'tests' in verdict:
        problems = []
    return verdict, kernel_log.windows(console), problems


def finished(verdict, variant, outcome, status, guest_status, accel=None):
    """VERDICT (None when there is none yet) with how the run ended."""
    verdict = dict(verdict or {'variant': variant})
    verdict.update(outcome=outcome, exit=status)
    if guest_status is not None:
        verdict['guest_status'] = guest_status
    if accel is not None:
        verdict['accel'] = accel
    return verdict


def main(argv=None):
    ap = argparse.ArgumentParser(description='Write verdict.json.')
    sub = ap.add_subparsers(dest='command', required=True)
    tests = sub.add_parser('tests')
    tests.add_argument('results')
    tests.add_argument('--variant', required=True)
    tests.add_argument('--release', required=True)
    tests.add_argument('--status', type=int)
    tests.add_argument('--expect', metavar='FILE')
    tests.add_argument('--programs', type=lambda v: v.split(',') if v else None)
    finish = sub.add_parser('finish')
    finish.add_argument('results')
    finish.add_argument('--variant', required=True)
    finish.add_argument('--outcome', required=True)
    finish.add_argument('--exit', type=int, required=True)
    args = ap.parse_args(argv)
    path = os.path.join(args.results, 'verdict.json')
    if args.command == 'finish':
        write_json(path, finished(read_json(path), args.variant, args.outcome, args.exit,
                                  read_guest_status(args.results), read_accel(args.results)))
        return 0
    try:
        verdict = tests_verdict(args.results, args.variant, args.release,
                                args.status, args.expect, args.programs)
    except (OSError, expected.BadFile) as e:
        print('verdict.py: %s' % e, file=sys.stderr)
        return 2
    write_json(path, verdict)
    print('\n'.join(verdict_lines(verdict)))
    return 0 if verdict['verdict'] == 'pass' and args.status == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
