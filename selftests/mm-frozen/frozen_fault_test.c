// SPDX-License-Identifier: GPL-2.0
/*
 * frozen_fault_test - page allocations that fail, in the paths the
 * frozen-pages series changed, counted exactly and leaving nothing behind.
 * The cases run in mm_frozen_cases.ko (see mm_frozen_test/fault.c).
 *
 * fault (for slab_frozen 1 and 0): fail_page_alloc, with min-order=0 and
 * ignore-gfp-wait=N (its defaults skip slab's order-0 and sleeping
 * allocations), fails slab page allocations of a churning cache; the
 * failures it counts must be the ones the cache saw.  fail-nth fails the
 * first slab page allocation of one kmem_cache_alloc(), deterministically.
 *
 * memcg: accounted page allocations in a memcg at its memory.max fail
 * their charge inside __alloc_frozen_pages(), which frees the page with
 * free_frozen_pages(): once per failure, seen by the
 * kmem:mm_page_free_frozen tracepoint where the kernel has it.
 *
 * No leak: the churned cache is left without slabs; free pages and the
 * knob's slab counts end where they started, within what the idle rest of
 * the guest moves meanwhile (FREE_PAGES_SLACK, SLABS_SLACK): far less than
 * one page per injected failure.  Every cache is shrunk before each count,
 * so that neither empty slabs nor KASAN's quarantine count as live.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <event-parse.h>
#include <tracefs.h>

#include "../kselftest_harness.h"
#include "ksym.h"
#include "mm_frozen.h"

#define FAIL_PAGE_ALLOC	"/sys/kernel/debug/fail_page_alloc"
#define MAKE_IT_FAIL	"/proc/self/make-it-fail"
#define STACK_DEPOT_SAVE	"stack_depot_save_flags"
#define CHURN_CACHE	SLAB_SYSFS "/mm_frozen_churn"
#define CGROUP_ROOT	"/sys/fs/cgroup"
#define CGROUP		CGROUP_ROOT "/mm_frozen_fault"

#define FPA_TIMES	1000000	/* counts down with each failure injected */
#define CHURN_ROUNDS	100
#define MIN_INJECTED	100	/* failures a run must inject at least */
#define CHARGE_ATTEMPTS	2000
#define CHARGE_ROOM_KB	1024	/* memory.max above memory.current */
#define FREE_PAGES_SLACK	256
#define SLABS_SLACK	16

/*
 * The fail_page_alloc attributes a test sets, restored afterwards; the
 * optional ones exist only with CONFIG_FAULT_INJECTION_STACKTRACE_FILTER.
 */
static const struct {
	const char *name;
	bool optional;
} fpa_attrs[] = {
	{ "probability" }, { "interval" }, { "times" }, { "space" },
	{ "verbose" }, { "task-filter" }, { "ignore-gfp-wait" },
	{ "ignore-gfp-highmem" }, { "min-order" },
	{ "reject-start", true }, { "reject-end", true },
};

#define NR_FPA_ATTRS ARRAY_SIZE(fpa_attrs)

struct fpa_saved {
	char value[NR_FPA_ATTRS][32];
};

/* The number a file DIR/ATTR of sysfs or debugfs begins with; -1 if none. */
static long long file_value(const char *dir, const char *attr)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	return read_file(path, buf, sizeof(buf)) ? -1 : strtoll(buf, NULL, 0);
}

static int fpa_write(const char *attr, const char *value)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), FAIL_PAGE_ALLOC "/%s", attr);
	return write_file(path, value);
}

/* An attribute the kernel does not have is saved as "", not restored. */
static bool fpa_save(struct fpa_saved *s)
{
	char path[PATH_MAX];
	unsigned int i;
	int ret;

	for (i = 0; i < NR_FPA_ATTRS; i++) {
		snprintf(path, sizeof(path), FAIL_PAGE_ALLOC "/%s", fpa_attrs[i].name);
		ret = read_file(path, s->value[i], sizeof(s->value[i]));
		if (ret == -ENOENT && fpa_attrs[i].optional)
			s->value[i][0] = '\0';
		else if (ret)
			return false;
	}
	return true;
}

