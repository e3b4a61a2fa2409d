// SPDX-License-Identifier: GPL-2.0
/*
 * frozen_pressure_test - slab pages and plain pages that the page
 * allocator gives only under memory pressure, through each of its slow
 * paths: the min watermark, direct reclaim, the reserve of __GFP_NOFAIL
 * allocations, the last attempt before the OOM killer, and direct
 * compaction.  The series moved set_page_refcounted() out of every one of
 * them: a slab page must come out of each frozen (refcount 0), a plain
 * page with a refcount of exactly 1.
 *
 * The case runs in mm_frozen_cases.ko (see mm_frozen_test/pressure.c),
 * with ZONE_DMA as its arena.  What shows that each path was taken is
 * read against the kernel's own account: the zone's watermarks in
 * /proc/zoneinfo, what the zone could still give as the case counted it
 * in the kernel, direct reclaims in ZONE_DMA and successful direct
 * compactions in /proc/vmstat.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

#include "../kselftest_harness.h"
#include "mm_frozen.h"

#define TRACE_INSTANCE	"frozen_pressure_test"

static const char * const kinds[] = { "slab", "page" };

/*
 * The kernel's record of where this task's allocations went, from its
 * own events only: oom:reclaim_retry_zone, where reclaim decides whether
 * to retry (wmark_check 0: it gives up), and compaction:mm_compaction_end,
 * each compaction's result.  The module's probe on the first is how the
 * oom case frees pages; this instance is apart from it.
 */
static const char * const path_events[][2] = {
	{ "oom", "reclaim_retry_zone" },
	{ "compaction", "mm_compaction_end" },
};

#define NR_STATUSES	12	/* enum compact_result has 9 */

struct path_trace {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	unsigned int retry_checks, retries_given_up;
	unsigned int compactions;
	struct {
		char name[24];
		unsigned int n;
	} status[NR_STATUSES];	/* mm_compaction_end's, as printed */
	unsigned int lost;
};

/* Records this task's path events from now on; 0, or -1 on error. */
static int path_trace_start(struct path_trace *t)
{
	static const char * const systems[] = { "oom", "compaction", NULL };
	char filter[64];
	unsigned int i;

	t->inst = tracefs_instance_create(TRACE_INSTANCE);
	if (!t->inst)
		return -1;
	snprintf(filter, sizeof(filter), "common_pid == %d", getpid());
	for (i = 0; i < ARRAY_SIZE(path_events); i++)
		if (tracefs_event_file_write(t->inst, path_events[i][0],
					     path_events[i][1], "filter", filter) < 0 ||
		    tracefs_event_enable(t->inst, path_events[i][0], path_events[i][1]))
			return -1;
	t->tep = tracefs_local_events_system(NULL, systems);
	if (!t->tep)
		return -1;
	return tracefs_trace_on(t->inst);
}

static void path_trace_end(struct path_trace *t)
{
	trace_instance_end(t->inst, t->tep);
	*t = (struct path_trace){};
}

