// SPDX-License-Identifier: GPL-2.0
/*
 * The free cases of the mm-frozen tests: two frees that 0003 sends to
 * free_frozen_pages(), on paths that nothing else in the guest takes
 * for sure.  The test traces which pages were freed (page_trace.h).
 *
 *   free_held   __free_pages() of a non-compound page of FREE_HELD_ORDER
 *               while another reference holds its first page, as a
 *               speculative get_page_unless_zero() of a pfn walker can:
 *               __free_pages() frees every page but the first, which the
 *               holder's put_page() frees.
 *   frag_last   a page fragment cache that moves on to a new page while
 *               fragments of its old one are still out: the last
 *               page_frag_free() of those frees the old page.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/mm.h>

#include "cases.h"

#define FREE_HELD_ORDER	2
/* Whole-page fragments: those of the largest cache page, and one more */
#define FRAGS_MAX	(PAGE_FRAG_CACHE_MAX_SIZE / PAGE_SIZE + 1)

static int free_held(struct mfc_result *r, unsigned int arg)
{
	struct page *page = alloc_pages(GFP_KERNEL, FREE_HELD_ORDER);

	if (!page)
		return -ENOMEM;
	get_page(page);		/* the other reference */
	__free_pages(page, FREE_HELD_ORDER);
	mfc_report(r, "pfn %#lx\norder %u\nrefcount_after_free %d\n",
		   page_to_pfn(page), FREE_HELD_ORDER, page_ref_count(page));
	put_page(page);
	return 0;
}

/*
 * Takes whole-page fragments of @nc into @frags until one comes from
 * another page than the first, or none comes: how many it took.
 */
static int frag_fill(struct page_frag_cache *nc, void **frags)
{
	int n;

	for (n = 0; n < FRAGS_MAX; n++) {
		frags[n] = page_frag_alloc(nc, PAGE_SIZE, GFP_KERNEL);
		if (!frags[n])
			break;
		if (virt_to_head_page(frags[n]) != virt_to_head_page(frags[0]))
			return n + 1;
	}
	return n;
}

static int frag_last(struct mfc_result *r, unsigned int arg)
{
	struct page_frag_cache nc = {};
	void *frags[FRAGS_MAX];
	struct page *old;
	bool moved;
	int n, i;

	n = frag_fill(&nc, frags);
	old = n ? virt_to_head_page(frags[0]) : NULL;
	moved = n > 1 && virt_to_head_page(frags[n - 1]) != old;
	/* the fragments of the old page that are out hold it */
	if (moved)
		mfc_report(r, "pfn %#lx\norder %u\nfrags_out %d\nrefcount_after_move %d\n",
			   page_to_pfn(old), compound_order(old), n - 1,
			   page_ref_count(old));
	for (i = 0; i < n; i++)
		page_frag_free(frags[i]);
	page_frag_cache_drain(&nc);
	return moved ? 0 : -ENOMEM;
}

static const struct mfc_case frees_cases[] = {
	{ "free_held", free_held },
	{ "frag_last", frag_last },
};

const struct mfc_group mfc_frees_group = {
	.cases = frees_cases,
	.nr_cases = ARRAY_SIZE(frees_cases),
};