/* Probability first: nothing fails while the others are put back. */
static void fpa_restore(const struct fpa_saved *s)
{
	unsigned int i;

	for (i = 0; i < NR_FPA_ATTRS; i++)
		if (s->value[i][0])
			fpa_write(fpa_attrs[i].name, s->value[i]);
}

/* Every page allocation, sleeping or not, of any order, can be failed. */
static int fpa_reach_slab(void)
{
	return fpa_write("probability", "0") ?:
	       fpa_write("verbose", "0") ?:
	       fpa_write("space", "0") ?:
	       fpa_write("min-order", "0") ?:
	       fpa_write("ignore-gfp-wait", "N") ?:
	       fpa_write("ignore-gfp-highmem", "N") ?:
	       fpa_write("task-filter", "Y");
}

/*
 * The stack depot (of KASAN, page_owner, kmemleak) takes a new pool of
 * pages now and then, in the task whose stack it saves first when its
 * pool is full: a failure injected there is not the cache's.  With the
 * fault injection stack filter, fail_page_alloc spares every allocation
 * that stack_depot_save_flags() makes.  Returns 0, or -1 on error; a
 * kernel without the filter or without a stack depot is left as it is.
 */
static int fpa_spare_stack_depot(void)
{
	unsigned long long start, end;
	char value[32];

	if (access(FAIL_PAGE_ALLOC "/reject-start", F_OK) ||
	    symbol_range(STACK_DEPOT_SAVE, &start, &end))
		return 0;
	snprintf(value, sizeof(value), "%#llx", start);
	if (fpa_write("reject-start", value))
		return -1;
	snprintf(value, sizeof(value), "%#llx", end);
	if (fpa_write("reject-end", value))
		return -1;
	ksft_print_msg("fail_page_alloc spares %s (%#llx-%#llx)\n",
		       STACK_DEPOT_SAVE, start, end);
	return 0;
}

/* Free pages: the buddy lists' and the per-CPU lists', from zoneinfo. */
static long long free_pages_now(void)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	long long sum = 0, n;
	char line[256];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " pages free %lld", &n) == 1 ||
		    sscanf(line, " count: %lld", &n) == 1)
			sum += n;
	fclose(f);
	return sum;
}

/* Live slabs by the knob's counts: allocated minus freed, every way. */
static long long live_slabs(void)
{
	static const char * const allocs[] = {
		"slabs_allocated_frozen", "slabs_allocated_refcounted",
	};
	static const char * const frees[] = {
		"slabs_freed_frozen", "slabs_freed_refcounted",
		"slabs_freed_bad_refcount",
	};
	long long live = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(allocs); i++)
		live += stat_value(allocs[i]);
	for (i = 0; i < ARRAY_SIZE(frees); i++)
		live -= stat_value(frees[i]);
	return live;
}

/* ---------------------------------------------------------------- fault */

FIXTURE(fault) {
	struct case_env env;
	struct fpa_saved fpa;
	bool fpa_saved;
	char knob_saved[8];
	char why[1024];
};

FIXTURE_VARIANT(fault) {
	const char *name;
	const char *knob;
};

FIXTURE_VARIANT_ADD(fault, slab_frozen_1) {
	.name = "slab_frozen_1", .knob = "1",
};

FIXTURE_VARIANT_ADD(fault, slab_frozen_0) {
	.name = "slab_frozen_0", .knob = "0",
};

FIXTURE_SETUP(fault)
{
	const char *why = cases_ready(self->why, sizeof(self->why));

	if (why)
		SKIP(return, "%s", why);
	if (access(FAIL_PAGE_ALLOC, F_OK))
		SKIP(return, "no %s: kernel without CONFIG_FAIL_PAGE_ALLOC", FAIL_PAGE_ALLOC);
	if (!knob_save(variant->knob, self->knob_saved, sizeof(self->knob_saved)))
		SKIP(return, "%s", KNOB_MISSING);
	ASSERT_LT(0, file_value(CHURN_CACHE, "order"))
		TH_LOG("the churn cache's slabs must have a fallback order below theirs");
	ASSERT_TRUE(fpa_save(&self->fpa));
	ASSERT_EQ(0, open_window(_metadata, &self->env, variant->name));
	/* Last: the teardown, which puts things back, runs only after this. */
	ASSERT_EQ(0, knob_set(self->knob_saved, variant->knob));
	self->fpa_saved = true;
	ASSERT_EQ(0, fpa_reach_slab());
	ASSERT_EQ(0, fpa_spare_stack_depot());
}

