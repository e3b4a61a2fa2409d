// SPDX-License-Identifier: GPL-2.0
/*
 * The fault injection cases of mm_frozen_cases: page allocations that
 * fail inside slab and inside the memcg charge, while the test has set up
 * fail_page_alloc, fail-nth or a tight memory.max for the task that writes
 * the case file.  Within a case nothing allocates but what is under test,
 * so that the failures injected can be counted exactly.
 *
 *   churn      ROUNDS rounds of FT_CHURN_OBJS allocations from the cache
 *              mm_frozen_churn (FT_OBJ_SIZE bytes: slabs of the cache's
 *              order, of order 0 when that allocation fails), each round
 *              freed and shrunk, so that every round allocates new slabs
 *              and frees them
 *   one_alloc  one allocation from the emptied mm_frozen_churn: with
 *              fail-nth set to 1, its first slab page allocation fails
 *   charge     N page allocations with __GFP_ACCOUNT, orders 0 to
 *              FT_CHARGE_MAX_ORDER in turn, all held, then freed: near
 *              memory.max the charge fails inside __alloc_frozen_pages(),
 *              which then frees the page itself
 */

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "cases.h"

#define FT_OBJ_SIZE		2048
#define FT_CHURN_OBJS		128
#define FT_MAX_ROUNDS		10000
#define FT_CHARGE_MAX		4096
#define FT_CHARGE_MAX_ORDER	4

static struct kmem_cache *ft_cache;

/* The cases' working sets: static, so that a case allocates nothing else. */
static DEFINE_MUTEX(ft_lock);
static void *ft_objs[FT_CHURN_OBJS];
static struct folio *ft_slabs[FT_CHURN_OBJS];
static struct page *ft_pages[FT_CHARGE_MAX];

struct ft_churn {
	unsigned long allocs, failed, slabs;
	unsigned long slabs_of_order[NR_PAGE_ORDERS];
};

/* Counts the slab of @obj if this round has not seen it yet. */
static void ft_count_slab(struct ft_churn *c, unsigned int *nr_slabs, void *obj)
{
	struct folio *folio = virt_to_folio(obj);
	unsigned int i;

	for (i = 0; i < *nr_slabs; i++)
		if (ft_slabs[i] == folio)
			return;
	ft_slabs[(*nr_slabs)++] = folio;
	c->slabs++;
	c->slabs_of_order[folio_order(folio)]++;
}

static void ft_churn_round(struct ft_churn *c)
{
	unsigned int i, nr = 0, nr_slabs = 0;
	void *obj;

	for (i = 0; i < FT_CHURN_OBJS; i++) {
		c->allocs++;
		obj = kmem_cache_alloc(ft_cache, GFP_KERNEL | __GFP_NOWARN);
		if (!obj) {
			c->failed++;
			continue;
		}
		ft_count_slab(c, &nr_slabs, obj);
		ft_objs[nr++] = obj;
	}
	while (nr)
		kmem_cache_free(ft_cache, ft_objs[--nr]);
	/* Frees the empty slabs, so that the next round allocates anew. */
	kmem_cache_shrink(ft_cache);
}

static int ft_churn(struct mfc_result *r, unsigned int rounds)
{
	struct ft_churn c = {};
	unsigned int i;

	if (!rounds || rounds > FT_MAX_ROUNDS)
		return -EINVAL;
	mutex_lock(&ft_lock);
	for (i = 0; i < rounds; i++)
		ft_churn_round(&c);
	mutex_unlock(&ft_lock);

	mfc_report(r, "rounds %u\n", rounds);
	mfc_report(r, "allocs %lu\n", c.allocs);
	mfc_report(r, "failed %lu\n", c.failed);
	mfc_report(r, "slabs %lu\n", c.slabs);
	for (i = 0; i < NR_PAGE_ORDERS; i++)
		if (c.slabs_of_order[i])
			mfc_report(r, "slabs_of_order_%u %lu\n", i,
				   c.slabs_of_order[i]);
	return 0;
}

static int ft_one_alloc(struct mfc_result *r, unsigned int unused)
{
	void *obj;

	mutex_lock(&ft_lock);
	kmem_cache_shrink(ft_cache);
	obj = kmem_cache_alloc(ft_cache, GFP_KERNEL | __GFP_NOWARN);
	mfc_report(r, "allocated %d\n", !!obj);
	if (obj) {
		mfc_report(r, "slab_order %u\n", folio_order(virt_to_folio(obj)));
		kmem_cache_free(ft_cache, obj);
		kmem_cache_shrink(ft_cache);
	}
	mutex_unlock(&ft_lock);
	return 0;
}

static int ft_charge(struct mfc_result *r, unsigned int attempts)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NORETRY | __GFP_NOWARN;
	unsigned long failed_of_order[FT_CHARGE_MAX_ORDER + 1] = {};
	unsigned long failed = 0, pages = 0;
	unsigned int i, order;

	if (!attempts || attempts > FT_CHARGE_MAX)
		return -EINVAL;
	mutex_lock(&ft_lock);
	for (i = 0; i < attempts; i++) {
		order = i % (FT_CHARGE_MAX_ORDER + 1);
		ft_pages[i] = alloc_pages(gfp, order);
		if (!ft_pages[i]) {
			failed++;
			failed_of_order[order]++;
			continue;
		}
		pages += 1UL << order;
	}
	for (i = 0; i < attempts; i++)
		if (ft_pages[i])
			__free_pages(ft_pages[i], i % (FT_CHARGE_MAX_ORDER + 1));
	mutex_unlock(&ft_lock);

	mfc_report(r, "attempts %u\n", attempts);
	mfc_report(r, "failed %lu\n", failed);
	for (order = 0; order <= FT_CHARGE_MAX_ORDER; order++)
		mfc_report(r, "failed_of_order_%u %lu\n", order,
			   failed_of_order[order]);
	mfc_report(r, "pages_allocated %lu\n", pages);
	return 0;
}

static const struct mfc_case ft_cases[] = {
	{ "churn", ft_churn },
	{ "one_alloc", ft_one_alloc },
	{ "charge", ft_charge },
};

/*
 * SLAB_NOLEAKTRACE: kmemleak would allocate its own object for each of
 * the cache's, from the task under fail_page_alloc, and the failures
 * injected there are not the cache's.
 */
static int ft_init(void)
{
	ft_cache = kmem_cache_create("mm_frozen_churn", FT_OBJ_SIZE, 0,
				     SLAB_NO_MERGE | SLAB_NOLEAKTRACE, NULL);
	return ft_cache ? 0 : -ENOMEM;
}

static void ft_exit(void)
{
	kmem_cache_destroy(ft_cache);
}

const struct mfc_group mfc_fault_group = {
	.cases = ft_cases,
	.nr_cases = ARRAY_SIZE(ft_cases),
	.init = ft_init,
	.exit = ft_exit,
};
