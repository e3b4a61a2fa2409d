# SPDX-License-Identifier: GPL-2.0
"""coverage.py - which lines of the series the tests ran.

Each line that the series adds or changes in a C file or header, as the
tree has it at HEAD, is attributed with "git blame BASE..HEAD" to the
series commit that last wrote it, and put in one class:

  not built     its .c file has no object in this build, or its header
                goes into no profiled object
  compiled out  inside a preprocessor branch that this config drops
  no code       compiled, but gcov has no record of it: a declaration,
                a comment, a line folded into another
  boot only     run at boot, never while the guest command ran
  tests         run while the guest command ran
  never         executable, never run

The counters are those that guest-init/stage2.sh copied out of the
guest: RESULTS/guest/gcov-boot (the boot's) and RESULTS/guest/gcov (the
command's, taken after a reset), each under the build directory's path.
They are read with the gcov of the compiler that built the kernel, beside
the build's .gcno files, which are the profiled objects (lib/build.sh),
and those of the test modules (--module DIR, each profiled whole: a
header line of the series, put_page()'s, counts where it is inlined).

Which branches the config keeps is the preprocessor's answer, with each
profiled object's own kbuild command (kbuild.py).

The gate: a list of the lines that the tests do not run, each with its
reason (tests/coverage-unrun.txt, read_unrun()), against which every
line that they did not run is held.

Usage: python3 -m mmfrozen.coverage report --tree TREE --build BUILD
           [--module DIR]... --base REF [--unrun LIST] RESULTS PATCH...
           PATCH...: the series' patch files in order, one a commit of
           BASE..HEAD; writes RESULTS/coverage.json and coverage.html
           and prints the table and the series' diff coverage; with
           LIST, the gate: exit status 1 when a line that the tests did
           not run is not in LIST
"""

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from mmfrozen import kbuild
from mmfrozen.results import write_json

CLASSES = ('tests', 'boot only', 'never', 'no code', 'compiled out',
           'not built')
EXECUTABLE = ('tests', 'boot only', 'never')
# What the gate holds to its list: code that the tests did not run.
GATED = ('boot only', 'never', 'compiled out', 'not built')
SOURCE_SUFFIXES = ('.c', '.h')

BLAME_HEADER = re.compile(r'^([0-9a-f]{40}) \d+ (\d+)(?: \d+)?$')

# ---------------------------------------------------------------- the lines

def parse_blame(text):
    """(line, commit, text) of each line that "git blame --porcelain
    BASE..HEAD" gives to a commit of the range, not to the boundary."""
    lines, boundary, commit, number = [], set(), None, None
    for row in text.splitlines():
        header = BLAME_HEADER.match(row)
        if header:
            commit, number = header.group(1), int(header.group(2))
        elif row == 'boundary':
            boundary.add(commit)
        elif row.startswith('\t'):
            lines.append((number, commit, row[1:]))
    return [line for line in lines if line[1] not in boundary]


# ---------------------------------------------------------------- the counters

def profiled_objects(directory, build):
    """(object path, .gcno path) of each profiled object under DIRECTORY
    (the build, or an external module's), build-relative."""
    objects = []
    for root, _, files in os.walk(directory):
        for name in files:
            if name.endswith('.gcno'):
                path = os.path.relpath(os.path.join(root, name), build)
                objects.append((path[:-len('.gcno')] + '.o', path))
    return sorted(objects)


def gcov_program(build):
    """The gcov of the compiler that built the kernel (its .config's
    CONFIG_GCC_VERSION): gcov-MAJOR, or gcov if that is the same."""
    with open(os.path.join(build, '.config')) as f:
        version = re.search(r'^CONFIG_GCC_VERSION=(\d+)$', f.read(), re.M)
    if not version:
        raise RuntimeError('%s/.config: not built by gcc' % build)
    major = int(version.group(1)) // 10000
    for program in ('gcov-%d' % major, 'gcov'):
        path = shutil.which(program)
        if path:
            run = subprocess.run([path, '--version'], capture_output=True,
                                 text=True, check=True)
            if re.search(r'\) %d\.' % major, run.stdout.splitlines()[0]):
                return path
    raise RuntimeError('no gcov of gcc %d' % major)


