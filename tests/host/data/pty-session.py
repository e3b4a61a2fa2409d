#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pty-session.py - a user at a terminal: types lines into a command.

Usage: pty-session.py ROWS COLS PROMPT SECONDS LINE... -- CMD...

Runs CMD on a pseudo-terminal of its own, ROWS by COLS, as its
controlling terminal, with SIGINT's default action.  Each time PROMPT (a
regular expression) appears in what CMD printed since the last line was
typed, types the next LINE and Enter.  Everything CMD prints goes to
standard output.  Exits with CMD's status, or 124 when CMD has not
ended SECONDS seconds after it started (its process group is then sent
SIGTERM, and SIGKILL 10 s later).
"""

import fcntl
import os
import re
import select
import signal
import struct
import sys
import termios
import time


def start(rows, cols, cmd):
    """CMD on a new terminal of ROWS x COLS; its pid and the master's fd."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    pid = os.fork()
    if pid == 0:
        os.close(master)
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        os.close(slave)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.execvp(cmd[0], cmd)
    os.close(slave)
    return pid, master


def read_some(master, seconds):
    """What the terminal shows within SECONDS; b"" at its end (EIO)."""
    ready, _, _ = select.select([master], [], [], seconds)
    if not ready:
        return None
    try:
        return os.read(master, 4096)
    except OSError:
        return b""


def stop(pid):
    """SIGTERM to PID's process group, SIGKILL 10 s on; PID reaped."""
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    end = time.monotonic() + 10
    while time.monotonic() < end:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return
        time.sleep(0.1)
    os.killpg(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def session(pid, master, prompt, lines, seconds):
    """Types LINES at each PROMPT until CMD ends; False on a timeout."""
    deadline = time.monotonic() + seconds
    seen = ""
    while time.monotonic() < deadline:
        data = read_some(master, 1)
        if data == b"":
            return True
        if data is None:
            continue
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        seen += data.decode("utf-8", "replace")
        if lines and prompt.search(seen):
            os.write(master, lines.pop(0).encode() + b"\r")
            seen = ""
    stop(pid)
    return False


def main(argv):
    if "--" not in argv or argv.index("--") < 5 or argv.index("--") == len(argv) - 1:
        sys.exit(__doc__.split("\n\n")[1])
    split = argv.index("--")
    rows, cols, prompt, seconds = int(argv[1]), int(argv[2]), argv[3], float(argv[4])
    pid, master = start(rows, cols, argv[split + 1:])
    if not session(pid, master, re.compile(prompt), argv[5:split], seconds):
        print(f"\npty-session.py: {argv[split + 1]} did not end within {seconds:g} s",
              file=sys.stderr)
        return 124
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
