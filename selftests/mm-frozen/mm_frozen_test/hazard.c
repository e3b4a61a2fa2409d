// SPDX-License-Identifier: GPL-2.0
/*
 * The hazard cases of mm_frozen_cases: do to slab pages, on demand, what
 * callers outside mm/ have done to them, take and drop page references.
 * Once slab pages are frozen (refcount 0), a get_page() and its put_page()
 * free a live slab unless "mm: Decline to manipulate the refcount on a
 * slab page" makes both leave slab pages alone.  Refcounts reported are
 * those of the page's folio.
 *
 *   probe        the refcount of a kmalloc() object's slab page, and
 *                nothing else: 0 where slab pages are frozen
 *   bvec         an ITER_BVEC over a kmalloc() object of the size
 *                written; iov_iter_get_pages2() and the put_page() loop
 *                that its callers do, as nvme-tcp over TLS did
 *   bvec_debug   the same over an object of the debug cache
 *                mm_frozen_hazard (red zones, poison, consistency
 *                checks), so that its "validate" can check the slab
 *   put          put_page() alone on a kmalloc() object's page
 *   get_put      get_page(), then put_page()
 *   page_frag    get_page() and put_page() on page_frag_alloc() memory
 *   ref_inc      folio_ref_inc() on a frozen slab page, then the cache
 *                is destroyed; the reference is dropped last if 1 was
 *                written (only where the kernel leaves such a page to
 *                its references: CONFIG_DEBUG_FROZEN_PAGES)
 *   spec_ref     get_page_unless_zero() and put_page() on a slab page
 *                (a refcounted one: slab_frozen=0), then the same
 *   bvec_folios  an ITER_BVEC over two pages that are two folios (0
 *                written: an order-1 page split) or one (1: a compound
 *                order-1 page), their references taken and dropped as
 *                bvec does; each page's refcount reported
 *   tee_shm      tee_shm_register_kernel_buf() of a kmalloc() object (0
 *                written) or of a page of the page allocator (1), with
 *                a TEE device of the case's own, then tee_shm_free();
 *                the page's refcount at each step (CONFIG_TEE only)
 *
 * The cases on kmalloc() and mm_frozen_hazard objects take theirs from a
 * frozen slab where there is one (hz_alloc_in_frozen_slab()).
 */

#include <linux/bvec.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/tee_core.h>
#include <linux/tee_drv.h>
#include <linux/uio.h>

#include "cases.h"

#define HZ_MAX_PAGES	16
#define HZ_MAX_SIZE	(HZ_MAX_PAGES * PAGE_SIZE)
#define HZ_DEBUG_SIZE	512
#define HZ_PATTERN	0x5a
/* what hz_alloc_in_frozen_slab() may take from refcounted slabs */
#define HZ_MAX_PASSED_BYTES	SZ_16M

static struct kmem_cache *hz_debug_cache;

static void hz_report_page(struct mfc_result *r, const char *what,
			   struct page *page)
{
	mfc_report(r, "%s %d\n", what, page_count(page));
}

static void hz_report_kind(struct mfc_result *r, struct page *page)
{
	mfc_report(r, "slab %d\n", PageSlab(page));
	mfc_report(r, "sendpage_ok %d\n", sendpage_ok(page));
}

/*
 * Reads every byte, as a user of the object would: KASAN checks these
 * reads (not memchr_inv()'s: lib/string.c is not instrumented), so that
 * an object whose slab was freed under it is reported here.
 */
static bool hz_intact(const void *obj, size_t len)
{
	const u8 *p = obj;
	size_t i;

	for (i = 0; i < len; i++)
		if (READ_ONCE(p[i]) != HZ_PATTERN)
			return false;
	return true;
}

/*
 * Gets the pages of @obj from an ITER_BVEC with iov_iter_get_pages2(),
 * chunk by chunk, and releases each chunk with put_page(), as TLS does
 * through sk_msg_zerocopy_from_iter() and sk_msg_free() (the nvme-tcp
 * crash).  Reports the highest and lowest refcount seen on those pages
 * after the gets and after the puts.
 */