/* Counts a compaction's status, a symbolic field: read as printed. */
static void count_status(struct path_trace *t, struct tep_record *rec)
{
	struct trace_seq seq;
	char name[24] = "?";
	const char *at;
	unsigned int i;

	trace_seq_init(&seq);
	tep_print_event(t->tep, &seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	at = strstr(seq.buffer, "status=");
	if (at)
		sscanf(at, "status=%23s", name);
	trace_seq_destroy(&seq);
	for (i = 0; i < NR_STATUSES; i++) {
		if (!t->status[i].n)
			snprintf(t->status[i].name, sizeof(t->status[i].name), "%s", name);
		if (!strcmp(t->status[i].name, name)) {
			t->status[i].n++;
			return;
		}
	}
}

static int count_path_event(struct tep_event *event, struct tep_record *rec,
			    int cpu, void *data)
{
	struct path_trace *t = data;
	unsigned long long wmark_check;

	t->lost += !!rec->missed_events;
	if (!strcmp(event->name, "reclaim_retry_zone") &&
	    !tep_get_field_val(NULL, event, "wmark_check", rec, &wmark_check, 0)) {
		t->retry_checks++;
		t->retries_given_up += !wmark_check;
	} else if (!strcmp(event->name, "mm_compaction_end")) {
		t->compactions++;
		count_status(t, rec);
	}
	return 0;
}

/* Stops the trace and counts its events; 0, or -1 on error. */
static int path_trace_read(struct path_trace *t)
{
	tracefs_trace_off(t->inst);
	return tracefs_iterate_raw_events(t->tep, t->inst, NULL, 0,
					  count_path_event, t);
}

struct dma_watermarks {
	long long min, low;
};

/* ZONE_DMA's min and low watermarks, from /proc/zoneinfo: 0 or -1. */
static int dma_watermarks(struct dma_watermarks *w)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	bool in_dma = false;
	char line[256], zone[32];
	long long n;

	*w = (struct dma_watermarks){ -1, -1 };
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %*d, zone %31s", zone) == 1)
			in_dma = !strcmp(zone, "DMA");
		else if (in_dma && sscanf(line, " min %lld", &n) == 1)
			w->min = n;
		else if (in_dma && sscanf(line, " low %lld", &n) == 1)
			w->low = n;
	}
	fclose(f);
	return w->min < 0 || w->low < 0 ? -1 : 0;
}

/* A counter of /proc/vmstat; -1 if there is none. */
static long long vmstat_value(const char *name)
{
	char vmstat[8192];

	if (read_file("/proc/vmstat", vmstat, sizeof(vmstat)))
		return -1;
	return result_value(vmstat, name);
}

/* Item @item for @kind in the case's result. */
static long long kind_res(const struct case_env *env, const char *kind,
			  const char *item)
{
	char key[64];

	snprintf(key, sizeof(key), "%s_%s", kind, item);
	return res(env, key);
}

FIXTURE(pressure) {
	struct case_env env;
	struct path_trace trace;
	struct dma_watermarks wmark;
	char knob_saved[8];
	char why[1024];
};

FIXTURE_VARIANT(pressure) {
	const char *name;
	const char *knob;
};

FIXTURE_VARIANT_ADD(pressure, slab_frozen_1) {
	.name = "slab_frozen_1", .knob = "1",
};

FIXTURE_VARIANT_ADD(pressure, slab_frozen_0) {
	.name = "slab_frozen_0", .knob = "0",
};

FIXTURE_SETUP(pressure)
{
	const char *why = cases_ready(self->why, sizeof(self->why));

	if (why)
		SKIP(return, "%s", why);
	if (dma_watermarks(&self->wmark))
		SKIP(return, "no ZONE_DMA in /proc/zoneinfo: the cases have no arena");
	if (!knob_save(variant->knob, self->knob_saved, sizeof(self->knob_saved)))
		SKIP(return, "%s", KNOB_MISSING);
	ASSERT_EQ(0, path_trace_start(&self->trace))
		TH_LOG("cannot record oom and compaction events in %s", TRACE_INSTANCE);
	ASSERT_EQ(0, open_window(_metadata, &self->env, variant->name));
	/* Last: the teardown, which puts the knob back, runs only after this. */
	ASSERT_EQ(0, knob_set(self->knob_saved, variant->knob));
}

FIXTURE_TEARDOWN(pressure)
{
	kmsg_end(&self->env.kmsg);
	path_trace_end(&self->trace);
	knob_restore(self->knob_saved);
}

/*
 * A slab page is frozen unless slab_frozen is 0; without the knob the
 * series' claim (frozen) is what is checked, so that the baseline fails.
 * A plain page has a refcount of exactly 1.  -1: no page.
 */
