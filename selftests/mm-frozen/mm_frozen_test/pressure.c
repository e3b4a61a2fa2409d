// SPDX-License-Identifier: GPL-2.0
/*
 * The memory pressure cases of mm_frozen_cases: slab pages and plain
 * pages that the page allocator gives only through one of its slow paths,
 * every one of which the frozen-pages series changed (each gives a frozen
 * page now, and only the callers that want a refcount set it).
 *
 * The arena is ZONE_DMA.  Only GFP_DMA allocations take its pages (the
 * lowmem reserve keeps every other allocation out, and a test guest has
 * no page cache or anonymous pages there), so a case that holds its free
 * pages brings it to the watermark it wants while the rest of the guest
 * runs on.  The cases' allocations never wake kswapd, whose reclaim would
 * not be the case's.  Each case takes a slab page (a new slab, freed again
 * at once) and a plain page (alloc_pages()) through its path, and gives
 * the zone back before it returns:
 *
 *   min      the zone's free pages just below what the fast path's low
 *            watermark lets through: the slow path's first attempt, at the
 *            min watermark, finds the page.  Pages of order PR_MIN_ORDER
 *            and up (the slab of the cache mm_frozen_dma_big) take no
 *            per-CPU list, so the free count is exact.  A kprobe on
 *            get_page_from_freelist() counts the allocation's attempts by
 *            the watermark each checks.  -ERANGE if the zone's low and
 *            min watermarks are too close for that.
 *   reclaim  the zone at its min watermark, with PR_POOL_PAGES held pages
 *            that the case's shrinker gives back: direct reclaim frees
 *            them, and its attempt after reclaim finds the page
 *   nofail   nothing above min, counting the per-CPU lists and what the
 *            allocator's count of free pages may lag, and nothing to
 *            reclaim: an allocation with __GFP_NORETRY fails, and one
 *            with __GFP_NOFAIL falls back to the reserve below min
 *   oom      the zone down into the reserve of atomic allocations and
 *            nothing to reclaim: when the allocation gives up on reclaim
 *            (the reclaim_retry_zone tracepoint with a failed check), the
 *            case frees twice the high watermark's worth of held pages
 *            (some stay on the per-CPU lists, which no watermark counts),
 *            as a task that a parallel OOM kill ended would; the last
 *            attempt before the OOM killer, at the high watermark, is
 *            there to catch them.  -ENOENT without the tracepoint.
 *   compact  the zone filled with movable pages of the case's own (a
 *            driver's pages that compaction may move: movable_operations)
 *            and every other one of them freed, with no free block of
 *            PR_MIN_ORDER or more left: the direct compaction of an
 *            allocation of that order moves them (or flushes per-CPU
 *            lists whose pages complete a block) and finds the page.
 *            Plain pages only: slab pages are never movable, and direct
 *            compaction for an unmovable allocation first moves pages of
 *            unmovable blocks only.  -EOPNOTSUPP without compaction.
 *
 * Each reports, for KIND slab and page, KIND_refcount: the page's
 * refcount while in use (-1: the allocation failed), and what shows its
 * path: min's KIND_free_before, KIND_order and KIND_attempts_at_low,
 * KIND_attempts_at_min and KIND_attempts_other (the allocation's calls of
 * get_page_from_freelist(), by the watermark checked), reclaim's KIND_reclaimed
 * (pages the shrinker gave back during the allocation), nofail's
 * KIND_usable_free (what an allocation without reserves could get, per-CPU
 * lists included, before the attempts), KIND_vmstat_drift (how far the
 * allocator's count of free pages may be from the exact one),
 * KIND_pcp_pages and KIND_highatomic (parts of that count) and
 * KIND_noretry_failed (1 or 0), oom's KIND_freed_at_retry (pages freed at
 * the tracepoint), compact's page_compacted (1: the page came
 * from a direct compaction's success, by the kernel's count), page_tries
 * (allocations that took, PR_COMPACT_TRIES at most) and page_migrated
 * (the case's pages that compaction moved).
 */