static int hz_bvec_get_pages(struct mfc_result *r, void *obj, size_t len)
{
	struct page *pages[HZ_MAX_PAGES];
	int max_got = INT_MIN, min_put = INT_MAX, max_put = INT_MIN;
	unsigned int nr_pages = 0, i, n;
	struct iov_iter iter;
	struct bio_vec bv;
	ssize_t got;
	size_t start;

	memset(obj, HZ_PATTERN, len);
	bvec_set_virt(&bv, obj, len);
	iov_iter_bvec(&iter, ITER_SOURCE, &bv, 1, len);
	hz_report_kind(r, virt_to_page(obj));
	hz_report_page(r, "refcount_before", virt_to_page(obj));

	while (iov_iter_count(&iter)) {
		got = iov_iter_get_pages2(&iter, pages, iov_iter_count(&iter),
					  HZ_MAX_PAGES, &start);
		if (got <= 0)
			return got ? got : -EIO;
		n = DIV_ROUND_UP(start + got, PAGE_SIZE);
		for (i = 0; i < n; i++)
			max_got = max(max_got, page_count(pages[i]));
		for (i = 0; i < n; i++)
			put_page(pages[i]);
		for (i = 0; i < n; i++) {
			min_put = min(min_put, page_count(pages[i]));
			max_put = max(max_put, page_count(pages[i]));
		}
		nr_pages += n;
	}

	mfc_report(r, "pages %u\n", nr_pages);
	mfc_report(r, "refcount_after_get_max %d\n", max_got);
	mfc_report(r, "refcount_after_put_min %d\n", min_put);
	mfc_report(r, "refcount_after_put_max %d\n", max_put);
	mfc_report(r, "still_slab %d\n", PageSlab(virt_to_page(obj)));
	mfc_report(r, "intact %d\n", hz_intact(obj, len));
	return 0;
}

/*
 * From @cache, or from kmalloc() where @cache is NULL, with room for
 * hz_alloc_in_frozen_slab()'s link (kmalloc()'s smallest cache has it).
 */
static void *hz_obj_alloc(struct kmem_cache *cache, size_t size)
{
	return cache ? kmem_cache_alloc(cache, GFP_KERNEL) :
		       kmalloc(max(size, sizeof(void *)), GFP_KERNEL);
}

static void hz_obj_free(struct kmem_cache *cache, void *obj)
{
	if (cache)
		kmem_cache_free(cache, obj);
	else
		kfree(obj);
}

/*
 * A slab keeps the refcount that it was allocated with for as long as it
 * lives: one allocated while slab_frozen was 0 (an earlier test, the
 * knob's flips) stays refcounted, and the allocator hands out its free
 * objects first.  Takes objects until one sits in a frozen slab (refcount
 * 0), passing at most HZ_MAX_PASSED_BYTES of objects from refcounted
 * ones, chained through their first word; frees those and reports how
 * many there were.  Memory that is not slab, or a kernel whose slabs are
 * all refcounted, gets the first or the last object.
 */
static void *hz_alloc_in_frozen_slab(struct mfc_result *r,
				     struct kmem_cache *cache, size_t size)
{
	unsigned int passed = 0, max_passed = HZ_MAX_PASSED_BYTES / size;
	void *obj, *prev = NULL;

	while ((obj = hz_obj_alloc(cache, size))) {
		struct page *page = virt_to_page(obj);

		if (!PageSlab(page) || !page_count(page) || passed == max_passed)
			break;
		*(void **)obj = prev;
		prev = obj;
		passed++;
	}
	while (prev) {
		void *next = *(void **)prev;

		hz_obj_free(cache, prev);
		prev = next;
	}
	mfc_report(r, "objects_in_refcounted_slabs %u\n", passed);
	return obj;
}

static int hz_bvec(struct mfc_result *r, unsigned int size)
{
	void *obj;
	int ret;

	if (!size || size > HZ_MAX_SIZE - PAGE_SIZE)
		return -EINVAL;
	obj = hz_alloc_in_frozen_slab(r, NULL, size);
	if (!obj)
		return -ENOMEM;
	ret = hz_bvec_get_pages(r, obj, size);
	kfree(obj);
	return ret;
}

static int hz_bvec_debug(struct mfc_result *r, unsigned int unused)
{
	void *obj = hz_alloc_in_frozen_slab(r, hz_debug_cache, HZ_DEBUG_SIZE);
	int ret;

	if (!obj)
		return -ENOMEM;
	ret = hz_bvec_get_pages(r, obj, HZ_DEBUG_SIZE);
	kmem_cache_free(hz_debug_cache, obj);
	return ret;
}