def gcov_records(gcov_json, build, tree, counts, functions):
    """One gcov JSON document's lines added to COUNTS, {(tree-relative
    file, line): count}, and their functions to FUNCTIONS."""
    for entry in gcov_json['files']:
        path = os.path.relpath(os.path.normpath(
            os.path.join(build, entry['file'])), tree)
        for line in entry['lines']:
            key = (path, line['line_number'])
            counts[key] = counts.get(key, 0) + line['count']
            functions.setdefault(key, line.get('function_name', ''))


def read_counters(gcov, build, tree, objects, sources, counters):
    """({(file, line): count}, {(file, line): function}) over the
    profiled objects, from the .gcda files under COUNTERS (the build's
    path inside it); an object without one counts 0 everywhere."""
    counts, functions = {}, {}
    with tempfile.TemporaryDirectory(prefix='mmf-gcov-') as scratch:
        for obj, gcno in objects:
            shutil.copy(os.path.join(build, gcno), scratch)
            gcda = os.path.normpath(os.path.join(
                counters, os.path.abspath(build).lstrip('/'),
                gcno[:-len('.gcno')] + '.gcda'))
            if os.path.exists(gcda):
                shutil.copy(gcda, scratch)
            run = subprocess.run(
                [gcov, '--json-format', '--stdout', '-o', scratch,
                 sources[obj][0]], cwd=build, capture_output=True,
                text=True, check=True)
            for document in run.stdout.splitlines():
                gcov_records(json.loads(document), build, tree, counts,
                             functions)
            for name in os.listdir(scratch):
                os.unlink(os.path.join(scratch, name))
    return counts, functions


# ---------------------------------------------------------------- classes

def classify(path, number, built, kept, enclosing, boot, tests):
    """The class of line NUMBER of PATH.  BUILT: the file goes into a
    profiled object; KEPT: the branches kept; ENCLOSING: the branches the
    line sits in; BOOT, TESTS: the counters, {(file, line): count}."""
    if not built:
        return 'not built'
    key = (path, number)
    if key in tests:
        if tests[key]:
            return 'tests'
        return 'boot only' if boot.get(key) else 'never'
    if not all(branch in kept for branch in enclosing):
        return 'compiled out'
    return 'no code'


def hunks(lines):
    """The lines of one file in runs of adjacent lines of one patch."""
    runs = []
    for line in lines:
        if (runs and runs[-1][-1]['patch'] == line['patch']
                and runs[-1][-1]['line'] + 1 == line['line']):
            runs[-1].append(line)
        else:
            runs.append([line])
    return runs


def patch_report(patches, lines):
    """The report's patches: each with its counts by class and hunks."""
    report = []
    for patch in patches:
        own = [line for line in lines if line['patch'] == patch['name']]
        counts = {cls: 0 for cls in CLASSES}
        for line in own:
            counts[line['class']] += 1
        runs = []
        for path in sorted({line['file'] for line in own}):
            for run in hunks([line for line in own if line['file'] == path]):
                runs.append({'file': path, 'first': run[0]['line'],
                             'last': run[-1]['line'], 'lines': run})
        report.append(dict(patch, counts=counts, hunks=runs))
    return report


def totals(lines):
    """(lines run by the tests, executable lines)."""
    run = sum(1 for line in lines if line['class'] == 'tests')
    executable = sum(1 for line in lines if line['class'] in EXECUTABLE)
    return run, executable


def diff_coverage(lines):
    """The report's summary line."""
    return ('series diff coverage: %d of %d executable lines run by the '
            'tests' % totals(lines))


def table(report, lines):
    """The per-patch table and the summary line."""
    header = ('patch', 'lines') + CLASSES + ('subject',)
    rows = [header]
    for patch in report:
        counts = patch['counts']
        rows.append((patch['name'][:4], str(sum(counts.values())))
                    + tuple(str(counts[cls]) for cls in CLASSES)
                    + (patch['subject'],))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    out = ['  '.join(cell.rjust(widths[i]) if 0 < i < len(row) - 1
                     else cell.ljust(widths[i])
                     for i, cell in enumerate(row)).rstrip()
           for row in rows]
    out.append(diff_coverage(lines))
    return '\n'.join(out)


HTML_HEAD = '''<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>%s</title><style>
body { font-family: sans-serif; }
pre { margin: 0.2em 0 1em; }
.line { display: block; white-space: pre; }
.tests { background: #cfc; } .boot-only { background: #ffc; }
.never { background: #fcc; } .compiled-out { color: #888; }
.not-built { color: #888; } .no-code { color: #444; }
td, th { padding: 0 0.6em; text-align: right; }
</style></head><body>
'''