#include <linux/gfp.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/swap.h>
#include <linux/tracepoint.h>
#include <linux/vmstat.h>

#include "cases.h"

/* Down to the min watermark, never below: no reclaim, no reserves. */
#define PR_FILL_GFP	(__GFP_NOWARN | __GFP_NOMEMALLOC)
/*
 * Down into the reserves of atomic allocations, below half the min
 * watermark: there reclaim's retry check fails even where it counts a
 * zone's free pages as reclaimable (Debian's 6.12, for a zone without LRU
 * pages).
 */
#define PR_DEEP_GFP	(__GFP_NOWARN | __GFP_HIGH)
/* One direct reclaim, then give up. */
#define PR_RECLAIM_GFP	(__GFP_DIRECT_RECLAIM | __GFP_NOWARN | __GFP_NORETRY)
#define PR_NOFAIL_GFP	(__GFP_DIRECT_RECLAIM | __GFP_NOFAIL)
/* Compacts directly (__GFP_IO lets it), then gives up. */
#define PR_COMPACT_GFP	(__GFP_DIRECT_RECLAIM | __GFP_IO | __GFP_NOWARN | \
			 __GFP_NORETRY | __GFP_MOVABLE)
/* Reclaims until reclaim cannot help, then fails instead of an OOM kill. */
#define PR_OOM_GFP	(__GFP_DIRECT_RECLAIM | __GFP_NOWARN | __GFP_RETRY_MAYFAIL)

#define PR_POOL_PAGES	128
#define PR_OBJ_SIZE	256
#define PR_MIN_ORDER	(PAGE_ALLOC_COSTLY_ORDER + 1)
/*
 * The direct compaction of an allocation that may fail is asynchronous:
 * it gives up when the task should reschedule or its scanners meet, and
 * the next one goes on where it stopped.  A block it completed without
 * catching it may also go to the attempt after it.
 */
#define PR_COMPACT_TRIES	8
/*
 * Pages to spare on either side of the min path's window: the allocator
 * reads the zone's free count as the case does, but vmstat's work may
 * fold another CPU's pending count into it in between.
 */
#define PR_FREE_SLACK	2
#define PR_RETRY_TP	"reclaim_retry_zone"
/*
 * Pages whose reclaim makes direct reclaim progress, and so a drain: two,
 * as the shrinker, of no seeks, is asked for half of what it has.
 */
#define PR_DRAIN_POOL	2
/* mm/internal.h's ALLOC_WMARK_MASK: the watermark an attempt checks */
#define PR_ALLOC_WMARK_MASK	0x03
/* and ALLOC_NO_WATERMARKS: an attempt that checks none */
#define PR_ALLOC_NO_WATERMARKS	0x04

/* What the min case's attempts checked, as it reports them. */
enum pr_attempt { PR_AT_LOW, PR_AT_MIN, PR_AT_OTHER, NR_PR_ATTEMPTS };

static const char * const pr_attempt_names[NR_PR_ATTEMPTS] = {
	"attempts_at_low", "attempts_at_min", "attempts_other",
};

enum pr_kind { PR_SLAB, PR_PAGE, NR_PR_KINDS };

static const char * const pr_kind_names[NR_PR_KINDS] = { "slab", "page" };

/* What a case holds of ZONE_DMA, and what its shrinker and probe see. */
struct pr_arena {
	struct zone *zone;
	struct task_struct *owner;	/* the case's task, while it runs */
	struct list_head held;		/* pages taken, their order as private */
	struct list_head pool;		/* held pages the shrinker gives back */
	struct list_head parallel;	/* held pages freed at the retry check */
	struct list_head movable;	/* pages compaction may move: lock */
	spinlock_t lock;
	unsigned long nr_pool, nr_parallel;
	unsigned long reclaimed, freed_at_retry, migrated;
	int attempt_order;		/* counted where >= 0 */
	unsigned int attempts[NR_PR_ATTEMPTS];
};