FIXTURE_TEARDOWN(fault)
{
	kmsg_end(&self->env.kmsg);
	write_file(MAKE_IT_FAIL, "0");
	if (self->fpa_saved)
		fpa_restore(&self->fpa);
	knob_restore(self->knob_saved);
}

/*
 * Runs case @name with @arg while fail_page_alloc may fail this task's
 * allocations (make-it-fail), and logs its result.  Both files are opened
 * before and the result is read after: opening a file allocates (a slab
 * page for its name, now and then), and nothing but the case may meet an
 * injected failure.
 */
static int run_failing(struct case_env *env, const char *name,
		       unsigned int arg)
{
	int fail_fd = open(MAKE_IT_FAIL, O_WRONLY);
	int case_fd = case_open(name);
	int ret;

	env->result[0] = '\0';
	if (fail_fd < 0 || case_fd < 0)
		ret = -errno;
	else if (write(fail_fd, "1", 1) != 1)
		ret = -errno;
	else
		ret = case_start(case_fd, arg);
	if (fail_fd >= 0 && write(fail_fd, "0", 1) != 1 && !ret)
		ret = -errno;
	if (!ret)
		ret = case_result(case_fd, env->result, sizeof(env->result));
	if (case_fd >= 0)
		close(case_fd);
	if (fail_fd >= 0)
		close(fail_fd);
	log_case_result(name, env->result);
	return ret;
}

/*
 * fail_page_alloc fails 30% of this task's page allocations while the
 * cache churns.  A failed slab allocation of the cache's order falls back
 * to order 0; when that fails too, kmem_cache_alloc() returns NULL.  So
 * the failures injected are one per order-0 slab plus two per NULL.
 */