/*
 * iov_iter_get_pages2() over a bvec of two pages must take each page's
 * reference on that page's own folio.  The first version of upstream's
 * b9c0e49abfca took them all on the first page's folio (770c8d55c428
 * fixed it): a bvec that crossed into a second folio left that folio
 * without its reference, and the caller's put_page() freed it under its
 * owner.  The pages go back only when each refcount came back to what it
 * was; else they are left to the failed test, not freed a second time.
 */
static void hz_free_two(struct page *page, bool compound)
{
	if (compound) {
		__free_pages(page, 1);
		return;
	}
	__free_page(page);
	__free_page(page + 1);
}

static int hz_bvec_folios(struct mfc_result *r, unsigned int compound)
{
	int before[2], after_get[2], after_put[2], n, i;
	struct page *pages[2], *page;
	struct iov_iter iter;
	struct bio_vec bv;
	bool restored = true;
	ssize_t got;
	size_t start;

	if (compound > 1)
		return -EINVAL;
	page = alloc_pages(GFP_KERNEL | (compound ? __GFP_COMP : 0), 1);
	if (!page)
		return -ENOMEM;
	if (!compound)
		split_page(page, 1);
	mfc_report(r, "folios %d\n", page_folio(page) == page_folio(page + 1) ? 1 : 2);
	for (i = 0; i < 2; i++)
		before[i] = page_count(page + i);
	bvec_set_page(&bv, page, 2 * PAGE_SIZE, 0);
	iov_iter_bvec(&iter, ITER_SOURCE, &bv, 1, 2 * PAGE_SIZE);
	got = iov_iter_get_pages2(&iter, pages, 2 * PAGE_SIZE, 2, &start);
	if (got <= 0) {
		hz_free_two(page, compound);
		return got ? got : -EIO;
	}
	n = DIV_ROUND_UP(start + got, PAGE_SIZE);
	mfc_report(r, "pages %d\n", n);
	for (i = 0; i < 2; i++)
		after_get[i] = page_count(page + i);
	for (i = 0; i < n; i++)
		put_page(pages[i]);
	for (i = 0; i < 2; i++) {
		after_put[i] = page_count(page + i);
		mfc_report(r, "refcount_before_%d %d\n", i, before[i]);
		mfc_report(r, "refcount_after_get_%d %d\n", i, after_get[i]);
		mfc_report(r, "refcount_after_put_%d %d\n", i, after_put[i]);
		restored &= after_put[i] == before[i];
	}
	mfc_report(r, "freed %d\n", restored);
	if (restored)
		hz_free_two(page, compound);
	return 0;
}

static void *hz_kmalloc_slab(struct mfc_result *r, unsigned int size)
{
	if (!size || size > KMALLOC_MAX_CACHE_SIZE)
		return ERR_PTR(-EINVAL);
	return hz_alloc_in_frozen_slab(r, NULL, size) ?: ERR_PTR(-ENOMEM);
}

static int hz_probe(struct mfc_result *r, unsigned int unused)
{
	void *obj = hz_alloc_in_frozen_slab(r, NULL, 64);

	if (!obj)
		return -ENOMEM;
	hz_report_kind(r, virt_to_page(obj));
	hz_report_page(r, "refcount", virt_to_page(obj));
	kfree(obj);
	return 0;
}

/* put_page() without a get: on a slab page it must not free anything. */
static int hz_put(struct mfc_result *r, unsigned int size)
{
	void *obj = hz_kmalloc_slab(r, size);
	struct page *page;

	if (IS_ERR(obj))
		return PTR_ERR(obj);
	page = virt_to_page(obj);
	memset(obj, HZ_PATTERN, size);
	hz_report_kind(r, page);
	hz_report_page(r, "refcount_before", page);
	put_page(page);
	hz_report_page(r, "refcount_after_put", page);
	mfc_report(r, "still_slab %d\n", PageSlab(page));
	mfc_report(r, "intact %d\n", hz_intact(obj, size));
	kfree(obj);
	return 0;
}