static DEFINE_MUTEX(pr_lock);
static struct pr_arena pr_arena = {
	.held = LIST_HEAD_INIT(pr_arena.held),
	.pool = LIST_HEAD_INIT(pr_arena.pool),
	.parallel = LIST_HEAD_INIT(pr_arena.parallel),
	.movable = LIST_HEAD_INIT(pr_arena.movable),
	.lock = __SPIN_LOCK_UNLOCKED(pr_arena.lock),
	.attempt_order = -1,
};

static struct kmem_cache *pr_cache;	/* slabs of order 0 */
static struct kmem_cache *pr_big_cache;	/* one object a slab, PR_MIN_ORDER up */
static unsigned int pr_big_order;
static struct shrinker *pr_shrinker;
static struct tracepoint *pr_retry_tp;
static const struct movable_operations pr_mops;

/* Frees up to @max pages of @list; returns how many blocks. */
static unsigned long pr_free_pages(struct list_head *list, unsigned long max)
{
	struct page *page, *next;
	unsigned long n = 0;
	unsigned int order;

	list_for_each_entry_safe(page, next, list, lru) {
		if (n == max)
			break;
		list_del(&page->lru);
		order = page_private(page);
		set_page_private(page, 0);
		__free_pages(page, order);
		n++;
	}
	return n;
}

/* Moves up to @max pages from @from to @to; returns how many. */
static unsigned long pr_move_pages(struct list_head *from, struct list_head *to,
				   unsigned long max)
{
	unsigned long n = 0;

	while (n < max && !list_empty(from)) {
		list_move(from->next, to);
		n++;
	}
	return n;
}

static struct page *pr_take(struct pr_arena *a, gfp_t gfp, unsigned int order)
{
	struct page *page = alloc_pages(gfp | GFP_DMA, order);

	if (page) {
		set_page_private(page, order);
		list_add(&page->lru, &a->held);
	}
	return page;
}

static struct page *pr_take_movable(struct pr_arena *a)
{
	struct page *page = alloc_pages(PR_FILL_GFP | GFP_DMA | __GFP_MOVABLE, 0);

	if (!page)
		return NULL;
	lock_page(page);
	__SetPageMovable(page, &pr_mops);
	unlock_page(page);
	spin_lock(&a->lock);
	list_add(&page->lru, &a->movable);
	spin_unlock(&a->lock);
	return page;
}

/* Frees the movable pages, or only those whose pfn is odd. */
static void pr_free_movable(struct pr_arena *a, bool odd_only)
{
	struct page *page, *next;
	LIST_HEAD(gone);

	spin_lock(&a->lock);
	list_for_each_entry_safe(page, next, &a->movable, lru)
		if (!odd_only || (page_to_pfn(page) & 1))
			list_move(&page->lru, &gone);
	spin_unlock(&a->lock);
	list_for_each_entry_safe(page, next, &gone, lru) {
		list_del(&page->lru);
		lock_page(page);
		__ClearPageMovable(page);
		unlock_page(page);
		put_page(page);
	}
}

static unsigned long pr_free_now(const struct pr_arena *a)
{
	return zone_page_state(a->zone, NR_FREE_PAGES);
}

/* The same, with the counts that CPUs have not folded in yet. */
static unsigned long pr_free_exact(const struct pr_arena *a)
{
	return zone_page_state_snapshot(a->zone, NR_FREE_PAGES);
}

/*
 * Holds blocks of @order while the zone has more than @mark free pages
 * (0: all that @gfp may take).
 */
static void pr_fill(struct pr_arena *a, unsigned long mark, gfp_t gfp,
		    unsigned int order)
{
	while (!mark || pr_free_now(a) > mark)
		if (!pr_take(a, gfp, order))
			return;
}

