# SPDX-License-Identifier: GPL-2.0
"""kbuild.py - what a kernel build says of its objects: the command that
compiled each (its kbuild .o.cmd file), and which preprocessor branches
of a file that command keeps.

The preprocessor itself answers the second: each file is copied into an
overlay with a marker token after every line that opens a branch (#if,
#ifdef, #ifndef, #elif, #else), each object is preprocessed with its own
command on the overlay, and a branch is kept if its marker comes out.
Used by coverage.py to tell a line compiled out from a line with no code.
"""

import os
import re
import shlex
import shutil
import subprocess
import tempfile

DIRECTIVE = re.compile(r'^\s*#\s*(ifdef|ifndef|if|elif|else|endif)\b')
# What the comment scanner steps over: a comment, a string, a character.
LEXEME = re.compile(r'//|/\*|\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])\'')
MARKER = '__mmf_branch_%d_%d__'
MARKERS = re.compile(r'__mmf_branch_(\d+)_(\d+)__')
# The whole file, before any branch: a header that a profiled object
# includes shows it.
TOP = 0


def code_lines(lines):
    """Each line with its comments blanked, comments spanning lines
    followed."""
    code, in_comment = [], False
    for line in lines:
        out, pos = [], 0
        while pos < len(line):
            if in_comment:
                end = line.find('*/', pos)
                if end < 0:
                    pos = len(line)
                    break
                pos, in_comment = end + 2, False
                out.append(' ')
                continue
            lexeme = LEXEME.search(line, pos)
            if not lexeme:
                out.append(line[pos:])
                break
            out.append(line[pos:lexeme.start()])
            pos = lexeme.end()
            if lexeme.group() == '//':
                break
            if lexeme.group() == '/*':
                in_comment = True
            else:
                out.append(lexeme.group())
        code.append(''.join(out))
    return code


def branches(lines):
    """The preprocessor branches of a file: (enclosing, openers, labels).
    enclosing[i] is the tuple of branch numbers that line i + 1 sits in
    (a directive sits in those around it); openers maps the line after
    which each branch's marker goes (the last of its directive's
    continued lines) to the branch number, numbered from 1; labels maps
    each branch to its directive, an #elif's or #else's after its #if's
    ("#ifdef CONFIG_NUMA / #else")."""
    enclosing, openers, labels, stack, count = [], {}, {}, [], 0
    conditionals = []
    code = code_lines(lines)
    number = 0
    while number < len(code):
        directive = DIRECTIVE.match(code[number])
        last = number
        while code[last].rstrip().endswith('\\') and last + 1 < len(code):
            last += 1
        kind = directive.group(1) if directive else None
        if kind in ('elif', 'else', 'endif') and stack:
            stack.pop()
        enclosing.extend([tuple(stack)] * (last - number + 1))
        if kind and kind != 'endif':
            text = ' '.join(' '.join(part.rstrip('\\').split())
                            for part in code[number:last + 1]).strip()
            if kind.startswith('if'):
                conditionals.append(text)
            elif conditionals:
                text = '%s / %s' % (conditionals[-1], text)
            count += 1
            stack.append(count)
            openers[last + 1] = count
            labels[count] = text
        elif kind == 'endif' and conditionals:
            conditionals.pop()
        number = last + 1
    return enclosing, openers, labels


def with_markers(lines, file_index, openers):
    """The file's text with a marker of the whole file first, and one
    after each line that opens a branch."""
    out = [MARKER % (file_index, TOP)]
    for number, line in enumerate(lines, 1):
        out.append(line)
        if number in openers:
            out.append(MARKER % (file_index, openers[number]))
    return '\n'.join(out) + '\n'


def found_markers(text):
    """The (file index, branch) markers that preprocessed TEXT holds."""
    return {(int(f), int(b)) for f, b in MARKERS.findall(text)}


def object_command(build, cmd_file):
    """(source, command words) of an object's kbuild .o.cmd file."""
    source, command = None, None
    with open(os.path.join(build, cmd_file)) as f:
        for row in f:
            name, _, value = row.partition(' := ')
            if name.startswith('savedcmd_'):
                command = value.strip()
            elif name.startswith('source_'):
                source = value.strip()
    if not source or not command:
        raise ValueError('%s: no command or no source' % cmd_file)
    return source, shlex.split(command.split(';')[0])


def preprocess_words(words, source, copy, overlay):
    """An object's compile command (of SOURCE) made a preprocessing of
    COPY, the overlay's copy of SOURCE, with the overlay's include/
    first and SOURCE's directory for its quoted includes after COPY's (an
    external module's headers are found only there): no ccache, no
    dependency file, the output on stdout."""
    out = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word == 'ccache' and not out:
            continue
        if word.startswith('-Wp,-MMD') or word.startswith('-Wp,-MD'):
            continue
        if word == '-o':
            skip = True
            continue
        if word in ('-c', source):
            continue
        out.append(word)
        if word == '-nostdinc':
            out.append('-I' + os.path.join(overlay, 'include'))
    return out + ['-iquote', os.path.dirname(source) or '.',
                  '-E', '-o', '-', copy]


def kept_branches(build, tree, files, sources):
    """The (file index, branch) markers that the profiled objects' own
    commands let through, FILES (tree-relative, their index in the list)
    marked in an overlay.  SOURCES: object -> (source, command words)."""
    with tempfile.TemporaryDirectory(prefix='mmf-coverage-') as overlay:
        for index, path in enumerate(files):
            with open(os.path.join(tree, path), errors='replace') as f:
                lines = f.read().splitlines()
            target = os.path.join(overlay, path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, 'w') as f:
                f.write(with_markers(lines, index, branches(lines)[1]))
        found = set()
        for source, words in sources.values():
            path = os.path.relpath(os.path.join(build, source), tree)
            copy = os.path.join(overlay, path)
            if not os.path.exists(copy):
                os.makedirs(os.path.dirname(copy), exist_ok=True)
                shutil.copy(os.path.join(tree, path), copy)
            run = subprocess.run(preprocess_words(words, source, copy, overlay),
                                 cwd=build, capture_output=True, text=True)
            if run.returncode:
                raise RuntimeError('preprocessing %s failed:\n%s'
                                   % (path, run.stderr[-2000:]))
            found |= found_markers(run.stdout)
        return found
