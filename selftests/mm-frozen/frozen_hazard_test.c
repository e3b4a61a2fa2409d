// SPDX-License-Identifier: GPL-2.0
/*
 * frozen_hazard_test - what the frozen-pages series is known to break,
 * and what must keep working.  The cases run in mm_frozen_cases.ko (see
 * mm_frozen_test/hazard.c), each in a kernel log window of its own.
 *
 * slab_bvec, slab_page: on a kernel whose slab pages are frozen, the
 * page references that callers outside mm/ take on kmalloc() memory
 * (iov_iter_get_pages2() over an ITER_BVEC and its put_page() loop, as
 * nvme-tcp over TLS did; put_page(); get_page()) leave the refcount at 0,
 * the slab and its objects intact, and the kernel log clean but for the
 * one warning get_page() gives by design.  Without "mm: Decline to
 * manipulate the refcount on a slab page" they end in a kernel BUG.
 *
 * page_refs: memory that is not slab keeps real refcounts: large
 * kmalloc() and page_frag memory, on every kernel.
 *
 * tee_shm: registering kernel memory with a TEE takes no page reference
 * (upstream's 08d9a4580f71, our 0019): a kmalloc() object's slab page
 * stays at 0 with no warning, a page of the page allocator at its own
 * count.
 *
 * detector: with CONFIG_DEBUG_FROZEN_PAGES, a slab page whose refcount
 * someone moved is reported when its slab is freed, and left to the
 * remaining reference.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kselftest_harness.h"
#include "mm_frozen.h"

#define CLEAR_WARN_ONCE	"/sys/kernel/debug/clear_warn_once"
#define DEBUG_CACHE	"mm_frozen_hazard"
#define DETECT_CACHE	"mm_frozen_hazard_ref"

/* get_page()'s WARN_ON_ONCE() on a slab page, from the cases module */
#define GET_PAGE_WARNING \
	"WARNING: CPU: [0-9]+ PID: [0-9]+ at [^ ]*include/linux/mm\\.h:[0-9]+ .*\\[" \
	CASES_MODULE "\\]"

/*
 * NULL if the cases module is loaded and slab pages are frozen here, else
 * why the slab tests skip.
 */
static const char *slab_cases_ready(char *why, size_t len)
{
	const char *not_ready = cases_ready(why, len);
	char result[256];
	int ret;

	if (not_ready)
		return not_ready;
	ret = run_case("probe", 0, result, sizeof(result));
	if (ret) {
		snprintf(why, len, "probe case: %s", strerror(-ret));
		return why;
	}
	/* the cases after it take their objects where the probe found its */
	if (result_value(result, "objects_in_refcounted_slabs") > 0)
		ksft_print_msg("probe: %lld kmalloc-64 objects passed in slabs allocated refcounted\n",
			       result_value(result, "objects_in_refcounted_slabs"));
	if (result_value(result, "refcount")) {
		snprintf(why, len, "slab pages are refcounted here (a live one has refcount %lld): nothing to protect",
			 result_value(result, "refcount"));
		return why;
	}
	return NULL;
}

/* ------------------------------------------------------------ slab_bvec */

FIXTURE(slab_bvec) {
	struct case_env env;
	char why[1024];
};

FIXTURE_VARIANT(slab_bvec) {
	const char *name;	/* the variant's name, for the log window */
	const char *which;	/* the case */
	unsigned int size;
	unsigned int pages;	/* that the bvec spans */
	const char *validate;	/* cache whose slabs SLUB validates after */
};

FIXTURE_VARIANT_ADD(slab_bvec, kmalloc_64) {
	.name = "kmalloc_64", .which = "bvec", .size = 64, .pages = 1,
};

/* Two pages of one order-3 slab: each page is tested on its own. */
FIXTURE_VARIANT_ADD(slab_bvec, kmalloc_8k) {
	.name = "kmalloc_8k", .which = "bvec", .size = 8192, .pages = 2,
};

FIXTURE_VARIANT_ADD(slab_bvec, debug_cache) {
	.name = "debug_cache", .which = "bvec_debug", .pages = 1,
	.validate = DEBUG_CACHE,
};

FIXTURE_SETUP(slab_bvec)
{
	const char *why = slab_cases_ready(self->why, sizeof(self->why));

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, open_window(_metadata, &self->env, variant->name));
}

FIXTURE_TEARDOWN(slab_bvec)
{
	kmsg_end(&self->env.kmsg);
}