/*
 * One page of @kind and @order with @gfp: its refcount, -1 if there is
 * none.  A slab object needs a new slab, the cache being empty; it is
 * freed and its slab with it, so that the next one needs a new slab too.
 */
static int pr_alloc(struct pr_arena *a, enum pr_kind kind, gfp_t gfp,
		    unsigned int order)
{
	struct kmem_cache *cache = order ? pr_big_cache : pr_cache;
	struct page *page;
	void *obj;
	int ref;

	if (kind == PR_PAGE) {
		page = pr_take(a, gfp, order);
		return page ? page_ref_count(page) : -1;
	}
	obj = kmem_cache_alloc(cache, gfp);
	if (!obj)
		return -1;
	ref = folio_ref_count(virt_to_folio(obj));
	kmem_cache_free(cache, obj);
	kmem_cache_shrink(cache);
	return ref;
}

static void pr_report(struct mfc_result *r, enum pr_kind kind,
		      const char *item, long value)
{
	mfc_report(r, "%s_%s %ld\n", pr_kind_names[kind], item, value);
}

/*
 * Each call of get_page_from_freelist() for a ZONE_DMA block of the order
 * that the min case counts, in the case's task, by the watermark it
 * checks: the fast path checks low, the slow path's first attempt min.
 */
static int pr_on_attempt(struct kprobe *p, struct pt_regs *regs)
{
	struct pr_arena *a = &pr_arena;
	gfp_t gfp = (__force gfp_t)regs_get_kernel_argument(regs, 0);
	unsigned long order = regs_get_kernel_argument(regs, 1);
	unsigned long flags = regs_get_kernel_argument(regs, 2);
	enum pr_attempt at = PR_AT_OTHER;

	if (current != READ_ONCE(a->owner) || !(gfp & __GFP_DMA) ||
	    order != READ_ONCE(a->attempt_order))
		return 0;
	if (!(flags & PR_ALLOC_NO_WATERMARKS)) {
		if ((flags & PR_ALLOC_WMARK_MASK) == WMARK_LOW)
			at = PR_AT_LOW;
		else if ((flags & PR_ALLOC_WMARK_MASK) == WMARK_MIN)
			at = PR_AT_MIN;
	}
	a->attempts[at]++;
	return 0;
}

/* pr_alloc(), with its attempts at @order counted and reported. */
static int pr_alloc_counted(struct pr_arena *a, struct mfc_result *r,
			    enum pr_kind kind, gfp_t gfp, unsigned int order)
{
	enum pr_attempt at;
	int ref;

	memset(a->attempts, 0, sizeof(a->attempts));
	WRITE_ONCE(a->attempt_order, order);
	ref = pr_alloc(a, kind, gfp, order);
	WRITE_ONCE(a->attempt_order, -1);
	for (at = 0; at < NR_PR_ATTEMPTS; at++)
		pr_report(r, kind, pr_attempt_names[at], a->attempts[at]);
	return ref;
}

/*
 * An allocation of order o fails the fast path's low watermark with the
 * zone at most at low + 2^o - 1 free pages, and passes the slow path's
 * min watermark with at least min + 2^o.
 */
static int pr_min(struct pr_arena *a, struct mfc_result *r, enum pr_kind kind)
{
	unsigned int order = kind == PR_PAGE ? PR_MIN_ORDER : pr_big_order;
	unsigned long size = 1UL << order, free;

	pr_fill(a, low_wmark_pages(a->zone) + size - 1 - PR_FREE_SLACK,
		PR_FILL_GFP, PR_MIN_ORDER);
	free = pr_free_now(a);
	if (free < min_wmark_pages(a->zone) + size + PR_FREE_SLACK)
		return -ERANGE;
	pr_report(r, kind, "free_before", free);
	pr_report(r, kind, "order", order);
	pr_report(r, kind, "refcount",
		  pr_alloc_counted(a, r, kind, PR_FILL_GFP, order));
	return 0;
}

