# SPDX-License-Identifier: GPL-2.0
"""expressions.py - GitHub Actions' ${{ }} expressions, for the workflow
that mmfrozen.workflow runs here.

What the rebase matrix uses and a little more: literals, context paths
(a.b, a['b'], list[0]), !, ==, != (strings without regard to case), &&
and || (which give one of their values, as GitHub's do), parentheses,
and the functions always(), success(), failure(), cancelled(),
fromJSON(), toJSON() and hashFiles().  evaluate() replaces the ${{ }} of
a string, condition() reads an "if:".  Anything else raises Unplayed.
"""

import glob
import hashlib
import json
import os
import re


class Unplayed(Exception):
    """The workflow uses something that this does not play."""


TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<str>'(?:[^']|'')*')"
                   r"|(?P<op>==|!=|&&|\|\||[!().\[\],])|(?P<id>[A-Za-z_][\w-]*))")


def tokens(text):
    pos, found = 0, []
    while pos < len(text.rstrip()):
        m = TOKEN.match(text, pos)
        if not m:
            raise Unplayed('expression %r: cannot read %r' % (text, text[pos:]))
        kind = m.lastgroup
        found.append((kind, m.group(kind)))
        pos = m.end()
    return found


def truthy(value):
    return value not in (None, False, 0, '')


def as_string(value):
    """A value as GitHub writes it into a string."""
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return '' if value is None else str(value)


class Expression:
    """A ${{ }} expression, read by recursive descent and evaluated in
    CONTEXT: a dict of the contexts (github, matrix, needs, steps...) and
    of the status functions' answers (FUNCTIONS)."""

    def __init__(self, text, context):
        self.text, self.tokens, self.context = text, tokens(text), context

    def value(self):
        value = self.either()
        if self.tokens:
            raise Unplayed('expression %r: %r left over' % (self.text, self.tokens[0][1]))
        return value

    def peek(self, *ops):
        return self.tokens and self.tokens[0][0] == 'op' and self.tokens[0][1] in ops

    def take(self, op):
        if not self.peek(op):
            raise Unplayed('expression %r: %s expected' % (self.text, op))
        self.tokens.pop(0)

    def either(self):
        value = self.both()
        while self.peek('||'):
            self.tokens.pop(0)
            other = self.both()
            value = value if truthy(value) else other
        return value

    def both(self):
        value = self.negation()
        while self.peek('&&'):
            self.tokens.pop(0)
            other = self.negation()
            value = other if truthy(value) else value
        return value

    def negation(self):
        if self.peek('!'):
            self.tokens.pop(0)
            return not truthy(self.negation())
        value = self.primary()
        if self.peek('==', '!='):
            equal = self.tokens.pop(0)[1] == '=='
            other = self.primary()
            same = (value.lower() == other.lower()
                    if isinstance(value, str) and isinstance(other, str) else value == other)
            return same if equal else not same
        return value

    def primary(self):
        if not self.tokens:
            raise Unplayed('expression %r ends early' % self.text)
        kind, text = self.tokens.pop(0)
        if kind == 'num':
            return float(text) if '.' in text else int(text)
        if kind == 'str':
            return text[1:-1].replace("''", "'")
        if kind == 'op' and text == '(':
            value = self.either()
            self.take(')')
            return self.path(value)
        if kind != 'id':
            raise Unplayed('expression %r: %r unexpected' % (self.text, text))
        if text in ('true', 'false', 'null'):
            return {'true': True, 'false': False, 'null': None}[text]
        if self.peek('('):
            return self.path(self.call(text))
        return self.path(self.context.get(text))

    def path(self, value):
        while self.peek('.', '['):
            if self.tokens.pop(0)[1] == '.':
                key = self.tokens.pop(0)[1]
            else:
                key = self.either()
                self.take(']')
            if isinstance(value, dict):
                value = value.get(key)
            elif isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value):
                value = value[key]
            else:
                value = None
        return value

    def call(self, name):
        self.take('(')
        args = []
        while not self.peek(')'):
            args.append(self.either())
            if not self.peek(')'):
                self.take(',')
        self.take(')')
        if name in FUNCTIONS:
            return FUNCTIONS[name](self.context, *args)
        raise Unplayed('expression %r: no function %s here' % (self.text, name))


def hash_files(context, *patterns):
    """hashFiles: the sha256 of the sha256s of the workspace's files that
    PATTERNS match, '' when none does."""
    root = context['github']['workspace']
    files = sorted({f for p in patterns for f in glob.glob(os.path.join(root, p), recursive=True)
                    if os.path.isfile(f)})
    if not files:
        return ''
    whole = hashlib.sha256()
    for path in files:
        with open(path, 'rb') as f:
            whole.update(hashlib.sha256(f.read()).digest())
    return whole.hexdigest()


FUNCTIONS = {
    'always': lambda context: True,
    'success': lambda context: context['status'] == 'success',
    'failure': lambda context: context['status'] == 'failure',
    'cancelled': lambda context: False,
    'fromJSON': lambda context, text: json.loads(text),
    'toJSON': lambda context, value: json.dumps(value),
    'hashFiles': hash_files,
}

EXPR = re.compile(r'\$\{\{(.*?)\}\}', re.S)


def evaluate(text, context):
    """TEXT with its ${{ }} evaluated: the value itself when TEXT is one
    expression and nothing else, else a string."""
    if not isinstance(text, str):
        return text
    whole = EXPR.fullmatch(text.strip())
    if whole:
        return Expression(whole.group(1), context).value()
    return EXPR.sub(lambda m: as_string(Expression(m.group(1), context).value()), text)


def condition(text, context, default='success()'):
    """An "if:" (TEXT, or DEFAULT when there is none), ${{ }} or bare."""
    text = default if text is None else str(text)
    m = EXPR.fullmatch(text.strip())
    expression = m.group(1) if m else text
    # a condition without a status function is success() && it
    if not re.search(r'\b(always|success|failure|cancelled)\(', expression):
        expression = 'success() && (%s)' % expression
    return truthy(Expression(expression, context).value())
