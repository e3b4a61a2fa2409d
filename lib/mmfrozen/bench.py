# SPDX-License-Identifier: GPL-2.0
"""bench.py - the report of "runner.sh bench" from what its passes left.

RESULTS holds one directory per pass: count/ (the page_ref events of each
case, from guest-init/bench.sh count), and one per clock, icount-1/,
icount-2/, tcg/, kvm/ (the rounds of each case, from bench.sh time), each
with its cases in bench/; passes.tsv (each pass's kernel variant and
accelerator) and lock-cost.json (bench/lock-cost.c).

Writes RESULTS/bench.json (every round of every pass), and bench.gp with
the data it plots, under icount-1 (gnuplot: per-round cost of A and B in
each case into bench.png; per case their medians, from zero, with the
spread of the rounds, the atomics and the predicted saving into
bench-summary.png), prints the table, and
checks the guard: the frozen path (A) executes no refcount atomic in any
case while the refcounted one (B) executes exactly one per page or slab
freed (so that the count can be trusted); under -icount, frozen page
allocation and freeing executes no more instructions per operation than
refcounted, and the two icount runs' medians of each case are within
ICOUNT_AGREEMENT of each other.  Exit status 1 when the guard fails, 2 on
missing input.

With what the numbers depend on (--release, the timed kernel's; --tree,
--qemu, --config-sha256, --size full|quick), bench.json keeps them, and
with --references DIR the guard also holds icount run 1's medians to the
reference DIR/RELEASE.json: a case whose A or B moved by more than
REFERENCE_TOLERANCE either way fails (slower is a regression; much
faster needs a look too).  A reference of another tree, QEMU, config or
size, or none, is said, and only A against B is checked.

"record" writes the reference DIR/RELEASE.json from a run whose guard
passed (its bench.json): what its numbers depend on, and per case icount
run 1's medians of A and B and the case's size (iters, rounds).

Usage: python3 -m mmfrozen.bench RESULTS [--release R --tree T --qemu Q
           --config-sha256 H --size full|quick [--references DIR]]
       python3 -m mmfrozen.bench record RESULTS DIR
"""

import argparse
import glob
import os
import statistics
import sys

from mmfrozen.results import read_json, write_json

CLOCKS = (  # pass directory, label, unit
    ('icount-1', 'icount run 1', 'instructions'),
    ('icount-2', 'icount run 2', 'instructions'),
    ('tcg', 'TCG (emulated time)', 'ns'),
    ('kvm', 'KVM', 'ns'),
)
# Refcount events that are atomic read-modify-writes; page_ref_set is a
# plain store, reported beside them.
RMW_EVENTS = ('page_ref_mod', 'page_ref_mod_and_test', 'page_ref_mod_and_return',
              'page_ref_mod_unless', 'page_ref_freeze', 'page_ref_unfreeze')
PATHS = ('A', 'B')  # A frozen, B refcounted
# How far the two icount runs' medians of a case may be apart, relative:
# -icount counts instructions, so a run that is repeated repeats them.
ICOUNT_AGREEMENT = 0.01
# How far a case's icount median may move from the reference's, relative,
# either way.  Under -icount a boot repeats its rounds to the instruction
# or nearly, but not another boot: in 13 boots of bench quick on the
# patched kernel (two builds of it), a case's medians were up to 2.86 %
# apart (cross-0's A; slab-0 1.35 %, every other case 0.9 % or less; what
# differs between boots is not pinned down; docs/bench.md).  3 % is
# above that spread wherever in it the reference fell, and far below how
# far every case moved on a kernel that frees without the per-CPU lists
# (tests/data/slow-free-no-pcp.patch: +20 % to +108 %, cross-3 -5 %).
REFERENCE_TOLERANCE = 0.03
DEPENDS_ON = ('release', 'tree', 'qemu', 'config_sha256', 'size')


def read_rounds(path):
    """The kernel's rounds: parameters, then per round ns of A and B."""
    with open(path) as f:
        head = f.readline().split()
        params = dict(zip(head[::2], head[1::2]))
        iters = int(params['iters'])
        rounds = []
        for line in f:
            _, a, b = line.split()
            rounds.append((int(a) / iters, int(b) / iters))
    return {'iters': iters, 'rounds': rounds}