static void check_refcounts(struct __test_metadata *_metadata,
			    const struct case_env *env, const char *knob,
			    const char *path)
{
	long long ref, expected;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		ref = kind_res(env, kinds[k], "refcount");
		expected = k || !strcmp(knob, "0") ? 1 : 0;
		EXPECT_EQ(expected, ref)
			TH_LOG("%s page from the %s path: refcount %lld, %lld expected (-1: none)",
			       kinds[k], path, ref, expected);
	}
}

/* The slow path's first attempt: the fast path failed low, min passed. */
TEST_F(pressure, min_watermark)
{
	struct dma_watermarks *w = &self->wmark;
	struct case_env *env = &self->env;
	long long free, order, seen;
	unsigned int k;
	int ret;

	ret = run_logged(env, "slow_min", 0);
	if (ret == -ERANGE)
		SKIP(return, "ZONE_DMA's min (%lld) and low (%lld) watermarks: %s",
		     w->min, w->low, "too close for a page of order 4 or more between them");
	ASSERT_EQ(0, ret);
	check_refcounts(_metadata, env, variant->knob, "min");
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		free = kind_res(env, kinds[k], "free_before");
		order = kind_res(env, kinds[k], "order");
		ASSERT_LE(0, order);
		/* What __zone_watermark_ok() compares with the watermark. */
		seen = free - (1LL << order) + 1;
		EXPECT_GE(w->low, seen)
			TH_LOG("%s: %lld free pages pass the low watermark (%lld): no slow path",
			       kinds[k], free, w->low);
		EXPECT_LT(w->min, seen)
			TH_LOG("%s: %lld free pages fail the min watermark (%lld)",
			       kinds[k], free, w->min);
		/* The kernel's own attempts, from the case's kprobe. */
		EXPECT_EQ(1, kind_res(env, kinds[k], "attempts_at_low"))
			TH_LOG("%s: not one attempt at the low watermark (the fast path)",
			       kinds[k]);
		EXPECT_EQ(1, kind_res(env, kinds[k], "attempts_at_min"))
			TH_LOG("%s: not one attempt at the min watermark (the slow path's first, which found the page)",
			       kinds[k]);
		EXPECT_EQ(0, kind_res(env, kinds[k], "attempts_other"));
	}
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