/* Held pages for the shrinker: direct reclaim then makes progress. */
static void pr_pool(struct pr_arena *a, unsigned long nr)
{
	a->nr_pool = pr_move_pages(&a->held, &a->pool, nr);
	a->reclaimed = 0;
}

static void pr_unpool(struct pr_arena *a)
{
	a->nr_pool = 0;
	list_splice_init(&a->pool, &a->held);
}

static int pr_reclaim(struct pr_arena *a, struct mfc_result *r,
		      enum pr_kind kind)
{
	pr_fill(a, 0, PR_FILL_GFP, 0);
	pr_pool(a, PR_POOL_PAGES);
	pr_report(r, kind, "refcount", pr_alloc(a, kind, PR_RECLAIM_GFP, 0));
	pr_report(r, kind, "reclaimed", a->reclaimed);
	pr_unpool(a);
	return 0;
}

/* The zone's pages on per-CPU lists, which no watermark counts. */
static unsigned long pr_pcp_pages(const struct pr_arena *a)
{
	unsigned long n = 0;
	int cpu;

	for_each_online_cpu(cpu)
		n += READ_ONCE(per_cpu_ptr(a->zone->per_cpu_pageset, cpu)->count);
	return n;
}

/*
 * What an allocation without reserves could still get from the zone: its
 * free pages (with the counts that CPUs have not folded in yet), the pages
 * on its per-CPU lists, which a drain gives back, less the high-order
 * atomic reserve, which the watermark of such an allocation leaves out.
 */
static long pr_usable_free(const struct pr_arena *a)
{
	return pr_free_exact(a) + pr_pcp_pages(a) -
	       READ_ONCE(a->zone->nr_reserved_highatomic);
}

/*
 * How far the free count that the allocator reads may be from the exact
 * one: each CPU folds its pending count in once it passes its threshold.
 */
static long pr_vmstat_drift(const struct pr_arena *a)
{
	long drift = 0;
	int cpu;

	for_each_online_cpu(cpu)
		drift += per_cpu_ptr(a->zone->per_cpu_zonestats, cpu)->stat_threshold;
	return drift;
}

/*
 * With the zone at min, drains every CPU's lists into the free lists: an
 * allocation that may reclaim does that (drain_all_pages(), which a module
 * cannot call) when its reclaim made progress and the free lists still
 * fail the watermark.  PR_DRAIN_POOL pages in the pool are that progress;
 * the page that the allocation may then get is held.
 */
static void pr_drain(struct pr_arena *a)
{
	pr_pool(a, PR_DRAIN_POOL);
	pr_take(a, PR_RECLAIM_GFP, 0);
	pr_unpool(a);
}

/*
 * Nothing above min for an allocation without reserves, whatever a drain
 * of the per-CPU lists or a fold of the counts shows it.  The fill stops
 * where the allocator sees the zone at min, with pages on per-CPU lists:
 * what earlier frees left there, and what each refill took beyond the page
 * it needed.  A drain brings them back to the free lists.  Allocations that
 * may go below min then bring the usable count down to min less the
 * drift: each takes one page, and a refill only moves pages from the free
 * lists to a per-CPU list.
 */
static void pr_fill_all(struct pr_arena *a)
{
	long limit = min_wmark_pages(a->zone) - pr_vmstat_drift(a);

	pr_fill(a, 0, PR_FILL_GFP, 0);
	pr_drain(a);
	while (pr_usable_free(a) > limit)
		if (!pr_take(a, PR_DEEP_GFP, 0))
			return;
}

/*
 * The __GFP_NOFAIL allocation gets PR_DRAIN_POOL pages of progress from
 * its first reclaim, and so a drain: what is left on per-CPU lists is in
 * the free lists when it falls back to the reserve, which takes pages down
 * to half of min only.  The pool's pages do not bring the zone above min:
 * they are fewer than the drift.  -ERANGE where min less the drift is not
 * above half of min.
 */