def summarise(rounds):
    a = [r[0] for r in rounds]
    b = [r[1] for r in rounds]
    return {
        'A': {'median': statistics.median(a), 'min': min(a), 'max': max(a)},
        'B': {'median': statistics.median(b), 'min': min(b), 'max': max(b)},
        'ratio_median': statistics.median(x / y for x, y in rounds),
    }


def read_count(path):
    """Per path: refcount atomics and stores per operation, drops."""
    events = {p: {} for p in PATHS}
    dropped = iters = 0
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[0] == 'dropped':
                dropped += int(w[1])
            elif w[0] == 'iters':
                iters = int(w[1])
            elif w[1] in PATHS:
                events[w[1]][w[0]] = int(w[2])
    count = {'iters': iters, 'dropped': dropped}
    for p in PATHS:
        count[p] = {
            'atomics': sum(events[p].get(e, 0) for e in RMW_EVENTS),
            'stores': events[p].get('page_ref_set', 0),
            'events': events[p],
        }
    return count


def case_names(results):
    names = set()
    for d in ['count'] + [c[0] for c in CLOCKS]:
        for f in glob.glob(os.path.join(results, d, 'bench', '*')):
            names.add(os.path.splitext(os.path.basename(f))[0])
    order = {'pages': 0, 'slab': 1, 'cross': 2}
    return sorted(names, key=lambda n: (order.get(n.split('-')[0], 9), n))


def collect(results):
    report = {'cases': {}, 'clocks': {}}
    for d, label, unit in CLOCKS:
        if os.path.isdir(os.path.join(results, d, 'bench')):
            report['clocks'][d] = {'label': label, 'unit': unit}
    passes = os.path.join(results, 'passes.tsv')
    if os.path.exists(passes):
        with open(passes) as f:
            report['passes'] = [dict(zip(('pass', 'variant', 'accel'),
                                         line.split())) for line in f]
    lock = read_json(os.path.join(results, 'lock-cost.json'))
    if lock:
        report['host_lock_cost'] = lock
    for name in case_names(results):
        case = {}
        count = os.path.join(results, 'count', 'bench', name + '.count')
        if os.path.exists(count):
            case['count'] = read_count(count)
        for d in report['clocks']:
            path = os.path.join(results, d, 'bench', name + '.rounds')
            if os.path.exists(path):
                case[d] = read_rounds(path)
                case[d]['summary'] = summarise(case[d]['rounds'])
        report['cases'][name] = case
    return report


def icount_disagreements(report):
    """(relative difference, case, path, run 1's median, run 2's) of each
    path of each case that both icount runs measured."""
    found = []
    for name, case in report['cases'].items():
        if 'icount-1' not in case or 'icount-2' not in case:
            continue
        for p in PATHS:
            one = case['icount-1']['summary'][p]['median']
            two = case['icount-2']['summary'][p]['median']
            found.append((abs(one - two) / one, name, p, one, two))
    return found


def guard(report):
    """The guard's failures, one line each."""
    failures = []
    for diff, name, path, one, two in icount_disagreements(report):
        if diff > ICOUNT_AGREEMENT:
            failures.append('%s: icount runs 1 and 2 disagree on %s: %.1f and %.1f '
                            'instructions per operation, %.3f%% apart (more than %g%%)'
                            % (name, path, one, two, 100 * diff, 100 * ICOUNT_AGREEMENT))
    for name, case in report['cases'].items():
        count = case.get('count')
        if not count:
            failures.append('%s: no refcount count' % name)
            continue
        if count['dropped']:
            failures.append('%s: the hist triggers dropped %d events'
                            % (name, count['dropped']))
        if count['A']['atomics']:
            failures.append('%s: the frozen path executed %d refcount atomics'
                            % (name, count['A']['atomics']))
        if count['B']['atomics'] != count['iters']:
            failures.append('%s: the refcounted path executed %d refcount '
                            'atomics for %d frees, not one each'
                            % (name, count['B']['atomics'], count['iters']))
        icount = case.get('icount-1')
        if name.startswith('pages') and icount:
            s = icount['summary']
            if s['A']['median'] > s['B']['median']:
                failures.append('%s: under -icount the frozen path executed '
                                '%.1f instructions per operation, the '
                                'refcounted one %.1f' % (
                                    name, s['A']['median'], s['B']['median']))
    return failures


