# SPDX-License-Identifier: GPL-2.0
"""kernel_log.py on the serial console of a real patched run (its test
windows, one with a declared WARNING) and on lines made from it: every
kind of kernel problem found, user space's own words ignored, a declared
report accepted exactly as often as declared, a problem named with the
test it happened in, kernel lines glued to user space's found."""

import os
import unittest

from helpers import ROOT, ScratchTest, fixture, read, run_main, write
from mmfrozen import kernel_log

PATTERNS = kernel_log.read_patterns(
    os.path.join(ROOT, 'selftests', 'mm-frozen', 'kernel-problems'))
CONSOLE = read(fixture('ktap', 'console-patched.log')).splitlines(True)
WINDOW = 'slab_page.get_page_warns_once'
DECLARED = [l for l in CONSOLE if 'test expect 1 WARNING' in l][0]
WARNING = [l for l in CONSOLE if l.startswith('[') and '] WARNING: CPU:' in l][0]

# One line of each kind of problem, as the kernel prints it.
KINDS = {
    'panic': '[    3.100000] Kernel panic - not syncing: sysrq triggered crash',
    'bug': '[    2.000000] kernel BUG at mm/slub.c:1234!',
    'oops': '[    2.000000] Oops: general protection fault, probably for non-canonical address',
    'warning': '[    2.000000] WARNING: CPU: 1 PID: 77 at mm/page_alloc.c:4321 free_frozen_pages+0x1/0x2',
    'refcount': '[    2.000000] refcount_t: underflow; use-after-free.',
    'bad page': '[    2.000000] BUG: Bad page state in process swapper  pfn:01234',
    'slub': '[    2.000000] BUG kmalloc-64 (Not tainted): Left Redzone overwritten',
    'detector': '[    2.000000] frozen_pages: bad refcount at slab free: pfn:0x1234 order:1 '
                'refcount:1 expected:0 cache:dentry',
    'rcu stall': '[  300.000000] rcu: INFO: rcu_preempt self-detected stall on CPU',
    'rcu starved': '[  300.000000] rcu: rcu_preempt kthread starved for 2101 jiffies! g2945 f0x0 '
                   'RCU_GP_WAIT_FQS(5) ->state=0x0 ->cpu=1',
    'hung task': '[ 1300.000000] INFO: task kworker/0:1:23 blocked for more than 1200 seconds.',
    'soft lockup': '[  130.000000] watchdog: BUG: soft lockup - CPU#1 stuck for 122s! [bash:812]',
}


def problems(lines):
    return kernel_log.problems(lines, PATTERNS)


class RealConsole(unittest.TestCase):

    def test_a_clean_run_has_no_problem(self):
        self.assertIn(WARNING, CONSOLE)
        self.assertEqual(problems(CONSOLE), [])

    def test_an_undeclared_report_names_its_test(self):
        lines = [l for l in CONSOLE if l is not DECLARED]
        self.assertEqual(problems(lines), [WARNING.strip() + '  [during test %s]' % WINDOW])

    def test_a_declared_report_seen_twice_is_a_problem(self):
        at = CONSOLE.index(WARNING)
        found = problems(CONSOLE[:at] + [WARNING] + CONSOLE[at:])
        self.assertEqual(len(found), 1)
        self.assertRegex(found[0], r'^\[ *[0-9.]+\] mm-frozen: test %s: expected 1 kernel '
                         r'line\(s\) matching /WARNING: .*/, saw 2$' % WINDOW)

    def test_a_declared_report_missing_is_a_problem(self):
        found = problems([l for l in CONSOLE if l is not WARNING])
        self.assertEqual(len(found), 1)
        self.assertIn('expected 1 kernel line(s)', found[0])
        self.assertIn(', saw 0', found[0])

    def test_a_log_that_ends_in_a_window(self):
        at = CONSOLE.index(WARNING)
        found = problems(CONSOLE[:at])
        self.assertEqual(len(found), 1)
        self.assertTrue(found[0].endswith(', saw 0 (the log ends in the test)'))

    def test_another_problem_in_a_declaring_window(self):
        at = CONSOLE.index(WARNING)
        bug = '[  367.206000] kernel BUG at mm/slub.c:1!\n'
        self.assertEqual(problems(CONSOLE[:at] + [bug] + CONSOLE[at:]),
                         [bug.strip() + '  [during test %s]' % WINDOW])


class ProblemWindow(unittest.TestCase):
    """The module reads back the window that its own problem lines name,
    the one format of those lines (mutants.py and runner.sh ask it)."""

    def test_a_line_in_a_window(self):
        line = problems([l for l in CONSOLE if l is not DECLARED])[0]
        self.assertEqual(kernel_log.problem_window(line), (WINDOW, WARNING.strip()))

    def test_a_miscount_names_its_window(self):
        at = CONSOLE.index(WARNING)
        line = problems(CONSOLE[:at] + [WARNING] + CONSOLE[at:])[0]
        self.assertEqual(kernel_log.problem_window(line), (WINDOW, line))

    def test_a_line_outside_every_window(self):
        self.assertEqual(kernel_log.problem_window(KINDS['bug']), ('', KINDS['bug']))

    def test_the_text_command(self):
        line = problems([l for l in CONSOLE if l is not DECLARED])[0]
        self.assertEqual(run_main(kernel_log.main, ['text', line]), (0, WARNING.strip() + '\n'))


