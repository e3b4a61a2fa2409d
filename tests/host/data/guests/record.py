#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""record.py RESULTS [--hang]: a stand-in guest's scenario (see
tests/host/data/qemu/qemu-system-x86_64) recorded from the results
directory of a real guest run: its console (the boot left out but for the
kernel's banner), the lines of guest/output.log as the guest command's
output, guest/status where the guest printed it; --hang: the guest then
goes on until qemu is killed (a run that timed out).

    tests/host/data/guests/record.py RESULTS > tests/host/data/guests/NAME
"""

import os
import sys

READY = 'mm-frozen: guest ready, running '
EXITED = 'mm-frozen: guest command exited with status '


def read_lines(path):
    if not os.path.isfile(path):
        return []
    with open(path, errors='replace') as f:
        return f.read().splitlines()


def steps(console, output, status):
    """The scenario's steps from the console's lines, the guest command's
    output lines and its status ('' if it wrote none)."""
    found = []
    ready = False
    pending = list(output)
    for line in console:
        if not ready:
            if line.startswith(READY):
                ready = True
                found.append('ready')
            elif 'Linux version' in line:
                found.append('console ' + line)
            continue
        if line.startswith(EXITED) and status:
            found.append('status ' + status)
            status = ''
        if pending and line == pending[0]:
            found.append('output ' + pending.pop(0))
        else:
            found.append('console ' + line)
    if status:
        found.append('status ' + status)
    return found


def main(argv):
    if not argv or argv[0].startswith('-'):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    results = argv[0]
    status = ''.join(read_lines(os.path.join(results, 'guest', 'status'))).strip()
    found = steps(read_lines(os.path.join(results, 'console.log')),
                  read_lines(os.path.join(results, 'guest', 'output.log')), status)
    if '--hang' in argv[1:]:
        found.append('hang')
    print('# recorded by record.py from a real run (%s)' % os.path.basename(results.rstrip('/')))
    print('\n'.join(found))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