def atomics_per_op(count):
    """(A's, B's) refcount atomics per operation of a case's COUNT, or
    None when it was not counted."""
    if not count or not count['iters']:
        return None
    return tuple(count[p]['atomics'] / count['iters'] for p in PATHS)


def predicted_saving(name, count, lock):
    """Native ns one operation saves: atomics removed times a lock RMW's
    cost, contended for the cross-CPU case."""
    if not count or not lock or not count['iters']:
        return None
    removed = (count['B']['atomics'] - count['A']['atomics']) / count['iters']
    cost = lock['lock_contended' if name.startswith('cross') else
                'lock_uncontended']['median_ns']
    return removed * cost


def print_table(report):
    clocks = list(report['clocks'])
    lock = report.get('host_lock_cost')
    print('%-8s %-7s' % ('', 'atomics') +
          ''.join(' %-21s' % ('%s (%s)' % (c, report['clocks'][c]['unit'][:5]))
                  for c in clocks) + ' predicted')
    print('%-8s %-7s' % ('case', 'A B') +
          ''.join(' %-21s' % 'A      B      A/B' for c in clocks) +
          ' saving ns')
    for name, case in report['cases'].items():
        count = case.get('count')
        per_op = atomics_per_op(count)
        atomics = '%g %g' % per_op if per_op else '-'
        cells = ''
        for c in clocks:
            if c in case:
                s = case[c]['summary']
                cells += ' %-6.0f %-6.0f %-7.3f' % (
                    s['A']['median'], s['B']['median'], s['ratio_median'])
            else:
                cells += ' %-21s' % '-'
        saving = predicted_saving(name, count, lock)
        print('%-8s %-7s' % (name, atomics) + cells +
              (' %.2f' % saving if saving is not None else ' -'))
    print('A frozen, B refcounted: per operation, the median of the rounds;'
          ' A/B the median of the per-round ratios.')
    for p in report.get('passes', []):
        print('  %-9s %s kernel, %s' % (p['pass'], p['variant'], p['accel']))
    if lock:
        print('host: a lock RMW %.2f ns uncontended, %.2f ns with another CPU'
              ' on the line (predicted saving: atomics removed per operation'
              ' times that)' % (lock['lock_uncontended']['median_ns'],
                                lock['lock_contended']['median_ns']))
    disagreements = icount_disagreements(report)
    if disagreements:
        worst = max(disagreements)
        print('icount runs 1 and 2: medians within %.3f%% (worst: %s, %s)'
              % (100 * worst[0], worst[1], worst[2]))