class Lines(unittest.TestCase):

    def test_every_kind_is_found(self):
        for kind, line in KINDS.items():
            with self.subTest(kind=kind):
                self.assertEqual(problems(CONSOLE + [line]), [line])

    def test_user_space_words_are_not_the_kernel_s(self):
        self.assertEqual(problems(['WARNING: user space may print this\n',
                                   '# kernel BUG at nowhere, said a test\n']), [])

    def test_a_kernel_line_glued_to_user_output(self):
        self.assertEqual(problems(['# # ok 3 [    2.000000] kernel BUG at mm/slub.c:7!\n']),
                         ['[    2.000000] kernel BUG at mm/slub.c:7!'])
        at = CONSOLE.index(WARNING)
        self.assertEqual(problems(CONSOLE[:at] + ['# # bvec' + WARNING] + CONSOLE[at + 1:]), [])

    def test_carriage_returns_of_the_serial_console(self):
        self.assertEqual(problems([KINDS['bug'] + '\r\n']), [KINDS['bug']])


class Live(unittest.TestCase):
    """A console looked at while the guest writes it (--stop-at-problem)."""

    def test_a_window_whose_report_may_still_come_is_not_judged(self):
        at = CONSOLE.index(WARNING)
        self.assertEqual(kernel_log.problems(CONSOLE[:at], PATTERNS, live=True), [])

    def test_a_line_half_written_is_not_judged(self):
        at = CONSOLE.index(WARNING)
        cut = WARNING.index(' at ') + 4
        self.assertEqual(problems([WARNING[:cut]]), [WARNING[:cut]])
        self.assertEqual(kernel_log.problems(CONSOLE[:at] + [WARNING[:cut]], PATTERNS,
                                             live=True), [])

    def test_a_whole_problem_line_is_a_problem(self):
        self.assertEqual(kernel_log.problems(CONSOLE + [KINDS['bug'] + '\n'], PATTERNS,
                                             live=True), [KINDS['bug']])

    def test_a_window_ended_is_judged(self):
        found = kernel_log.problems([l for l in CONSOLE if l is not WARNING], PATTERNS,
                                    live=True)
        self.assertEqual(len(found), 1)
        self.assertIn(', saw 0', found[0])


class Logs(ScratchTest):

    def test_a_line_in_console_and_dmesg_counts_once(self):
        console = write(os.path.join(self.tmp, 'console.log'), KINDS['oops'] + '\n')
        dmesg = write(os.path.join(self.tmp, 'dmesg.txt'), KINDS['oops'] + '\n')
        missing = os.path.join(self.tmp, 'none.txt')
        self.assertEqual(kernel_log.log_problems([console, dmesg, missing], PATTERNS),
                         [KINDS['oops']])

    def test_outside_leaves_the_windows_out(self):
        lines = [l for l in CONSOLE if l is not DECLARED] + [KINDS['oops'] + '\n']
        log = write(os.path.join(self.tmp, 'console.log'), ''.join(lines))
        self.assertEqual(len(kernel_log.log_problems([log], PATTERNS)), 2)
        self.assertEqual(kernel_log.log_problems([log], PATTERNS, outside=True), [KINDS['oops']])


if __name__ == '__main__':
    unittest.main()


class Kmemleak(ScratchTest):
    """kmemleak's report (the format of mm/kmemleak.c's
    print_unreferenced(), tests/fixtures/kmemleak/two-leaks.txt): a
    problem line for each object, with its size, task and backtrace."""

    def test_each_object_is_a_problem_with_its_backtrace(self):
        self.assertEqual(kernel_log.read_kmemleak(fixture('kmemleak', 'two-leaks.txt')), [
            'kmemleak: unreferenced object 0xffff888005e3c000 (size 4096) allocated by '
            '"insmod": __kmalloc_cache_noprof+0x1a4/0x2f0 < mft_fill_slab+0x5e/0x1d0 '
            '[mm_frozen_test] < mft_write+0xc1/0x150 [mm_frozen_test] < '
            'full_proxy_write+0x8b/0xd0 < vfs_write+0x1a0/0x6c0',
            'kmemleak: unreferenced object 0xffff888006a1b780 (size 64) allocated by '
            '"swapper/0": kmemleak_alloc+0x4a/0x80 < __kmalloc_noprof+0x2b1/0x3c0 < '
            'acpi_ut_allocate_object_desc_dbg+0x3c/0x90'])

    def test_no_report_no_problem(self):
        empty = os.path.join(self.tmp, 'kmemleak.txt')
        write(empty, '')
        self.assertEqual(kernel_log.read_kmemleak(empty), [])
        self.assertEqual(kernel_log.read_kmemleak(os.path.join(self.tmp, 'none.txt')), [])

    def test_the_command_adds_them_to_the_logs_problems(self):
        log = os.path.join(self.tmp, 'console.log')
        write(log, KINDS['warning'] + '\n')
        status, out = run_main(kernel_log.main, [
            '--patterns', os.path.join(ROOT, 'selftests', 'mm-frozen', 'kernel-problems'),
            '--kmemleak', fixture('kmemleak', 'two-leaks.txt'), log])
        self.assertEqual(status, 0)
        self.assertEqual(len(out.splitlines()), 3)
        self.assertTrue(out.splitlines()[1].startswith('kmemleak: unreferenced object 0xffff888005e3c000'))