/* Direct reclaim gives pages back, and the attempt after it finds one. */
TEST_F(pressure, direct_reclaim)
{
	struct case_env *env = &self->env;
	long long stalls;
	unsigned int k;

	stalls = vmstat_value("allocstall_dma");
	ASSERT_LE(0, stalls);
	ASSERT_EQ(0, run_logged(env, "slow_reclaim", 0));
	stalls = vmstat_value("allocstall_dma") - stalls;
	check_refcounts(_metadata, env, variant->knob, "reclaim");
	for (k = 0; k < ARRAY_SIZE(kinds); k++)
		EXPECT_LT(0, kind_res(env, kinds[k], "reclaimed"))
			TH_LOG("%s: direct reclaim gave no page back", kinds[k]);
	ksft_print_msg("%lld direct reclaims in ZONE_DMA\n", stalls);
	EXPECT_LE(ARRAY_SIZE(kinds), stalls)
		TH_LOG("fewer direct reclaims in ZONE_DMA (allocstall_dma) than pages after one");
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

/*
 * __GFP_NOFAIL's fallback to the reserve, where a failable page fails.  The
 * case counts, in the kernel, what an allocation without reserves could
 * get: at most the min watermark less what the allocator's count may lag,
 * so that the page that __GFP_NOFAIL got came from below min.
 */
TEST_F(pressure, nofail_reserve)
{
	struct case_env *env = &self->env;
	long long usable;
	unsigned int k;
	int ret;

	ret = run_logged(env, "slow_nofail", 0);
	if (ret == -ERANGE)
		SKIP(return, "ZONE_DMA's reserve below min (min %lld) is within the vmstat drift",
		     self->wmark.min);
	ASSERT_EQ(0, ret);
	check_refcounts(_metadata, env, variant->knob, "nofail");
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		usable = kind_res(env, kinds[k], "usable_free");
		EXPECT_GE(self->wmark.min, usable + kind_res(env, kinds[k], "vmstat_drift"))
			TH_LOG("%s: %lld pages were usable above min", kinds[k],
			       usable - self->wmark.min);
		EXPECT_EQ(1, kind_res(env, kinds[k], "noretry_failed"))
			TH_LOG("%s: an allocation that may fail did not: no reserve was needed",
			       kinds[k]);
	}
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

/*
 * The high-watermark attempt before the OOM killer, after a parallel free.
 * Reclaim gives up once per kind (a failed check ends the retries), and
 * the page then comes from that attempt: a page from a retry at min would
 * leave its kind without a failed check.
 */
TEST_F(pressure, before_oom_kill)
{
	struct case_env *env = &self->env;
	struct path_trace *t = &self->trace;
	unsigned int k;
	int ret;

	ret = run_logged(env, "slow_oom", 0);
	if (ret == -ENOENT)
		SKIP(return, "no reclaim_retry_zone tracepoint: %s",
		     "nothing marks where reclaim gives up");
	ASSERT_EQ(0, ret);
	check_refcounts(_metadata, env, variant->knob, "oom");
	for (k = 0; k < ARRAY_SIZE(kinds); k++)
		EXPECT_LT(0, kind_res(env, kinds[k], "freed_at_retry"))
			TH_LOG("%s: the allocation did not give up on reclaim", kinds[k]);
	ASSERT_EQ(0, path_trace_read(t));
	ksft_print_msg("%u retry checks, %u gave up (oom:reclaim_retry_zone)\n",
		       t->retry_checks, t->retries_given_up);
	EXPECT_EQ(0, t->lost);
	EXPECT_EQ(ARRAY_SIZE(kinds), t->retries_given_up)
		TH_LOG("reclaim did not give up once per kind before the page came");
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

/*
 * Direct compaction makes a free block of the order asked for, and the
 * page comes after it.  Plain pages only (see pressure.c).  Two counts
 * from the kernel: compact_success, which __alloc_pages_direct_compact()
 * counts when it returns a page, and the compactions that this task ran
 * (mm_compaction_end), each with its status in the log.  How many of the
 * case's pages were moved is in the log too: none when the compaction's
 * flush of the per-CPU lists completed a block (status partial_skipped).
 */
TEST_F(pressure, direct_compaction)
{
	struct case_env *env = &self->env;
	struct path_trace *t = &self->trace;
	long long successes;
	unsigned int k;
	int ret;

	successes = vmstat_value("compact_success");
	ret = run_logged(env, "slow_compact", 0);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "kernel without CONFIG_COMPACTION");
	ASSERT_EQ(0, ret);
	ASSERT_LE(0, successes);
	successes = vmstat_value("compact_success") - successes;
	EXPECT_EQ(1, kind_res(env, "page", "refcount"))
		TH_LOG("page from direct compaction: refcount %lld, 1 expected (-1: none)",
		       kind_res(env, "page", "refcount"));
	EXPECT_EQ(1, kind_res(env, "page", "compacted"))
		TH_LOG("the page did not come from a direct compaction");
	ksft_print_msg("%lld successful direct compactions\n", successes);
	EXPECT_LE(1, successes)
		TH_LOG("no direct compaction succeeded (compact_success)");
	ASSERT_EQ(0, path_trace_read(t));
	ksft_print_msg("%u compactions of this task (mm_compaction_end), by status:\n",
		       t->compactions);
	for (k = 0; k < NR_STATUSES && t->status[k].n; k++)
		ksft_print_msg("  %u %s\n", t->status[k].n, t->status[k].name);
	EXPECT_EQ(0, t->lost);
	EXPECT_LE(1, t->compactions)
		TH_LOG("no compaction of this task ran (mm_compaction_end)");
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

TEST_HARNESS_MAIN
