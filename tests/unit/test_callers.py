# SPDX-License-Identifier: GPL-2.0
"""callers.py on tests/fixtures/callers/: the hits of a real run of
cocci/slab_page_ref.cocci on 6.12.118 with the series up to 0018
(tee_shm.c still a hit), Makefiles and .config lines of
that tree and of Debian's config, and their rows of docs/callers.md.
Whether the config builds a file (a composite object, a directory named
three times, a directory named two levels up, ${CONFIG_X}, continuation
lines, another arch, a name through a variable); the table held to the
hits, each kind of disagreement named."""

import os
import unittest

from helpers import ScratchTest, fixture, read, run_main, write
from mmfrozen import callers

TREE = fixture('callers', 'tree')
CONFIG = callers.read_config(read(fixture('callers', 'debian.config')).splitlines())
HITS = fixture('callers', 'hits.txt')
TABLE = read(fixture('callers', 'callers.md'))


class Build(unittest.TestCase):

    def build(self, path):
        return callers.build_of(TREE, path, CONFIG)

    def test_a_composite_of_a_directory_named_three_times(self):
        # vhost/ by VHOST_RING (unset), VHOST_IOTLB (unset) and VHOST (m);
        # net.o in vhost_net.o, by VHOST_NET (m).
        self.assertEqual(self.build('drivers/vhost/net.c'), callers.MODULE)

    def test_a_composite_by_objs_lines(self):
        self.assertEqual(self.build('drivers/tee/tee_shm.c'), callers.MODULE)

    def test_a_directory_named_two_levels_up(self):
        # drivers/Makefile names hwtracing/coresight/; CORESIGHT is unset.
        self.assertEqual(self.build('drivers/hwtracing/coresight/coresight-tmc-etr.c'),
                         callers.NOT_BUILT)

    def test_curly_braces_and_continued_lines(self):
        self.assertEqual(self.build('drivers/net/wwan/t7xx/t7xx_hif_dpmaif_rx.c'),
                         callers.MODULE)

    def test_obj_y_under_a_top_level_directory(self):
        self.assertEqual(self.build('net/core/xdp.c'), callers.BUILT_IN)

    def test_another_arch_is_never_built(self):
        self.assertEqual(self.build('arch/riscv/kvm/mmu.c'), callers.NOT_BUILT)

    def test_a_name_through_a_variable_is_unknown(self):
        self.assertEqual(self.build('mm/nommu.c'), callers.UNKNOWN)

    def test_a_file_no_makefile_names_is_unknown(self):
        self.assertEqual(self.build('drivers/tee/tee_private.c'), callers.UNKNOWN)

    def test_an_unset_option_is_not_built(self):
        config = dict(CONFIG)
        del config['CONFIG_VHOST_NET']
        self.assertEqual(callers.build_of(TREE, 'drivers/vhost/net.c', config),
                         callers.NOT_BUILT)

    def test_built_in_when_every_option_is_y(self):
        config = dict(CONFIG, CONFIG_VHOST='y', CONFIG_VHOST_NET='y')
        self.assertEqual(callers.build_of(TREE, 'drivers/vhost/net.c', config),
                         callers.BUILT_IN)


class Hits(unittest.TestCase):

    def test_hits_counted_by_function(self):
        hits = callers.read_hits([
            'drivers/net/tun.c:2478:tun_xdp_one: put_page on virt_to_head_page()\n',
            'HANDLING: drivers/net/tun.c\n',
            'drivers/net/tun.c:2495:tun_xdp_one: put_page on virt_to_head_page()\n',
            'drivers/net/veth.c:743:veth_xdp_get: get_page on virt_to_page()\n'])
        self.assertEqual(hits, {('drivers/net/tun.c', 'tun_xdp_one'): 2,
                                ('drivers/net/veth.c', 'veth_xdp_get'): 1})

    def test_the_table_is_read(self):
        rows = callers.table_rows(TABLE)
        self.assertEqual(len(rows), 7)
        row = rows[('drivers/tee/tee_shm.c', 'register_shm_helper')]
        self.assertEqual((row.hits, row.build, row.klass), ('1', 'module', 'kmalloc-backed'))


class Disagreements(unittest.TestCase):

    def said(self, hits_text, table=TABLE):
        classified = callers.table_rows(table)
        hits = callers.read_hits(hits_text.splitlines())
        return callers.disagreements(callers.found_rows(TREE, hits, CONFIG, classified),
                                     classified)

    def test_the_fixture_agrees(self):
        self.assertEqual(self.said(read(HITS)), [])

    def test_a_new_caller_is_not_classified(self):
        said = self.said(read(HITS) + 'drivers/tee/tee_core.c:10:tee_new: get_page on virt_to_page()\n')
        self.assertEqual(said, ['drivers/tee/tee_core.c tee_new(): 1 hit(s), not classified'])

    def test_a_row_no_hit_backs(self):
        hits = ''.join(l for l in read(HITS).splitlines(True) if 'xdp.c' not in l)
        self.assertEqual(self.said(hits), ['net/core/xdp.c __xdp_return(): in the table, not hit'])

    def test_another_number_of_hits(self):
        said = self.said(read(HITS) + 'net/core/xdp.c:460:__xdp_return: put_page on virt_to_page()\n')
        self.assertEqual(said, ['net/core/xdp.c __xdp_return(): 2 hit(s), the table says 1'])

    def test_another_build(self):
        table = TABLE.replace('| `drivers/vhost/net.c` | `vhost_tx_batch()` | 1 | module |',
                              '| `drivers/vhost/net.c` | `vhost_tx_batch()` | 1 | built-in |')
        self.assertEqual(self.said(read(HITS), table),
                         ['drivers/vhost/net.c vhost_tx_batch(): module, the table says built-in'])

    def test_a_class_of_no_name(self):
        table = TABLE.replace('| module | kmalloc-backed |', '| module | slab |')
        self.assertEqual(self.said(read(HITS), table), [
            'drivers/tee/tee_shm.c register_shm_helper(): class "slab" is none of '
            'kmalloc-backed, never kmalloc, unknown'])


class Main(ScratchTest):

    def run_main(self, classes):
        return run_main(callers.main, ['--tree', TREE, '--config', fixture('callers', 'debian.config'),
                                       '--classes', classes, HITS])

    def test_agreement_exits_0_with_the_count(self):
        status, out = self.run_main(fixture('callers', 'callers.md'))
        self.assertEqual(status, 0)
        self.assertIn('7 functions; kmalloc-backed and built by the config: 1', out)

    def test_a_disagreement_exits_1(self):
        path = write(os.path.join(self.tmp, 'callers.md'), TABLE.replace('| `arch/riscv', '| `arch/mips'))
        status, out = self.run_main(path)
        self.assertEqual(status, 1)
        self.assertIn('arch/riscv/kvm/mmu.c gstage_op_pte(): 1 hit(s), not classified', out)

    def test_an_unreadable_table_exits_2(self):
        status, _ = self.run_main(fixture('callers', 'no-such.md'))
        self.assertEqual(status, 2)


if __name__ == '__main__':
    unittest.main()