static int pr_nofail(struct pr_arena *a, struct mfc_result *r,
		     enum pr_kind kind)
{
	if (pr_vmstat_drift(a) + PR_DRAIN_POOL >= min_wmark_pages(a->zone) / 2)
		return -ERANGE;
	pr_fill_all(a);
	pr_report(r, kind, "drain_reclaimed", a->reclaimed);
	pr_report(r, kind, "usable_free", pr_usable_free(a));
	pr_report(r, kind, "vmstat_drift", pr_vmstat_drift(a));
	pr_report(r, kind, "pcp_pages", pr_pcp_pages(a));
	pr_report(r, kind, "highatomic", READ_ONCE(a->zone->nr_reserved_highatomic));
	pr_report(r, kind, "noretry_failed",
		  pr_alloc(a, kind, PR_RECLAIM_GFP, 0) < 0);
	pr_pool(a, PR_DRAIN_POOL);
	pr_report(r, kind, "refcount", pr_alloc(a, kind, PR_NOFAIL_GFP, 0));
	pr_report(r, kind, "nofail_reclaimed", a->reclaimed);
	pr_unpool(a);
	return 0;
}

static int pr_oom(struct pr_arena *a, struct mfc_result *r, enum pr_kind kind)
{
	pr_fill(a, 0, PR_DEEP_GFP, 0);
	a->nr_parallel = pr_move_pages(&a->held, &a->parallel,
				       2 * high_wmark_pages(a->zone));
	a->freed_at_retry = 0;
	pr_report(r, kind, "refcount", pr_alloc(a, kind, PR_OOM_GFP, 0));
	pr_report(r, kind, "freed_at_retry", a->freed_at_retry);
	a->nr_parallel = 0;
	list_splice_init(&a->parallel, &a->held);
	return 0;
}

/* Direct compactions that gave their allocation its page, so far. */
static unsigned long pr_compact_successes(void)
{
	unsigned long n = 0;
#ifdef CONFIG_COMPACTION
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(vm_event_states, cpu).event[COMPACTSUCCESS];
#endif
	return n;
}

/*
 * The zone's free pages in holes of one page between movable pages, and
 * no free block of PR_MIN_ORDER or more: its allocation must compact.
 */
static int pr_compact(struct pr_arena *a, struct mfc_result *r,
		      enum pr_kind kind)
{
	unsigned long successes;
	unsigned int tries = 0;
	bool compacted;
	int ref;

	if (kind != PR_PAGE)
		return 0;
	while (pr_take_movable(a))
		;
	pr_free_movable(a, true);
	a->migrated = 0;
	do {
		/* Also the blocks that per-CPU list flushes completed since. */
		pr_fill(a, 0, PR_FILL_GFP, PR_MIN_ORDER);
		successes = pr_compact_successes();
		ref = pr_alloc(a, kind, PR_COMPACT_GFP, PR_MIN_ORDER);
		compacted = pr_compact_successes() != successes;
		tries++;
	} while (!(ref >= 0 && compacted) && tries < PR_COMPACT_TRIES);
	pr_report(r, kind, "refcount", ref);
	pr_report(r, kind, "compacted", compacted);
	pr_report(r, kind, "tries", tries);
	pr_report(r, kind, "migrated", a->migrated);
	pr_free_movable(a, false);
	return 0;
}

/* Compaction moves the case's pages only for the case's own allocation. */
static bool pr_isolate(struct page *page, isolate_mode_t mode)
{
	struct pr_arena *a = &pr_arena;

	if (current != READ_ONCE(a->owner))
		return false;
	spin_lock(&a->lock);
	list_del(&page->lru);
	spin_unlock(&a->lock);
	return true;
}

static void pr_putback(struct page *page)
{
	struct pr_arena *a = &pr_arena;

	spin_lock(&a->lock);
	list_add(&page->lru, &a->movable);
	spin_unlock(&a->lock);
}

