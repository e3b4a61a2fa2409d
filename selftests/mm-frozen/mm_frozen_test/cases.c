// SPDX-License-Identifier: GPL-2.0
/*
 * mm_frozen_cases - runs the hazard cases (hazard.c), the fault
 * injection cases (fault.c), the memory pressure cases (pressure.c), the
 * contiguous range cases (contig.c) and the free cases (frees.c) of the
 * mm-frozen tests on demand.
 *
 * Each file of /sys/kernel/debug/mm_frozen_cases/ is one case: a write
 * runs it, with the number written as its parameter, and a read on the
 * same open file returns what it saw, one "name value" per line.
 *
 * What a case saw is kept with its open file, and no lock is held across
 * the hazard cases: on a kernel without the fix they end in a kernel BUG,
 * and the next cases must still run.  For the same reason the module is
 * not meant to be unloaded after such a run.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "cases.h"

static const struct mfc_group *mfc_groups[] = {
	&mfc_hazard_group,
	&mfc_fault_group,
	&mfc_pressure_group,
	&mfc_contig_group,
	&mfc_frees_group,
};

static struct dentry *mfc_dir;

void mfc_report(struct mfc_result *r, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	r->len += vscnprintf(r->buf + r->len, sizeof(r->buf) - r->len, fmt, args);
	va_end(args);
}

static int mfc_open(struct inode *inode, struct file *file)
{
	struct mfc_result *r = kzalloc(sizeof(*r), GFP_KERNEL);

	file->private_data = r;
	return r ? 0 : -ENOMEM;
}

static int mfc_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static ssize_t mfc_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	const struct mfc_case *c = file_inode(file)->i_private;
	struct mfc_result *r = file->private_data;
	unsigned int arg;
	int ret;

	ret = kstrtouint_from_user(buf, count, 0, &arg);
	if (ret)
		return ret;
	r->len = 0;
	ret = c->run(r, arg);
	return ret ? ret : count;
}

static ssize_t mfc_read(struct file *file, char __user *buf, size_t count,
			loff_t *ppos)
{
	struct mfc_result *r = file->private_data;

	return simple_read_from_buffer(buf, count, ppos, r->buf, r->len);
}

static const struct file_operations mfc_fops = {
	.owner = THIS_MODULE,
	.open = mfc_open,
	.release = mfc_release,
	.read = mfc_read,
	.write = mfc_write,
	.llseek = default_llseek,
};

static void mfc_exit_groups(unsigned int nr)
{
	while (nr--)
		if (mfc_groups[nr]->exit)
			mfc_groups[nr]->exit();
}

static int __init mfc_init(void)
{
	const struct mfc_group *g;
	unsigned int i, j;
	int ret;

	for (i = 0; i < ARRAY_SIZE(mfc_groups); i++) {
		ret = mfc_groups[i]->init ? mfc_groups[i]->init() : 0;
		if (ret) {
			mfc_exit_groups(i);
			return ret;
		}
	}
	mfc_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	for (i = 0; i < ARRAY_SIZE(mfc_groups); i++) {
		g = mfc_groups[i];
		for (j = 0; j < g->nr_cases; j++)
			debugfs_create_file(g->cases[j].name, 0600, mfc_dir,
					    (void *)&g->cases[j], &mfc_fops);
	}
	return 0;
}

static void __exit mfc_exit(void)
{
	debugfs_remove_recursive(mfc_dir);
	mfc_exit_groups(ARRAY_SIZE(mfc_groups));
}

module_init(mfc_init);
module_exit(mfc_exit);
MODULE_DESCRIPTION("Hazard and fault injection cases of the mm-frozen tests");
MODULE_LICENSE("GPL");