def write_rounds(f, results, report, names, clock):
    """The per-round cost of A and B in each case: bench.dat, one block a
    case, and its plot into bench.png, on axes fitted to the rounds."""
    dat = os.path.join(results, 'bench.dat')
    with open(dat, 'w') as d:
        for name in names:
            d.write('# %s: round A B\n' % name)
            for i, (a, b) in enumerate(report['cases'][name][clock]['rounds']):
                d.write('%d %.2f %.2f\n' % (i, a, b))
            d.write('\n\n')
    f.write('set terminal pngcairo size 1200,%d\n' % (300 * ((len(names) + 1) // 2)))
    f.write("set output '%s'\n" % os.path.join(results, 'bench.png'))
    f.write('set multiplot layout %d,2 title "%s per operation, per round '
            '(%s; each axis fitted to its rounds)"\n'
            % ((len(names) + 1) // 2, report['clocks'][clock]['unit'],
               report['clocks'][clock]['label']))
    f.write('set xlabel "round"\nset key outside bottom center horizontal\n')
    for i, name in enumerate(names):
        f.write('set title "%s"\n' % name)
        f.write("plot '%s' index %d using 1:2 with linespoints title "
                "'A frozen', '' index %d using 1:3 with linespoints "
                "title 'B refcounted'\n" % (dat, i, i))
    f.write('unset multiplot\nreset\n')


def summary_labels(name, case, lock):
    """The two lines a case's bars are labelled with: the atomics counted
    per operation, and the predicted native saving."""
    count = case.get('count')
    per_op = atomics_per_op(count)
    if not per_op:
        return 'not counted', ''
    saving = predicted_saving(name, count, lock)
    return ('atomics %g vs %g' % per_op,
            'predicted saving %.2f ns' % saving if saving is not None else '')


def write_summary(f, results, report, names, clock):
    """Per case, A against B at a glance: bench-summary.dat and its plot
    into bench-summary.png, bars from zero at the medians, whiskers from
    the cheapest round to the dearest, each case labelled above them with
    its atomics and predicted saving."""
    dat = os.path.join(results, 'bench-summary.dat')
    lock = report.get('host_lock_cost')
    summaries = [report['cases'][name][clock]['summary'] for name in names]
    # each case's dearest round, A or B: its labels go above it
    tops = [max(s[p]['max'] for p in PATHS) for s in summaries]
    line = max(tops) / 25
    with open(dat, 'w') as d:
        d.write('# case A-median A-min A-max B-median B-min B-max label-y label label\n')
        for name, s, top in zip(names, summaries, tops):
            d.write('%s %.2f %.2f %.2f %.2f %.2f %.2f %.2f "%s" "%s"\n' % (
                (name,) + tuple(s[p][k] for p in PATHS for k in ('median', 'min', 'max')) +
                (top + line,) + summary_labels(name, report['cases'][name], lock)))
    f.write('set terminal pngcairo size 1200,600\n')
    f.write("set output '%s'\n" % os.path.join(results, 'bench-summary.png'))
    f.write('set title "%s per operation, median of the rounds (whiskers: '
            'cheapest to dearest round), %s"\n'
            % (report['clocks'][clock]['unit'], report['clocks'][clock]['label']))
    f.write('set style data histogram\nset style histogram errorbars gap 1 lw 1\n'
            'set style fill solid 0.5 border -1\nset yrange [0:*]\n'
            'set offsets 0, 0, graph 0.15, 0\n'
            'set key top left\nset ylabel "%s per operation"\n'
            % report['clocks'][clock]['unit'])
    f.write("plot '%s' using 2:3:4:xtic(1) title 'A frozen', "
            "'' using 5:6:7 title 'B refcounted', "
            "'' using 0:($8 + %.2f):9 with labels font ',9' notitle, "
            "'' using 0:8:10 with labels font ',9' notitle\n" % (dat, line))
    f.write('reset\n')


def write_plot(results, report, clock='icount-1'):
    """bench.gp for gnuplot, with the data it plots: the rounds
    (bench.png) and the summary (bench-summary.png) of CLOCK."""
    names = [n for n, c in report['cases'].items() if clock in c]
    if not names:
        return None
    gp = os.path.join(results, 'bench.gp')
    with open(gp, 'w') as f:
        write_rounds(f, results, report, names, clock)
        write_summary(f, results, report, names, clock)
    return gp


def reference(report):
    """The reference that REPORT's icount run 1 makes: what its numbers
    depend on, and each case's size and medians."""
    cases = {}
    for name, case in report['cases'].items():
        icount = case.get('icount-1')
        if icount:
            cases[name] = {'iters': icount['iters'],
                           'rounds': len(icount['rounds']),
                           'A': icount['summary']['A']['median'],
                           'B': icount['summary']['B']['median']}
    return dict(report['depends_on'], clock='icount-1',
                unit='instructions per operation', cases=cases)


def reference_mismatch(report, ref):
    """Why REF (a reference, or None) cannot be held against REPORT, or
    None when it can."""
    if ref is None:
        return 'none'
    for key in DEPENDS_ON:
        if ref.get(key) != report['depends_on'][key]:
            return 'of another %s: %s, not %s' % (key, ref.get(key),
                                                  report['depends_on'][key])
    return None


def reference_changes(report, ref):
    """(case, path, reference median, this run's, relative change) of each
    path of each case that the reference has at the same size."""
    changes = []
    for name, case in report['cases'].items():
        icount, was = case.get('icount-1'), ref['cases'].get(name)
        if not icount or not was or was['iters'] != icount['iters'] or \
                was['rounds'] != len(icount['rounds']):
            continue
        for p in PATHS:
            now = icount['summary'][p]['median']
            changes.append((name, p, was[p], now, (now - was[p]) / was[p]))
    return changes


def reference_check(report, path):
    """REPORT's medians against the reference at PATH: its verdict for
    bench.json, and the guard's failures."""
    ref = read_json(path)
    why = reference_mismatch(report, ref)
    verdict = {'file': path, 'tolerance': REFERENCE_TOLERANCE}
    if why:
        return dict(verdict, compared=False, why=why), []
    changes = reference_changes(report, ref)
    verdict['changes'] = [{'case': c, 'path': p, 'reference': was, 'median': now,
                           'change': change} for c, p, was, now, change in changes]
    failures = ['%s: %s moved %+.2f%% from the reference (%.1f to %.1f '
                'instructions per operation; more than %g%%)'
                % (c, p, 100 * change, was, now, 100 * REFERENCE_TOLERANCE)
                for c, p, was, now, change in changes
                if abs(change) > REFERENCE_TOLERANCE]
    missing = sorted(set(report['cases']) - {c for c, *_ in changes})
    failures += ['%s: not in the reference at this size' % c for c in missing]
    return dict(verdict, compared=True), failures


def print_reference(verdict):
    if not verdict['compared']:
        print('reference %s: %s; only A against B checked'
              % (verdict['file'], verdict['why']))
        return
    print('against the reference %s (at most %g%% either way):'
          % (verdict['file'], 100 * verdict['tolerance']))
    for c in verdict['changes']:
        print('  %-8s %s %10.1f -> %10.1f  %+.2f%%' % (
            c['case'], c['path'], c['reference'], c['median'], 100 * c['change']))


def cmd_record(argv):
    parser = argparse.ArgumentParser(prog='mmfrozen.bench record')
    parser.add_argument('results')
    parser.add_argument('references')
    args = parser.parse_args(argv)
    report = read_json(os.path.join(args.results, 'bench.json'))
    if not report or not report.get('guard', {}).get('passed') or \
            'depends_on' not in report:
        print('bench.py: no bench whose guard passed, with what it depends '
              'on, in %s: nothing recorded' % args.results, file=sys.stderr)
        return 2
    ref = reference(report)
    if not ref['cases']:
        print('bench.py: no icount run in %s: nothing recorded' % args.results,
              file=sys.stderr)
        return 2
    path = os.path.join(args.references, ref['release'] + '.json')
    os.makedirs(args.references, exist_ok=True)
    write_json(path, ref)
    print('reference: %s' % path)
    for name, case in ref['cases'].items():
        print('%-8s A %10.1f  B %10.1f  (%d iters, %d rounds)'
              % (name, case['A'], case['B'], case['iters'], case['rounds']))
    return 0


def parse_report_args(argv):
    parser = argparse.ArgumentParser(prog='mmfrozen.bench')
    parser.add_argument('results')
    for name in ('--release', '--tree', '--qemu', '--config-sha256'):
        parser.add_argument(name)
    parser.add_argument('--size', choices=('full', 'quick'))
    parser.add_argument('--references')
    args = parser.parse_args(argv)
    given = [getattr(args, key) is not None for key in DEPENDS_ON]
    if any(given) and not all(given) or args.references and not all(given):
        parser.error('--release, --tree, --qemu, --config-sha256 and --size '
                     'go together, and --references needs them')
    if '' in (getattr(args, key) for key in DEPENDS_ON):
        parser.error('--release, --tree, --qemu and --config-sha256 '
                     'cannot be empty')
    return args


def main(argv):
    if argv[:1] == ['record']:
        return cmd_record(argv[1:])
    args = parse_report_args(argv)
    results = args.results
    if not os.path.isdir(results):
        print('bench.py: no directory %s' % results, file=sys.stderr)
        return 2
    report = collect(results)
    if not report['cases']:
        print('bench.py: no bench results in %s' % results, file=sys.stderr)
        return 2
    if args.release is not None:
        report['depends_on'] = {key: getattr(args, key) for key in DEPENDS_ON}
    failures = guard(report)
    if args.references:
        report['reference'], more = reference_check(
            report, os.path.join(args.references, args.release + '.json'))
        failures += more
    report['guard'] = {'passed': not failures, 'failures': failures}
    write_json(os.path.join(results, 'bench.json'), report)
    print_table(report)
    if args.references:
        print_reference(report['reference'])
    write_plot(results, report)
    for line in failures:
        print('GUARD FAILED: ' + line)
    print('guard: %s' % ('passed' if not failures else 'FAILED'))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