/* The case's reference moves from @src to @dst; nothing to copy. */
static int pr_migrate(struct page *dst, struct page *src, enum migrate_mode mode)
{
	struct pr_arena *a = &pr_arena;

	get_page(dst);
	__SetPageMovable(dst, &pr_mops);
	spin_lock(&a->lock);
	list_add(&dst->lru, &a->movable);
	a->migrated++;
	spin_unlock(&a->lock);
	__ClearPageMovable(src);
	put_page(src);
	return MIGRATEPAGE_SUCCESS;
}

static const struct movable_operations pr_mops = {
	.isolate_page = pr_isolate,
	.migrate_page = pr_migrate,
	.putback_page = pr_putback,
};

/*
 * Only the case's own reclaim may take the pool back: kswapd's or
 * another task's would empty it at a moment the case cannot know.
 */
static unsigned long pr_count(struct shrinker *s, struct shrink_control *sc)
{
	struct pr_arena *a = s->private_data;

	if (current != READ_ONCE(a->owner))
		return 0;
	return a->nr_pool ?: SHRINK_EMPTY;
}

static unsigned long pr_scan(struct shrinker *s, struct shrink_control *sc)
{
	struct pr_arena *a = s->private_data;
	unsigned long freed;

	if (current != READ_ONCE(a->owner))
		return SHRINK_STOP;
	freed = pr_free_pages(&a->pool, sc->nr_to_scan);
	a->nr_pool -= freed;
	a->reclaimed += freed;
	/* Reclaim's progress: without any, no attempt follows the reclaim. */
	mm_account_reclaimed_pages(freed);
	return freed;
}

/*
 * should_reclaim_retry() has found that reclaim cannot bring the zone to
 * its min watermark (@wmark_check false): the allocation goes on to the
 * OOM path.  Free pages now, as an OOM victim's exit would.
 */
static void pr_on_retry_zone(void *data, struct zoneref *zoneref, int order,
			     unsigned long reclaimable, unsigned long available,
			     unsigned long min_wmark, int no_progress_loops,
			     bool wmark_check)
{
	struct pr_arena *a = data;

	if (current != READ_ONCE(a->owner) || wmark_check || !a->nr_parallel)
		return;
	a->freed_at_retry += pr_free_pages(&a->parallel, a->nr_parallel);
	a->nr_parallel = 0;
}

static void pr_find_retry_tp(struct tracepoint *tp, void *unused)
{
	if (!strcmp(tp->name, PR_RETRY_TP))
		pr_retry_tp = tp;
}

/*
 * Runs @path for each kind in a zone the case holds from its first page
 * on, and gives the zone back.
 */
static int pr_run(struct mfc_result *r,
		  int (*path)(struct pr_arena *a, struct mfc_result *r,
			      enum pr_kind kind))
{
	struct pr_arena *a = &pr_arena;
	enum pr_kind kind;
	struct page *page;
	int ret = 0;

	/* Without ZONE_DMA, GFP_DMA takes from the zones everything needs. */
	if (!IS_ENABLED(CONFIG_ZONE_DMA))
		return -ENODEV;
	mutex_lock(&pr_lock);
	page = pr_take(a, PR_FILL_GFP, 0);
	if (page) {
		a->zone = page_zone(page);
		WRITE_ONCE(a->owner, current);
		for (kind = 0; !ret && kind < NR_PR_KINDS; kind++)
			ret = path(a, r, kind);
		WRITE_ONCE(a->owner, NULL);
	}
	pr_free_pages(&a->held, ULONG_MAX);
	mutex_unlock(&pr_lock);
	return page ? ret : -ENOMEM;
}