TEST_F(fault, fail_page_alloc_during_churn)
{
	struct case_env *env = &self->env;
	long long times, injected, free_before, live_before, ret;
	long long free_moved, live_moved;
	bool have_knob = self->knob_saved[0];
	char value[32];

	times = FPA_TIMES;
	snprintf(value, sizeof(value), "%lld", times);
	ASSERT_EQ(0, fpa_write("times", value));
	ASSERT_EQ(0, fpa_write("interval", "1"));
	shrink_slab_caches();
	live_before = have_knob ? live_slabs() : 0;
	free_before = free_pages_now();

	ASSERT_EQ(0, fpa_write("probability", "30"));
	ret = run_failing(env, "churn", CHURN_ROUNDS);
	fpa_write("probability", "0");
	ASSERT_EQ(0, ret);

	injected = times - file_value(FAIL_PAGE_ALLOC, "times");
	ksft_print_msg("fail_page_alloc injected %lld failures\n", injected);
	EXPECT_LE(MIN_INJECTED, injected);
	EXPECT_EQ(injected, res(env, "slabs_of_order_0") + 2 * res(env, "failed"))
		TH_LOG("failures injected by fail_page_alloc are not those the cache saw");
	EXPECT_LT(0, res(env, "failed"));

	/* Every slab of the cache went back. */
	EXPECT_EQ(0, file_value(CHURN_CACHE, "slabs"));
	EXPECT_EQ(0, file_value(CHURN_CACHE, "objects"));
	shrink_slab_caches();
	free_moved = free_pages_now() - free_before;
	live_moved = have_knob ? live_slabs() - live_before : 0;
	ksft_print_msg("free pages %+lld, live slabs %+lld over the run\n",
		       free_moved, live_moved);
	EXPECT_GE(FREE_PAGES_SLACK, llabs(free_moved));
	EXPECT_GE(SLABS_SLACK, llabs(live_moved));
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

/*
 * fail-nth=N fails the Nth fault injection point this task reaches:
 * 1 is the slab page allocation of the cache's order, and the slab comes
 * from the order-0 fallback; 2 would be that fallback, not reached when
 * the first allocation succeeds.
 */
static void one_alloc_with_fail_nth(struct __test_metadata *_metadata,
				    struct case_env *env, const char *nth,
				    long long *nth_after)
{
	char buf[32];
	int nth_fd, case_fd;
	ssize_t n;

	/* Both files are opened first: opening allocates. */
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	ASSERT_LE(0, nth_fd);
	case_fd = case_open("one_alloc");
	ASSERT_LE(0, case_fd);
	ASSERT_EQ((ssize_t)strlen(nth), write(nth_fd, nth, strlen(nth)));
	ASSERT_EQ(0, case_start(case_fd, 0));
	n = pread(nth_fd, buf, sizeof(buf) - 1, 0);
	ASSERT_LT(0, n);
	buf[n] = '\0';
	*nth_after = strtoll(buf, NULL, 0);
	ASSERT_EQ(1, write(nth_fd, "0", 1));
	ASSERT_EQ(0, case_result(case_fd, env->result, sizeof(env->result)));
	ASSERT_NE('\0', env->result[0]);
	ksft_print_msg("fail-nth %s: %lld left\n", nth, *nth_after);
	log_case_result("one_alloc", env->result);
	close(case_fd);
	close(nth_fd);
}

TEST_F(fault, fail_nth_first_slab_page)
{
	struct case_env *env = &self->env;
	long long nth_after;

	one_alloc_with_fail_nth(_metadata, env, "1", &nth_after);
	EXPECT_EQ(0, nth_after) TH_LOG("the failure was not injected");
	EXPECT_EQ(1, res(env, "allocated"));
	EXPECT_EQ(0, res(env, "slab_order"));

	one_alloc_with_fail_nth(_metadata, env, "2", &nth_after);
	EXPECT_EQ(1, nth_after) TH_LOG("a second fault injection point was reached");
	EXPECT_EQ(1, res(env, "allocated"));
	EXPECT_EQ(file_value(CHURN_CACHE, "order"), res(env, "slab_order"));

	EXPECT_EQ(0, file_value(CHURN_CACHE, "slabs"));
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

/* ---------------------------------------------------------------- memcg */

/* mm_page_free_frozen events of this process from the charge failure */
struct charge_frees {
	struct tep_format_field *call_site;
	int pid;
	unsigned long long site;	/* its address, once resolved */
	long long nr;
};

static int count_charge_free(struct tep_event *event, struct tep_record *rec,
			     int cpu, void *data)
{
	struct charge_frees *c = data;
	unsigned long long addr;
	char name[128];

	if (tep_data_pid(event->tep, rec) != c->pid ||
	    tep_read_number_field(c->call_site, rec->data, &addr))
		return 0;
	if (!c->site) {
		symbol_of(addr, name, sizeof(name));
		if (strncmp(name, "__alloc_frozen_pages", 20))
			return 0;
		c->site = addr;
	}
	c->nr += addr == c->site;
	return 0;
}

FIXTURE(memcg) {
	struct case_env env;
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	bool in_cgroup;
	char why[1024];
};

FIXTURE_SETUP(memcg)
{
	const char *why = cases_ready(self->why, sizeof(self->why));

	if (why)
		SKIP(return, "%s", why);
	if (access(CGROUP_ROOT "/cgroup.subtree_control", F_OK))
		SKIP(return, "no cgroup v2 at %s", CGROUP_ROOT);
	ASSERT_EQ(0, write_file(CGROUP_ROOT "/cgroup.subtree_control", "+memory"));
	rmdir(CGROUP);
	ASSERT_EQ(0, mkdir(CGROUP, 0755));
	if (tracefs_event_file_exists(NULL, "kmem", "mm_page_free_frozen", "format")) {
		self->inst = tracefs_instance_create("frozen_fault_test");
		ASSERT_NE(NULL, self->inst);
		ASSERT_EQ(0, tracefs_instance_set_buffer_size(self->inst, 8192, -1));
		ASSERT_EQ(0, tracefs_event_enable(self->inst, "kmem", "mm_page_free_frozen"));
		self->tep = tracefs_local_events_system(NULL, (const char *[]){ "kmem", NULL });
		ASSERT_NE(NULL, self->tep);
	}
	ASSERT_EQ(0, open_window(_metadata, &self->env, NULL));
}

FIXTURE_TEARDOWN(memcg)
{
	char pid[16];

	kmsg_end(&self->env.kmsg);
	if (self->in_cgroup) {
		snprintf(pid, sizeof(pid), "%d", getpid());
		write_file(CGROUP_ROOT "/cgroup.procs", pid);
	}
	rmdir(CGROUP);
	if (self->inst) {
		tracefs_instance_destroy(self->inst);
		tracefs_instance_free(self->inst);
	}
	tep_free(self->tep);
}

static long long memcg_event(const char *name)
{
	char events[512];

	if (read_file(CGROUP "/memory.events", events, sizeof(events)))
		return -1;
	return result_value(events, name);
}

/*
 * Allocations of orders 0 to 4 with __GFP_ACCOUNT | __GFP_NORETRY in a
 * memcg with CHARGE_ROOM_KB below its memory.max.  __GFP_NORETRY makes a
 * failed charge give up after one reclaim and one drain of the per-CPU
 * charge stock, without an OOM kill; each of the two attempts raises a
 * "max" event in memory.events.  A charge that hits the limit and then
 * succeeds raises one.  Each failed charge reclaims first: under KASAN
 * and TCG the test took 25 s, near the harness's default of 30, so it
 * has the knob tests' 100 (below the target's own timeout).
 */
TEST_F_TIMEOUT(memcg, charge_failure_frees_frozen, 100)
{
	struct case_env *env = &self->env;
	struct charge_frees frees = { .pid = getpid() };
	long long max_before, max_events, current, failed;
	char value[32];

	snprintf(value, sizeof(value), "%d", getpid());
	ASSERT_EQ(0, write_file(CGROUP "/cgroup.procs", value));
	self->in_cgroup = true;
	current = file_value(CGROUP, "memory.current");
	ASSERT_LE(0, current);
	snprintf(value, sizeof(value), "%lld", current + CHARGE_ROOM_KB * 1024);
	ASSERT_EQ(0, write_file(CGROUP "/memory.max", value));
	max_before = memcg_event("max");

	if (self->inst)
		ASSERT_EQ(0, tracefs_trace_on(self->inst));
	ASSERT_EQ(0, run_logged(env, "charge", CHARGE_ATTEMPTS));
	if (self->inst)
		tracefs_trace_off(self->inst);

	failed = res(env, "failed");
	max_events = memcg_event("max") - max_before;
	ksft_print_msg("%lld charges failed, %lld max events\n", failed, max_events);
	EXPECT_LE(MIN_INJECTED, failed);
	EXPECT_LE(2 * failed, max_events)
		TH_LOG("fewer max events than two per failed charge");
	EXPECT_GE(2 * failed + (CHARGE_ATTEMPTS - failed), max_events)
		TH_LOG("more max events than the failed and successful charges explain");
	if (self->inst) {
		struct tep_event *event = tep_find_event_by_name(self->tep, "kmem",
								 "mm_page_free_frozen");

		ASSERT_NE(NULL, event);
		frees.call_site = tep_find_field(event, "call_site");
		ASSERT_NE(NULL, frees.call_site);
		ASSERT_EQ(0, tracefs_iterate_raw_events(self->tep, self->inst, NULL, 0,
							count_charge_free, &frees));
		ksft_print_msg("%lld frozen frees from __alloc_frozen_pages*()\n", frees.nr);
		EXPECT_EQ(failed, frees.nr)
			TH_LOG("pages whose charge failed were not freed frozen, once each");
	} else {
		ksft_print_msg("no kmem:mm_page_free_frozen here: frees not counted\n");
	}
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

TEST_HARNESS_MAIN
