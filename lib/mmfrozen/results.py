# SPDX-License-Identifier: GPL-2.0
"""results.py - the JSON files of a results directory, read and written."""

import json
import os


def read_json(path):
    """The contents of the JSON file at PATH, None when there is none or
    it cannot be read (a run that ended before writing it)."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def write_json(path, data, indent=1):
    """DATA as the JSON file at PATH, whole or not at all."""
    with open(path + '.tmp', 'w') as f:
        json.dump(data, f, indent=indent)
        f.write('\n')
    os.replace(path + '.tmp', path)


def read_lines(path):
    """The lines of the text file at PATH, None when there is none."""
    if not os.path.isfile(path):
        return None
    with open(path, errors='replace') as f:
        return f.read().splitlines()