TEST_F(slab_bvec, get_pages_then_put)
{
	struct case_env *env = &self->env;
	char path[PATH_MAX];

	ASSERT_EQ(0, run_logged(env, variant->which, variant->size));
	ASSERT_EQ(1, res(env, "slab"));
	EXPECT_EQ(0, res(env, "sendpage_ok"));
	EXPECT_EQ(variant->pages, res(env, "pages"));
	EXPECT_EQ(0, res(env, "refcount_before"));
	EXPECT_EQ(0, res(env, "refcount_after_get_max"))
		TH_LOG("iov_iter_get_pages2() took a reference on a frozen slab page");
	EXPECT_EQ(0, res(env, "refcount_after_put_min"));
	EXPECT_EQ(0, res(env, "refcount_after_put_max"));
	EXPECT_EQ(1, res(env, "still_slab"))
		TH_LOG("the put_page() loop freed a live slab");
	EXPECT_EQ(1, res(env, "intact"));
	if (variant->validate) {
		snprintf(path, sizeof(path), SLAB_SYSFS "/%s/validate",
			 variant->validate);
		EXPECT_EQ(0, write_file(path, "1"));
	}
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

/* ------------------------------------------------------------ slab_page */

FIXTURE(slab_page) {
	struct case_env env;
	char why[1024];
};

FIXTURE_SETUP(slab_page)
{
	const char *why = slab_cases_ready(self->why, sizeof(self->why));

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, open_window(_metadata, &self->env, NULL));
}

FIXTURE_TEARDOWN(slab_page)
{
	kmsg_end(&self->env.kmsg);
}

/* put_page() without a get: nothing to drop, nothing freed. */
TEST_F(slab_page, put_page_is_noop)
{
	struct case_env *env = &self->env;

	ASSERT_EQ(0, run_logged(env, "put", 64));
	ASSERT_EQ(1, res(env, "slab"));
	EXPECT_EQ(0, res(env, "sendpage_ok"));
	EXPECT_EQ(0, res(env, "refcount_before"));
	EXPECT_EQ(0, res(env, "refcount_after_put"));
	EXPECT_EQ(1, res(env, "still_slab"));
	EXPECT_EQ(1, res(env, "intact"));
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

/*
 * get_page() on a slab page warns once and leaves the count alone, and
 * the put_page() after it does nothing.  clear_warn_once re-arms the
 * warning, so that this run sees it whatever ran before in this boot.
 */
TEST_F(slab_page, get_page_warns_once)
{
	struct case_env *env = &self->env;

	ASSERT_EQ(0, write_file(CLEAR_WARN_ONCE, "1"));
	kmsg_expect(1, GET_PAGE_WARNING);
	ASSERT_EQ(0, run_logged(env, "get_put", 64));
	ASSERT_EQ(1, res(env, "slab"));
	EXPECT_EQ(0, res(env, "refcount_before"));
	EXPECT_EQ(0, res(env, "refcount_after_get"));
	EXPECT_EQ(0, res(env, "refcount_after_put"));
	EXPECT_EQ(1, kmsg_count(&env->kmsg, GET_PAGE_WARNING));
	/* and that warning is the only kernel problem */
	EXPECT_EQ(1, kmsg_count(&env->kmsg, NULL));
}

/* ------------------------------------------------------------ page_refs */

FIXTURE(page_refs) {
	struct case_env env;
	char why[1024];
};

FIXTURE_VARIANT(page_refs) {
	const char *name;
	const char *which;
	unsigned int size;
};

/* Above KMALLOC_MAX_CACHE_SIZE (two pages): from the page allocator */
FIXTURE_VARIANT_ADD(page_refs, large_kmalloc) {
	.name = "large_kmalloc", .which = "get_put", .size = 16384,
};

FIXTURE_VARIANT_ADD(page_refs, page_frag) {
	.name = "page_frag", .which = "page_frag", .size = 256,
};

FIXTURE_SETUP(page_refs)
{
	const char *why = cases_ready(self->why, sizeof(self->why));

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, open_window(_metadata, &self->env, variant->name));
}

FIXTURE_TEARDOWN(page_refs)
{
	kmsg_end(&self->env.kmsg);
}

