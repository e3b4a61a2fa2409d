// SPDX-License-Identifier: GPL-2.0
/*
 * The contiguous range cases of the mm-frozen tests: the pages that
 * alloc_contig_range() hands out, and their refcounts.  With __GFP_COMP
 * it preps the range as one compound page and refcounts its head (the
 * set_page_refcounted() that the series moves out of prep_new_page(), in
 * 0004); without, split_free_pages() refcounts each page.
 *
 * A case takes a block of MAX_PAGE_ORDER from a movable area: where
 * alloc_pages() just found one free.  Aligned to its size, no free buddy
 * around it is larger, so find_large_buddy() starts where the block does
 * and the compound branch takes it whole; contig_migrate takes the
 * pageblock of a page of the test's process instead.  Pages that do not
 * hold the refcount expected are not freed: a put would free them under
 * their owner, or never; the case leaks them and says so.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mmzone.h>

#include "cases.h"

#define CONTIG_ORDER	MAX_PAGE_ORDER
#define CONTIG_PAGES	BIT(CONTIG_ORDER)
#define CONTIG_TRIES	8	/* a page in the range may be pinned a while */

#ifdef CONFIG_CONTIG_ALLOC

/* The pfn of a free, movable block of CONTIG_ORDER, given back at once. */
static int contig_find_block(unsigned long *pfn)
{
	struct page *page = alloc_pages(GFP_HIGHUSER_MOVABLE | __GFP_NOWARN |
					__GFP_NORETRY, CONTIG_ORDER);

	if (!page)
		return -ENOMEM;
	*pfn = page_to_pfn(page);
	__free_pages(page, CONTIG_ORDER);
	return 0;
}

/*
 * alloc_contig_range() of a block of CONTIG_ORDER with @gfp, retried on a
 * busy range; reports the tries and the pfn.
 */
static int contig_take(struct mfc_result *r, gfp_t gfp, unsigned long *pfn)
{
	unsigned int tries;
	int ret = -EBUSY;

	for (tries = 1; tries <= CONTIG_TRIES && ret; tries++) {
		ret = contig_find_block(pfn);
		if (ret)
			break;
		ret = alloc_contig_range(*pfn, *pfn + CONTIG_PAGES,
					 MIGRATE_MOVABLE, gfp | __GFP_NOWARN);
		if (ret && ret != -EBUSY && ret != -EINTR)
			break;
	}
	mfc_report(r, "order %u\ntries %u\npfn %#lx\n", CONTIG_ORDER,
		   tries - 1, *pfn);
	if (ret)
		pr_err("alloc_contig_range() of order %u failed %u times: %d\n",
		       CONTIG_ORDER, tries - 1, ret);
	return ret;
}

/* With __GFP_COMP: one compound page, its head refcounted, tails at 0. */
static int contig_compound(struct mfc_result *r, unsigned int arg)
{
	unsigned long pfn, i, tails_refcounted = 0;
	struct page *head;
	int ret;

	ret = contig_take(r, GFP_KERNEL | __GFP_COMP, &pfn);
	if (ret)
		return ret;
	head = pfn_to_page(pfn);
	for (i = 1; i < CONTIG_PAGES; i++)
		tails_refcounted += page_ref_count(head + i) != 0;
	mfc_report(r, "head %d\ncompound_order %u\nhead_refcount %d\n"
		   "tails_refcounted %lu\n", PageHead(head),
		   PageHead(head) ? compound_order(head) : 0,
		   page_ref_count(head), tails_refcounted);
	if (PageHead(head) && page_ref_count(head) == 1 && !tails_refcounted)
		__free_pages(head, CONTIG_ORDER);
	else
		mfc_report(r, "leaked %lu\n", CONTIG_PAGES);
	return 0;
}

/*
 * The @nr pages from @pfn that alloc_contig_range() handed out split:
 * reports how many do not hold the refcount of 1 their owner puts, and
 * gives them back if none, else leaks them.
 */
static void contig_give_back_split(struct mfc_result *r, unsigned long pfn,
				   unsigned long nr)
{
	unsigned long i, not_one = 0;

	for (i = 0; i < nr; i++)
		not_one += page_ref_count(pfn_to_page(pfn + i)) != 1;
	mfc_report(r, "pages %lu\npages_not_refcounted_once %lu\n", nr, not_one);
	if (!not_one)
		free_contig_range(pfn, nr);
	else
		mfc_report(r, "leaked %lu\n", nr);
}

/* Without __GFP_COMP: CONTIG_PAGES pages, each refcounted on its own. */
static int contig_split(struct mfc_result *r, unsigned int arg)
{
	unsigned long pfn;
	int ret;

	ret = contig_take(r, GFP_KERNEL, &pfn);
	if (ret)
		return ret;
	contig_give_back_split(r, pfn, CONTIG_PAGES);
	return 0;
}

/*
 * The pageblock around @pfn, where the test's process has a page:
 * alloc_contig_range() isolates the block, migrates the page out and
 * frees it into the isolated block (free_frozen_pages() gives it to
 * free_one_page(), not to a per-CPU list).  The block comes back split,
 * each page refcounted on its own.
 */
static int contig_migrate(struct mfc_result *r, unsigned int pfn)
{
	unsigned long start = ALIGN_DOWN(pfn, pageblock_nr_pages);
	int ret;

	if (!pfn_valid(pfn))
		return -EINVAL;
	mfc_report(r, "pfn %#lx\norder %u\n", start, pageblock_order);
	ret = alloc_contig_range(start, start + pageblock_nr_pages,
				 MIGRATE_MOVABLE, GFP_KERNEL | __GFP_NOWARN);
	if (ret)
		return ret;
	contig_give_back_split(r, start, pageblock_nr_pages);
	return 0;
}

#else /* !CONFIG_CONTIG_ALLOC */

static int contig_compound(struct mfc_result *r, unsigned int arg)
{
	return -EOPNOTSUPP;
}

static int contig_split(struct mfc_result *r, unsigned int arg)
{
	return -EOPNOTSUPP;
}

static int contig_migrate(struct mfc_result *r, unsigned int pfn)
{
	return -EOPNOTSUPP;
}

#endif /* CONFIG_CONTIG_ALLOC */

static const struct mfc_case contig_cases[] = {
	{ "contig_compound", contig_compound },
	{ "contig_split", contig_split },
	{ "contig_migrate", contig_migrate },
};

const struct mfc_group mfc_contig_group = {
	.cases = contig_cases,
	.nr_cases = ARRAY_SIZE(contig_cases),
};