static void hz_get_put_page(struct mfc_result *r, struct page *page)
{
	hz_report_kind(r, page);
	hz_report_page(r, "refcount_before", page);
	get_page(page);
	hz_report_page(r, "refcount_after_get", page);
	put_page(page);
	hz_report_page(r, "refcount_after_put", page);
}

/* Any size: up to KMALLOC_MAX_CACHE_SIZE slab, above it the page allocator. */
static int hz_get_put(struct mfc_result *r, unsigned int size)
{
	void *obj;

	if (!size || size > HZ_MAX_SIZE)
		return -EINVAL;
	obj = hz_alloc_in_frozen_slab(r, NULL, size);
	if (!obj)
		return -ENOMEM;
	hz_get_put_page(r, virt_to_page(obj));
	kfree(obj);
	return 0;
}

static int hz_page_frag(struct mfc_result *r, unsigned int size)
{
	struct page_frag_cache nc = {};
	void *frag;

	if (!size || size > PAGE_SIZE)
		return -EINVAL;
	frag = page_frag_alloc(&nc, size, GFP_KERNEL);
	if (!frag)
		return -ENOMEM;
	hz_get_put_page(r, virt_to_page(frag));
	page_frag_free(frag);
	page_frag_cache_drain(&nc);
	return 0;
}

/*
 * Takes an extra reference on the slab page of an object of a private
 * cache with @take, frees the object and destroys the cache, which frees
 * the slab, then, if @drop, drops the reference.  A kernel that frees
 * such a page anyway has consumed that reference, and the page may
 * belong to someone else by now: the caller says whether to drop it.
 * Reports the refcount at each step and whether the last put freed the
 * page.
 */
static int hz_ref_then_destroy(struct mfc_result *r, bool (*take)(struct page *),
			       unsigned int drop)
{
	struct kmem_cache *cache;
	struct folio *folio;
	void *obj;

	cache = kmem_cache_create("mm_frozen_hazard_ref", 1024, 0,
				  SLAB_NO_MERGE, NULL);
	if (!cache)
		return -ENOMEM;
	obj = kmem_cache_alloc(cache, GFP_KERNEL);
	if (!obj) {
		kmem_cache_destroy(cache);
		return -ENOMEM;
	}
	folio = virt_to_folio(obj);
	mfc_report(r, "pfn 0x%lx\n", folio_pfn(folio));
	mfc_report(r, "order %u\n", folio_order(folio));
	mfc_report(r, "refcount_before %d\n", folio_ref_count(folio));
	mfc_report(r, "taken %d\n", take(&folio->page));
	mfc_report(r, "refcount_after_take %d\n", folio_ref_count(folio));

	kmem_cache_free(cache, obj);
	kmem_cache_destroy(cache);
	mfc_report(r, "still_slab %d\n", folio_test_slab(folio));
	mfc_report(r, "refcount_after_destroy %d\n", folio_ref_count(folio));
	if (drop && folio_ref_count(folio) > 0) {
		bool last = folio_put_testzero(folio);

		if (last)
			__folio_put(folio);
		mfc_report(r, "freed_by_last_put %d\n", last);
	}
	return 0;
}

static bool hz_take_ref_inc(struct page *page)
{
	folio_ref_inc(page_folio(page));
	return true;
}

/* A speculative reference, dropped the way most holders drop it. */
static bool hz_take_spec_ref(struct page *page)
{
	if (!get_page_unless_zero(page))
		return false;
	put_page(page);
	return true;
}

static int hz_ref_inc(struct mfc_result *r, unsigned int drop)
{
	return hz_ref_then_destroy(r, hz_take_ref_inc, drop);
}

static int hz_spec_ref(struct mfc_result *r, unsigned int drop)
{
	return hz_ref_then_destroy(r, hz_take_spec_ref, drop);
}

/*
 * A TEE device with no secure world behind it: it accepts every
 * registration, so that tee_shm_register_kernel_buf() goes its whole way
 * (the kvec's pages extracted, handed to the driver, released by
 * tee_shm_free()).  It is never registered, so no one else can open it.
 * Upstream's 08d9a4580f71 (our 0019) stopped that path from taking page
 * references: with 0014 alone, get_page() warned on a kmalloc() object's
 * slab page, and every other page was held one reference more while
 * registered.
 */