def html_page(report, lines, title):
    """The series' lines, by patch and hunk, coloured by class, with
    their counts (boot / tests)."""
    out = [HTML_HEAD % html.escape(title), '<h1>%s</h1>' % html.escape(title)]
    out.append('<p>%s</p>' % diff_coverage(lines))
    out.append('<table><tr><th>patch</th>%s</tr>' % ''.join(
        '<th>%s</th>' % cls for cls in CLASSES))
    for patch in report:
        out.append('<tr><td><a href="#p%s">%s</a></td>%s</tr>' % (
            patch['name'][:4], html.escape(patch['name'][:4]),
            ''.join('<td>%d</td>' % patch['counts'][cls] for cls in CLASSES)))
    out.append('</table>')
    for patch in report:
        out.append('<h2 id="p%s">%s</h2>' % (patch['name'][:4],
                                             html.escape(patch['name'])))
        for hunk in patch['hunks']:
            out.append('<h3>%s:%d-%d</h3><pre>' % (
                html.escape(hunk['file']), hunk['first'], hunk['last']))
            for line in hunk['lines']:
                counts = ''
                if line['class'] in EXECUTABLE:
                    counts = '%d/%d' % (line['boot'], line['tests'])
                title = line['class']
                if line.get('reason'):
                    title += ': ' + line['reason']
                out.append('<span class="line %s" title="%s">%6d %12s  %s'
                           '</span>' % (
                               line['class'].replace(' ', '-'),
                               html.escape(title), line['line'], counts,
                               html.escape(line['text'])))
            out.append('</pre>')
    out.append('</body></html>\n')
    return '\n'.join(out)


# ---------------------------------------------------------------- the run

def git(tree, *args):
    return subprocess.run(['git', '-C', tree] + list(args), check=True,
                          capture_output=True, text=True).stdout


def series_lines(tree, base, patches):
    """The series' changed lines at HEAD: (file, line, patch, text), and
    the files, patch by patch in the order of BASE..HEAD."""
    commits = git(tree, 'rev-list', '--reverse', base + '..HEAD').split()
    if len(commits) != len(patches):
        raise ValueError('%d commits in %s..HEAD, %d patches'
                         % (len(commits), base, len(patches)))
    names = dict(zip(commits, map(os.path.basename, patches)))
    files = [path for path in git(tree, 'diff', '--name-only', base,
                                  'HEAD').split()
             if path.endswith(SOURCE_SUFFIXES)
             and os.path.exists(os.path.join(tree, path))]
    lines = []
    for path in files:
        blame = git(tree, 'blame', '--porcelain', base + '..HEAD', '--',
                    path)
        for number, commit, text in parse_blame(blame):
            lines.append((path, number, names[commit], text))
    return files, lines


def where(cls, key, functions, dropped):
    """Where a line is, as the gate's list names it: the function of an
    executable line, the directive of the innermost branch that drops a
    compiled out one; nothing for the others."""
    if cls in EXECUTABLE:
        return functions.get(key, '')
    if cls == 'compiled out':
        return dropped[-1]
    return ''


def collect(tree, build, modules, base, patches, results):
    """The classified lines of the series, from the tree, the build, the
    directories of the test modules (MODULES: the header lines that they
    inline count there too) and the run's counters."""
    files, changed = series_lines(tree, base, patches)
    objects = profiled_objects(build, build)
    for directory in modules:
        objects += profiled_objects(directory, build)
    sources = {}
    for obj, _ in objects:
        directory, name = os.path.split(obj)
        sources[obj] = kbuild.object_command(build, os.path.join(
            directory, '.%s.cmd' % name))
    kept = kbuild.kept_branches(build, tree, files, sources)
    gcov = gcov_program(build)
    boot, functions = read_counters(
        gcov, build, tree, objects, sources,
        os.path.join(results, 'guest', 'gcov-boot'))
    tests, _ = read_counters(gcov, build, tree, objects, sources,
                             os.path.join(results, 'guest', 'gcov'))
    structure = {}
    for path in files:
        with open(os.path.join(tree, path), errors='replace') as f:
            structure[path] = kbuild.branches(f.read().splitlines())
    compiled = {os.path.relpath(os.path.join(build, source), tree)
                for source, _ in sources.values()}
    lines = []
    for path, number, patch, text in changed:
        index = files.index(path)
        built = (path in compiled if path.endswith('.c')
                 else (index, kbuild.TOP) in kept)
        enclosing, _, labels = structure[path]
        around = [(index, branch) for branch in enclosing[number - 1]]
        key = (path, number)
        cls = classify(path, number, built, kept, around, boot, tests)
        dropped = [labels[branch] for i, branch in around
                   if (i, branch) not in kept]
        lines.append({
            'file': path, 'line': number, 'patch': patch, 'text': text,
            'class': cls, 'where': where(cls, key, functions, dropped),
            'boot': boot.get(key, 0), 'tests': tests.get(key, 0)})
    return lines