TEST_F(page_refs, get_then_put)
{
	struct case_env *env = &self->env;
	long long before;

	ASSERT_EQ(0, run_logged(env, variant->which, variant->size));
	ASSERT_EQ(0, res(env, "slab"));
	EXPECT_EQ(1, res(env, "sendpage_ok"));
	before = res(env, "refcount_before");
	EXPECT_LE(1, before);
	EXPECT_EQ(before + 1, res(env, "refcount_after_get"));
	EXPECT_EQ(before, res(env, "refcount_after_put"));
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

/* A bvec over a large kmalloc() object takes one reference per page. */
TEST_F(page_refs, bvec_get_pages_then_put)
{
	struct case_env *env = &self->env;
	long long before;

	if (strcmp(variant->which, "get_put"))
		SKIP(return, "the bvec case is over kmalloc() memory");
	ASSERT_EQ(0, run_logged(env, "bvec", variant->size));
	ASSERT_EQ(0, res(env, "slab"));
	before = res(env, "refcount_before");
	EXPECT_LE(1, before);
	EXPECT_EQ(variant->size / getpagesize(), res(env, "pages"));
	EXPECT_EQ(before + res(env, "pages"), res(env, "refcount_after_get_max"));
	EXPECT_EQ(before, res(env, "refcount_after_put_min"));
	EXPECT_EQ(before, res(env, "refcount_after_put_max"));
	EXPECT_EQ(1, res(env, "intact"));
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

/* ---------------------------------------------------------- bvec_folios */

/*
 * A bvec over two pages: iov_iter_get_pages2() takes one reference per
 * page on that page's own folio, and put_page() gives each back.  Two
 * folios (an order-1 page split) is where the first version of upstream's
 * slab fix went wrong: every reference on the first folio, none on the
 * second (770c8d55c428); one compound folio takes both.
 */
FIXTURE(bvec_folios) {
	struct case_env env;
	char why[1024];
};

FIXTURE_VARIANT(bvec_folios) {
	const char *name;
	unsigned int compound;
	int folios;
};

FIXTURE_VARIANT_ADD(bvec_folios, split) {
	.name = "split", .compound = 0, .folios = 2,
};

FIXTURE_VARIANT_ADD(bvec_folios, compound) {
	.name = "compound", .compound = 1, .folios = 1,
};

FIXTURE_SETUP(bvec_folios)
{
	const char *why = cases_ready(self->why, sizeof(self->why));

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, open_window(_metadata, &self->env, variant->name));
}

FIXTURE_TEARDOWN(bvec_folios)
{
	kmsg_end(&self->env.kmsg);
}

TEST_F(bvec_folios, one_reference_per_page)
{
	struct case_env *env = &self->env;
	long long before;
	char key[64];
	int i;

	ASSERT_EQ(0, run_logged(env, "bvec_folios", variant->compound));
	ASSERT_EQ(variant->folios, res(env, "folios"));
	ASSERT_EQ(2, res(env, "pages"));
	for (i = 0; i < 2; i++) {
		snprintf(key, sizeof(key), "refcount_before_%d", i);
		before = res(env, key);
		EXPECT_LE(1, before);
		/* a page's folio holds its own reference, and its sibling's if one folio */
		snprintf(key, sizeof(key), "refcount_after_get_%d", i);
		EXPECT_EQ(before + 2 / variant->folios, res(env, key))
			TH_LOG("page %d: its folio got another number of references", i);
		snprintf(key, sizeof(key), "refcount_after_put_%d", i);
		EXPECT_EQ(before, res(env, key));
	}
	EXPECT_EQ(1, res(env, "freed"));
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

/* -------------------------------------------------------------- tee_shm */

/*
 * tee_shm_register_kernel_buf() of a kmalloc() object, as trusted keys
 * register their key, and of a page of the page allocator, with a TEE
 * device of the cases module's own.  Registering kernel memory takes no
 * page reference (our 0019): the slab page stays frozen with no warning,
 * the page keeps its own count while registered.  Without 0019 the slab
 * page's get_page() warns (clear_warn_once re-arms it) and the page's
 * count is one more while registered.
 */
FIXTURE(tee_shm) {
	struct case_env env;
	char why[1024];
};

FIXTURE_VARIANT(tee_shm) {
	const char *name;
	unsigned int page_allocator;
	int slab;
};

FIXTURE_VARIANT_ADD(tee_shm, kmalloc) {
	.name = "kmalloc", .page_allocator = 0, .slab = 1,
};

FIXTURE_VARIANT_ADD(tee_shm, page) {
	.name = "page", .page_allocator = 1, .slab = 0,
};

FIXTURE_SETUP(tee_shm)
{
	const char *why = variant->slab ? slab_cases_ready(self->why, sizeof(self->why)) :
					  cases_ready(self->why, sizeof(self->why));

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, open_window(_metadata, &self->env, variant->name));
}

FIXTURE_TEARDOWN(tee_shm)
{
	kmsg_end(&self->env.kmsg);
}

TEST_F(tee_shm, no_page_reference)
{
	struct case_env *env = &self->env;
	long long before;
	int ret;

	ASSERT_EQ(0, write_file(CLEAR_WARN_ONCE, "1"));
	ret = run_logged(env, "tee_shm", variant->page_allocator);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "kernel without CONFIG_TEE");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(variant->slab, res(env, "slab"));
	before = res(env, "refcount_before");
	EXPECT_EQ(variant->slab ? 0 : 1, before);
	EXPECT_EQ(before, res(env, "refcount_registered"))
		TH_LOG("the registration took a page reference");
	EXPECT_EQ(before, res(env, "refcount_after_free"));
	EXPECT_EQ(variant->slab, res(env, "still_slab"));
	if (variant->slab)
		EXPECT_EQ(1, res(env, "intact"));
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

/* ------------------------------------------------------------- detector */

FIXTURE(detector) {
	struct case_env env;
	char saved[8];
	char why[1024];
};

FIXTURE_VARIANT(detector) {
	const char *name;
	const char *which;
	const char *knob;
	int expected;	/* refcount the slab's allocation left */
	int at_free;	/* refcount when the slab is freed */
};

/* A frozen slab page raised from 0 to 1 with folio_ref_inc() */
FIXTURE_VARIANT_ADD(detector, frozen_ref_inc) {
	.name = "frozen_ref_inc", .which = "ref_inc", .knob = "1",
	.expected = 0, .at_free = 1,
};

/*
 * A refcounted slab page (slab_frozen=0) with a speculative reference
 * dropped by put_page(), which ignores slab pages: the count stays 2.
 */
FIXTURE_VARIANT_ADD(detector, refcounted_spec_ref) {
	.name = "refcounted_spec_ref", .which = "spec_ref", .knob = "0",
	.expected = 1, .at_free = 2,
};

FIXTURE_SETUP(detector)
{
	const char *why = cases_ready(self->why, sizeof(self->why));

	if (why)
		SKIP(return, "%s", why);
	if (read_file(KNOB, self->saved, sizeof(self->saved)))
		SKIP(return, "no %s: kernel without CONFIG_DEBUG_FROZEN_PAGES", KNOB);
	ASSERT_LE(0, stat_value("slabs_freed_bad_refcount"))
		TH_LOG("%s has no slabs_freed_bad_refcount: the knob does not detect", KNOB_STATS);
	ASSERT_EQ(0, open_window(_metadata, &self->env, variant->name));
	ASSERT_EQ(0, write_file(KNOB, variant->knob));
}

FIXTURE_TEARDOWN(detector)
{
	kmsg_end(&self->env.kmsg);
	if (self->saved[0] && write_file(KNOB, self->saved))
		TH_LOG("cannot restore %s to %s", KNOB, self->saved);
}

TEST_F(detector, reports_bad_refcount_at_free)
{
	struct case_env *env = &self->env;
	char report[256];
	long long bad;

	kmsg_expect(1, "frozen_pages: bad refcount at slab free: .* cache:" DETECT_CACHE "$");
	bad = stat_value("slabs_freed_bad_refcount");
	/* The kernel leaves the page to our reference: drop it afterwards. */
	ASSERT_EQ(0, run_logged(env, variant->which, 1));
	EXPECT_EQ(variant->expected, res(env, "refcount_before"));
	ASSERT_EQ(1, res(env, "taken"));
	EXPECT_EQ(variant->at_free, res(env, "refcount_after_take"));
	EXPECT_EQ(0, res(env, "still_slab"));
	/* The slab dropped only its own reference, if it had one. */
	EXPECT_EQ(variant->at_free - variant->expected,
		  res(env, "refcount_after_destroy"));
	EXPECT_EQ(1, res(env, "freed_by_last_put"));
	EXPECT_EQ(bad + 1, stat_value("slabs_freed_bad_refcount"));

	snprintf(report, sizeof(report),
		 "^frozen_pages: bad refcount at slab free: pfn:0x%llx order:%lld refcount:%d expected:%d cache:" DETECT_CACHE "$",
		 res(env, "pfn"), res(env, "order"), variant->at_free, variant->expected);
	EXPECT_EQ(1, kmsg_count(&env->kmsg, report));
	EXPECT_EQ(1, kmsg_count(&env->kmsg, NULL));
}

TEST_HARNESS_MAIN