static void hz_tee_get_version(struct tee_device *teedev,
			       struct tee_ioctl_version_data *vers)
{
	memset(vers, 0, sizeof(*vers));
}

static int hz_tee_open(struct tee_context *ctx)
{
	return 0;
}

static void hz_tee_release(struct tee_context *ctx)
{
}

static int hz_tee_shm_register(struct tee_context *ctx, struct tee_shm *shm,
			       struct page **pages, size_t num_pages,
			       unsigned long start)
{
	return 0;
}

static int hz_tee_shm_unregister(struct tee_context *ctx, struct tee_shm *shm)
{
	return 0;
}

static const struct tee_driver_ops hz_tee_ops = {
	.get_version = hz_tee_get_version,
	.open = hz_tee_open,
	.release = hz_tee_release,
	.shm_register = hz_tee_shm_register,
	.shm_unregister = hz_tee_shm_unregister,
};

static const struct tee_desc hz_tee_desc = {
	.name = "mm_frozen_hazard",
	.ops = &hz_tee_ops,
	.owner = THIS_MODULE,
};

/* Registers @len bytes at @buf, whose first page is @page, and frees them. */
static int hz_tee_register(struct mfc_result *r, void *buf, size_t len,
			   struct page *page)
{
	struct tee_device *teedev;
	struct tee_context *ctx;
	struct tee_shm *shm;
	int ret = 0;

	teedev = tee_device_alloc(&hz_tee_desc, NULL, NULL, NULL);
	if (IS_ERR(teedev))
		return PTR_ERR(teedev);
	ctx = teedev_open(teedev);
	if (IS_ERR(ctx)) {
		ret = PTR_ERR(ctx);
		goto out_device;
	}
	hz_report_kind(r, page);
	hz_report_page(r, "refcount_before", page);
	shm = tee_shm_register_kernel_buf(ctx, buf, len);
	if (IS_ERR(shm)) {
		ret = PTR_ERR(shm);
		goto out_context;
	}
	hz_report_page(r, "refcount_registered", page);
	tee_shm_free(shm);
	hz_report_page(r, "refcount_after_free", page);
	mfc_report(r, "still_slab %d\n", PageSlab(page));
out_context:
	teedev_close_context(ctx);
out_device:
	tee_device_unregister(teedev);
	return ret;
}

static int hz_tee_shm(struct mfc_result *r, unsigned int page_allocator)
{
	struct page *page;
	void *obj;
	int ret;

	if (!IS_ENABLED(CONFIG_TEE))
		return -EOPNOTSUPP;
	if (page_allocator > 1)
		return -EINVAL;
	if (page_allocator) {
		page = alloc_page(GFP_KERNEL);
		if (!page)
			return -ENOMEM;
		ret = hz_tee_register(r, page_address(page), PAGE_SIZE, page);
		__free_page(page);
		return ret;
	}
	obj = hz_alloc_in_frozen_slab(r, NULL, 64);
	if (!obj)
		return -ENOMEM;
	memset(obj, HZ_PATTERN, 64);
	ret = hz_tee_register(r, obj, 64, virt_to_page(obj));
	mfc_report(r, "intact %d\n", hz_intact(obj, 64));
	kfree(obj);
	return ret;
}

static const struct mfc_case hz_cases[] = {
	{ "probe", hz_probe },
	{ "bvec", hz_bvec },
	{ "bvec_debug", hz_bvec_debug },
	{ "put", hz_put },
	{ "get_put", hz_get_put },
	{ "page_frag", hz_page_frag },
	{ "ref_inc", hz_ref_inc },
	{ "spec_ref", hz_spec_ref },
	{ "bvec_folios", hz_bvec_folios },
	{ "tee_shm", hz_tee_shm },
};

static int hz_init(void)
{
	hz_debug_cache = kmem_cache_create("mm_frozen_hazard", HZ_DEBUG_SIZE, 0,
					   SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE |
					   SLAB_POISON | SLAB_STORE_USER, NULL);
	return hz_debug_cache ? 0 : -ENOMEM;
}

static void hz_exit(void)
{
	kmem_cache_destroy(hz_debug_cache);
}

const struct mfc_group mfc_hazard_group = {
	.cases = hz_cases,
	.nr_cases = ARRAY_SIZE(hz_cases),
	.init = hz_init,
	.exit = hz_exit,
};