# ---------------------------------------------------------------- the gate

def read_unrun(path):
    """The gate's list: (file, where, reason) a line, tab-separated; where
    "*" is the whole file; "#" starts a comment line."""
    entries = []
    with open(path) as f:
        for number, row in enumerate(f, 1):
            if not row.strip() or row.startswith('#'):
                continue
            fields = row.rstrip('\n').split('\t')
            if len(fields) != 3 or not all(f.strip() for f in fields):
                raise ValueError('%s:%d: not FILE<TAB>WHERE<TAB>REASON'
                                 % (path, number))
            entries.append(tuple(fields))
    return entries


def gate(lines, entries):
    """(the lines that the tests did not run, with code, that no entry
    lists; the entries that list no such line).  Each listed line gets
    its entry's reason."""
    used, unlisted = set(), []
    for line in lines:
        if line['class'] not in GATED:
            continue
        matches = [entry for entry in entries if entry[0] == line['file']
                   and entry[1] in ('*', line['where'])]
        used.update(matches)
        if matches:
            line['reason'] = matches[0][2]
        else:
            unlisted.append(line)
    return unlisted, [entry for entry in entries if entry not in used]


def gate_text(unlisted, stale, list_name):
    """What the gate found, as the report prints it."""
    out = []
    if unlisted:
        out.append('gate: %d lines neither run by the tests nor listed in '
                   '%s:' % (len(unlisted), list_name))
        out += ['  %s:%d  %s  [%s] %s' % (line['file'], line['line'],
                                          line['class'], line['where'],
                                          line['text'].strip())
                for line in unlisted]
    else:
        out.append('gate: every line not run by the tests is listed in %s'
                   % list_name)
    out += ['gate: listed, but no line not run is there: %s %s'
            % entry[:2] for entry in stale]
    return '\n'.join(out)


def patch_names(tree, base, patches):
    """Each patch: its file name and the subject of its commit."""
    subjects = git(tree, 'log', '--reverse', '--format=%s',
                   base + '..HEAD').splitlines()
    return [{'name': os.path.basename(patch), 'subject': subject}
            for patch, subject in zip(patches, subjects)]


def cmd_report(args):
    lines = collect(args.tree, args.build, args.module, args.base,
                    args.patches, args.results)
    patches = patch_names(args.tree, args.base, args.patches)
    report = patch_report(patches, lines)
    run, executable = totals(lines)
    summary = {'classes': list(CLASSES), 'run': run,
               'executable': executable}
    if args.unrun:
        unlisted, stale = gate(lines, read_unrun(args.unrun))
        summary['gate'] = {
            'list': args.unrun,
            'unlisted': [{key: line[key] for key in ('file', 'line', 'class',
                                                     'where')}
                         for line in unlisted],
            'stale': [{'file': e[0], 'where': e[1]} for e in stale]}
    write_json(os.path.join(args.results, 'coverage.json'),
               dict(summary, patches=report))
    with open(os.path.join(args.results, 'coverage.html'), 'w') as f:
        f.write(html_page(report, lines, 'mm-frozen: the series\' lines '
                          'that the tests ran'))
    print(table(report, lines))
    if not args.unrun:
        return 0
    print(gate_text(unlisted, stale, os.path.basename(args.unrun)))
    return 1 if unlisted else 0


def main(argv):
    parser = argparse.ArgumentParser(prog='mmfrozen.coverage')
    sub = parser.add_subparsers(dest='command', required=True)
    report = sub.add_parser('report')
    report.add_argument('--tree', required=True)
    report.add_argument('--build', required=True)
    report.add_argument('--module', action='append', default=[])
    report.add_argument('--base', required=True)
    report.add_argument('--unrun')
    report.add_argument('results')
    report.add_argument('patches', nargs='+')
    args = parser.parse_args(argv)
    try:
        return cmd_report(args)
    except (OSError, ValueError, RuntimeError,
            subprocess.CalledProcessError) as error:
        print('mmfrozen.coverage: %s' % error, file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