static int pr_case_min(struct mfc_result *r, unsigned int unused)
{
	/* On the stack: a kprobe once registered keeps its address. */
	struct kprobe probe = {
		.symbol_name = "get_page_from_freelist",
		.pre_handler = pr_on_attempt,
	};
	int ret = register_kprobe(&probe);

	if (ret)
		return ret;
	ret = pr_run(r, pr_min);
	unregister_kprobe(&probe);
	return ret;
}

static int pr_case_reclaim(struct mfc_result *r, unsigned int unused)
{
	return pr_run(r, pr_reclaim);
}

static int pr_case_nofail(struct mfc_result *r, unsigned int unused)
{
	return pr_run(r, pr_nofail);
}

static int pr_case_compact(struct mfc_result *r, unsigned int unused)
{
	if (!IS_ENABLED(CONFIG_COMPACTION))
		return -EOPNOTSUPP;
	return pr_run(r, pr_compact);
}

static int pr_case_oom(struct mfc_result *r, unsigned int unused)
{
	int ret;

	if (!pr_retry_tp)
		return -ENOENT;
	ret = tracepoint_probe_register(pr_retry_tp, pr_on_retry_zone, &pr_arena);
	if (ret)
		return ret;
	ret = pr_run(r, pr_oom);
	tracepoint_probe_unregister(pr_retry_tp, pr_on_retry_zone, &pr_arena);
	tracepoint_synchronize_unregister();
	return ret;
}

static const struct mfc_case pr_cases[] = {
	{ "slow_min", pr_case_min },
	{ "slow_reclaim", pr_case_reclaim },
	{ "slow_nofail", pr_case_nofail },
	{ "slow_oom", pr_case_oom },
	{ "slow_compact", pr_case_compact },
};

/* The order of the big cache's slabs: PR_MIN_ORDER, or more for debug data. */
static int pr_measure_big_order(void)
{
	void *obj = kmem_cache_alloc(pr_big_cache, GFP_KERNEL);

	if (!obj)
		return -ENOMEM;
	pr_big_order = folio_order(virt_to_folio(obj));
	kmem_cache_free(pr_big_cache, obj);
	kmem_cache_shrink(pr_big_cache);
	return 0;
}

static void pr_destroy_caches(void)
{
	kmem_cache_destroy(pr_big_cache);
	kmem_cache_destroy(pr_cache);
}

/*
 * SLAB_NOLEAKTRACE: kmemleak's object for each of the caches' would be
 * allocated in the case's task, under the pressure the case makes.
 */
static int pr_init(void)
{
	const slab_flags_t flags = SLAB_CACHE_DMA | SLAB_NO_MERGE | SLAB_NOLEAKTRACE;

	for_each_kernel_tracepoint(pr_find_retry_tp, NULL);
	pr_cache = kmem_cache_create("mm_frozen_dma", PR_OBJ_SIZE, 0, flags, NULL);
	pr_big_cache = kmem_cache_create("mm_frozen_dma_big",
					 PAGE_SIZE << PR_MIN_ORDER, 0, flags, NULL);
	pr_shrinker = shrinker_alloc(0, "mm_frozen_dma");
	if (!pr_cache || !pr_big_cache || !pr_shrinker || pr_measure_big_order()) {
		shrinker_free(pr_shrinker);
		pr_destroy_caches();
		return -ENOMEM;
	}
	pr_shrinker->count_objects = pr_count;
	pr_shrinker->scan_objects = pr_scan;
	/* Costs nothing to make again: reclaim may take half at a time. */
	pr_shrinker->seeks = 0;
	pr_shrinker->batch = 16;
	pr_shrinker->private_data = &pr_arena;
	shrinker_register(pr_shrinker);
	return 0;
}

static void pr_exit(void)
{
	shrinker_free(pr_shrinker);
	pr_destroy_caches();
}

const struct mfc_group mfc_pressure_group = {
	.cases = pr_cases,
	.nr_cases = ARRAY_SIZE(pr_cases),
	.init = pr_init,
	.exit = pr_exit,
};
