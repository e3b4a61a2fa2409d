// SPDX-License-Identifier: GPL-2.0
/*
 * mm_frozen_test - allocate and free slab pages and plain pages on demand,
 * so that a tracer can follow their refcount from allocation to free.
 *
 * /sys/kernel/debug/mm_frozen_test/slab_pages: writing N creates a private
 * cache, allocates objects until they span at least N slab pages, then
 * frees every object and destroys the cache, which returns all of its
 * slab pages to the page allocator before the write returns.  "N ORDER"
 * gives the cache one object of PAGE_SIZE << ORDER bytes per slab, so that
 * from order 4 up (above kmalloc's largest cache) its slabs have that
 * order.
 *
 * /sys/kernel/debug/mm_frozen_test/pages: writing N allocates N order-0
 * pages with alloc_pages() and then frees them with __free_pages(); "N
 * ORDER" allocates and frees them at that order.
 *
 * An order that nothing else in a test guest allocates makes the pages
 * of a run the only ones of their order: tracers that count by order can
 * then be compared with the run, whatever else the kernel frees meanwhile.
 *
 * Reading either file lists the pages of its last run, one per line:
 * "pfn order refcount", the refcount being the one seen while the page
 * was in use.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#define MFT_MAX_PAGES	1024
#define MFT_OBJ_SIZE	256	/* without an order: many objects per slab */
#define MFT_NO_ORDER	UINT_MAX

struct mft_page {
	unsigned long pfn;
	unsigned int order;
	int refcount;
};

struct mft_run {
	int (*fill)(struct mft_page *pages, unsigned int n, unsigned int order);
	struct mft_page *pages;
	unsigned int nr;
};

static DEFINE_MUTEX(mft_lock);
static struct dentry *mft_dir;

static void mft_record(struct mft_page *rec, struct page *page,
		       unsigned int order)
{
	rec->pfn = page_to_pfn(page);
	rec->order = order;
	rec->refcount = page_ref_count(page);
}

/* Returns true if @page is one of the first @nr slab pages recorded. */
static bool mft_seen(const struct mft_page *pages, unsigned int nr,
		     struct page *page)
{
	unsigned long pfn = page_to_pfn(page);

	/* Newest first: consecutive objects mostly share a slab. */
	while (nr--)
		if (pages[nr].pfn == pfn)
			return true;
	return false;
}

static void mft_free_objects(struct kmem_cache *cache, void *head)
{
	void *obj;

	while (head) {
		obj = head;
		head = *(void **)obj;
		kmem_cache_free(cache, obj);
	}
}

static int mft_fill_slab(struct mft_page *pages, unsigned int n,
			 unsigned int order)
{
	unsigned int size = MFT_OBJ_SIZE;
	struct kmem_cache *cache;
	unsigned int nr = 0;
	void *head = NULL;
	struct page *page;
	void *obj;

	if (order != MFT_NO_ORDER)
		size = PAGE_SIZE << order;
	/* SLAB_NO_MERGE: no other user may share (and keep alive) our slabs. */
	cache = kmem_cache_create("mm_frozen_test", size, 0,
				  SLAB_NO_MERGE, NULL);
	if (!cache)
		return -ENOMEM;

	while (nr < n) {
		obj = kmem_cache_alloc(cache, GFP_KERNEL);
		if (!obj)
			break;
		/* Chain the live objects through their own first word. */
		*(void **)obj = head;
		head = obj;
		page = virt_to_head_page(obj);
		if (!mft_seen(pages, nr, page))
			mft_record(&pages[nr++], page, compound_order(page));
	}

	mft_free_objects(cache, head);
	/* Frees the now empty slabs synchronously: not SLAB_TYPESAFE_BY_RCU. */
	kmem_cache_destroy(cache);
	return nr < n ? -ENOMEM : 0;
}

static int mft_fill_pages(struct mft_page *pages, unsigned int n,
			  unsigned int order)
{
	struct page *page;
	unsigned int i;
	int ret = 0;

	if (order == MFT_NO_ORDER)
		order = 0;
	/* Hold all pages before freeing any, so that no pfn comes back. */
	for (i = 0; i < n; i++) {
		page = alloc_pages(GFP_KERNEL, order);
		if (!page) {
			ret = -ENOMEM;
			break;
		}
		mft_record(&pages[i], page, order);
	}
	while (i--)
		__free_pages(pfn_to_page(pages[i].pfn), order);
	return ret;
}

static int mft_show(struct seq_file *m, void *unused)
{
	struct mft_run *run = m->private;
	unsigned int i;

	mutex_lock(&mft_lock);
	for (i = 0; i < run->nr; i++)
		seq_printf(m, "0x%lx %u %d\n", run->pages[i].pfn,
			   run->pages[i].order, run->pages[i].refcount);
	mutex_unlock(&mft_lock);
	return 0;
}

static int mft_open(struct inode *inode, struct file *file)
{
	return single_open(file, mft_show, inode->i_private);
}

static ssize_t mft_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	struct mft_run *run = ((struct seq_file *)file->private_data)->private;
	unsigned int n, order = MFT_NO_ORDER;
	struct mft_page *pages, *old;
	char args[32];
	char extra;
	int ret;

	/* "N" or "N ORDER" */
	if (!count || count >= sizeof(args))
		return -EINVAL;
	if (copy_from_user(args, buf, count))
		return -EFAULT;
	args[count] = '\0';
	ret = sscanf(args, "%u %u %c", &n, &order, &extra);
	if (ret < 1 || ret > 2 || !n || n > MFT_MAX_PAGES)
		return -EINVAL;
	if (order != MFT_NO_ORDER && order > MAX_PAGE_ORDER)
		return -EINVAL;

	/* Allocated before the run, so its pages are not among the run's. */
	pages = kcalloc(n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;

	mutex_lock(&mft_lock);
	ret = run->fill(pages, n, order);
	old = ret ? pages : run->pages;
	if (!ret) {
		run->pages = pages;
		run->nr = n;
	}
	mutex_unlock(&mft_lock);

	kfree(old);
	return ret ? ret : count;
}

static const struct file_operations mft_fops = {
	.owner = THIS_MODULE,
	.open = mft_open,
	.read = seq_read,
	.write = mft_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static struct mft_run mft_slab_run = { .fill = mft_fill_slab };
static struct mft_run mft_pages_run = { .fill = mft_fill_pages };

static int __init mft_init(void)
{
	mft_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("slab_pages", 0600, mft_dir, &mft_slab_run,
			    &mft_fops);
	debugfs_create_file("pages", 0600, mft_dir, &mft_pages_run, &mft_fops);
	return 0;
}

static void __exit mft_exit(void)
{
	debugfs_remove_recursive(mft_dir);
	kfree(mft_slab_run.pages);
	kfree(mft_pages_run.pages);
}

module_init(mft_init);
module_exit(mft_exit);
MODULE_DESCRIPTION("Allocate and free slab pages and plain pages on demand");
MODULE_LICENSE("GPL");
