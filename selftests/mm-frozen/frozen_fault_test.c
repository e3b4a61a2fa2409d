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
 * mempolicy: a page fault under MPOL_PREFERRED_MANY whose allocation on
 * the preferred nodes fails takes the fallback's page.
 *
 * bench: each case of the kernel's bench (patch 0018) with its first
 * batch failing, in a page allocation after some pages (fail_page_alloc)
 * or in creating its thread (failslab), each kept to the bench by the
 * stack filter: the write fails with ENOMEM, the last complete run's
 * results stay, and the batch's pages are freed.
 *
 * No leak: the churned cache is left without slabs, and every page that
 * this task (or the bench's threads) allocated while the case ran has been
 * freed by its end.  The page allocator's own trace events tell which
 * pages those are, so that the count is exact whatever the rest of the
 * guest does meanwhile.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/mempolicy.h>

#include <event-parse.h>
#include <tracefs.h>

#include "../kselftest_harness.h"
#include "ksym.h"
#include "mm_frozen.h"
#include "page_trace.h"

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
#define TRACE_INSTANCE	"frozen_fault_test"

/*
 * The attributes of a fault injection capability (debugfs directory) that
 * a test sets, restored afterwards; the optional ones exist only with
 * CONFIG_FAULT_INJECTION_STACKTRACE_FILTER.
 */
struct fault_attr_file {
	const char *name;
	bool optional;
};

#define FAULT_COMMON_ATTRS						\
	{ "probability" }, { "interval" }, { "times" }, { "space" },	\
	{ "verbose" }, { "task-filter" }, { "ignore-gfp-wait" },	\
	{ "require-start", true }, { "require-end", true },		\
	{ "reject-start", true }, { "reject-end", true }

static const struct fault_attr_file fpa_attrs[] = {
	FAULT_COMMON_ATTRS, { "ignore-gfp-highmem" }, { "min-order" },
};

static const struct fault_attr_file failslab_attrs[] = {
	FAULT_COMMON_ATTRS, { "cache-filter" },
};

#define MAX_FAULT_ATTRS 16
_Static_assert(ARRAY_SIZE(fpa_attrs) <= MAX_FAULT_ATTRS &&
	       ARRAY_SIZE(failslab_attrs) <= MAX_FAULT_ATTRS,
	       "struct fault_saved holds MAX_FAULT_ATTRS values");

struct fault_saved {
	const char *dir;
	const struct fault_attr_file *attrs;
	unsigned int nr;
	char value[MAX_FAULT_ATTRS][32];
};

/* The number a file DIR/ATTR of sysfs or debugfs begins with; -1 if none. */
static long long file_value(const char *dir, const char *attr)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	return read_file(path, buf, sizeof(buf)) ? -1 : strtoll(buf, NULL, 0);
}

static int fault_write(const char *dir, const char *attr, const char *value)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	return write_file(path, value);
}

static int fpa_write(const char *attr, const char *value)
{
	return fault_write(FAIL_PAGE_ALLOC, attr, value);
}

/*
 * Saves the @nr attributes @attrs of capability @dir into @s; one the
 * kernel does not have is saved as "", not restored.
 */
static bool fault_save(struct fault_saved *s, const char *dir,
		       const struct fault_attr_file *attrs, unsigned int nr)
{
	char path[PATH_MAX];
	unsigned int i;
	int ret;

	*s = (struct fault_saved){ .dir = dir, .attrs = attrs, .nr = nr };
	for (i = 0; i < nr; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, attrs[i].name);
		ret = read_file(path, s->value[i], sizeof(s->value[i]));
		if (ret == -ENOENT && attrs[i].optional)
			s->value[i][0] = '\0';
		else if (ret)
			return false;
	}
	return true;
}

/* Probability first: nothing fails while the others are put back. */
static void fault_restore(const struct fault_saved *s)
{
	unsigned int i;

	for (i = 0; s->dir && i < s->nr; i++)
		if (s->value[i][0])
			fault_write(s->dir, s->attrs[i].name, s->value[i]);
}

/*
 * Sets KIND-start and KIND-end of capability @dir (KIND "require" or
 * "reject") to the text of @function, which is logged.  Returns 0, or -1
 * on error.
 */
static int fault_stack_filter(const char *dir, const char *kind,
			      const char *function)
{
	unsigned long long start, end;
	char attr[32], value[32];

	if (symbol_range(function, &start, &end))
		return -1;
	snprintf(attr, sizeof(attr), "%s-start", kind);
	snprintf(value, sizeof(value), "%#llx", start);
	if (fault_write(dir, attr, value))
		return -1;
	snprintf(attr, sizeof(attr), "%s-end", kind);
	snprintf(value, sizeof(value), "%#llx", end);
	if (fault_write(dir, attr, value))
		return -1;
	ksft_print_msg("%s: %s %s (%#llx-%#llx)\n", dir, kind, function, start, end);
	return 0;
}

/*
 * Makes capability @dir fail every allocation, whoever makes it, under
 * @function only (its stack filter), FPA_TIMES times at most.
 * Probability stays 0, for the case.
 */
static int fault_only_under(const char *dir, const char *function)
{
	char times[32];

	snprintf(times, sizeof(times), "%d", FPA_TIMES);
	return fault_write(dir, "probability", "0") ?:
	       fault_write(dir, "verbose", "0") ?:
	       fault_write(dir, "interval", "1") ?:
	       fault_write(dir, "space", "0") ?:
	       fault_write(dir, "times", times) ?:
	       fault_write(dir, "task-filter", "N") ?:
	       fault_write(dir, "ignore-gfp-wait", "N") ?:
	       fault_stack_filter(dir, "require", function);
}

/*
 * A failure injected into this task must meet the case only: a page of the
 * program (its text, from the page cache, or its data) first touched
 * while make-it-fail is on would be allocated by this task too.
 * mlockall() faults in everything that is mapped now.
 */
static int fault_in_program(void)
{
	return mlockall(MCL_CURRENT) ? -errno : 0;
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

	if (access(FAIL_PAGE_ALLOC "/reject-start", F_OK) ||
	    symbol_range(STACK_DEPOT_SAVE, &start, &end))
		return 0;
	return fault_stack_filter(FAIL_PAGE_ALLOC, "reject", STACK_DEPOT_SAVE);
}

/* ---------------------------------------------------------------- fault */

FIXTURE(fault) {
	struct case_env env;
	struct fault_saved fpa;
	struct page_trace trace;
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
	ASSERT_TRUE(fault_save(&self->fpa, FAIL_PAGE_ALLOC, fpa_attrs,
			       ARRAY_SIZE(fpa_attrs)));
	ASSERT_EQ(0, fault_in_program());
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
	page_trace_end(&self->trace);
	write_file(MAKE_IT_FAIL, "0");
	if (self->fpa_saved)
		fault_restore(&self->fpa);
	knob_restore(self->knob_saved);
}

/*
 * Runs case @name with @arg while fail_page_alloc may fail this task's
 * allocations (make-it-fail), and logs its result.  Both files are opened
 * before and the result is read after: opening a file allocates (a slab
 * page for its name, now and then), and nothing but the case may meet an
 * injected failure.  Markers in @trace bound the case's own allocations.
 */
static int run_failing(struct case_env *env, struct page_trace *trace,
		       const char *name, unsigned int arg)
{
	int fail_fd = open(MAKE_IT_FAIL, O_WRONLY);
	int case_fd = case_open(name);
	int ret;

	env->result[0] = '\0';
	if (fail_fd < 0 || case_fd < 0)
		ret = -errno;
	else if (page_trace_mark(trace, "case starts\n") ||
		 write(fail_fd, "1", 1) != 1)
		ret = -errno;
	else
		ret = case_start(case_fd, arg);
	if (fail_fd >= 0 && write(fail_fd, "0", 1) != 1 && !ret)
		ret = -errno;
	if (page_trace_mark(trace, "case ends\n") && !ret)
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
	long long times, injected, ret;
	char value[32];
	long held;

	times = FPA_TIMES;
	snprintf(value, sizeof(value), "%lld", times);
	ASSERT_EQ(0, fpa_write("times", value));
	ASSERT_EQ(0, fpa_write("interval", "1"));
	snprintf(value, sizeof(value), "common_pid == %d", getpid());
	ASSERT_EQ(0, page_trace_start(&self->trace, TRACE_INSTANCE, value))
		TH_LOG("cannot trace kmem:mm_page_alloc and the frees in %s",
		       TRACE_INSTANCE);

	ASSERT_EQ(0, fpa_write("probability", "30"));
	ret = run_failing(env, &self->trace, "churn", CHURN_ROUNDS);
	fpa_write("probability", "0");
	ASSERT_EQ(0, ret);

	injected = times - file_value(FAIL_PAGE_ALLOC, "times");
	ksft_print_msg("fail_page_alloc injected %lld failures\n", injected);
	EXPECT_LE(MIN_INJECTED, injected);
	EXPECT_EQ(injected, res(env, "slabs_of_order_0") + 2 * res(env, "failed"))
		TH_LOG("failures injected by fail_page_alloc are not those the cache saw");
	EXPECT_LT(0, res(env, "failed"));

	/* Every slab of the cache went back, and every page. */
	EXPECT_EQ(0, file_value(CHURN_CACHE, "slabs"));
	EXPECT_EQ(0, file_value(CHURN_CACHE, "objects"));
	held = page_trace_held(&self->trace, PFN_FIRST, PFN_END);
	ASSERT_LE(0, held) TH_LOG("cannot read the trace, or it lacks a marker");
	ksft_print_msg("%ld pages allocated by the case are held, of %zu page events traced\n",
		       held, self->trace.nr);
	EXPECT_EQ(0, self->trace.lost) TH_LOG("the trace lost events");
	EXPECT_EQ(0, held) TH_LOG("pages the case allocated were never freed");
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
		self->inst = tracefs_instance_create(TRACE_INSTANCE);
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
	trace_instance_end(self->inst, self->tep);
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

/* ------------------------------------------------------------ mempolicy */

/*
 * The function that allocates under a memory policy and calls
 * alloc_pages_preferred_many(): 0002 makes alloc_pages_mpol_noprof() the
 * static alloc_pages_mpol().
 */
static const char * const mpol_alloc[] = {
	"alloc_pages_mpol", "alloc_pages_mpol_noprof",
};

/* The first of mpol_alloc[] that the kernel has, or NULL. */
static const char *mpol_alloc_function(void)
{
	unsigned long long start, end;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mpol_alloc); i++)
		if (!symbol_range(mpol_alloc[i], &start, &end))
			return mpol_alloc[i];
	return NULL;
}

FIXTURE(mempolicy) {
	struct case_env env;
	struct fault_saved fpa;
	char *area;
	long page_size;
};

FIXTURE_SETUP(mempolicy)
{
	const char *mpol = mpol_alloc_function();

	if (access(FAIL_PAGE_ALLOC "/require-start", F_OK))
		SKIP(return, "no %s/require-start: kernel without "
		     "CONFIG_FAULT_INJECTION_STACKTRACE_FILTER, which keeps a "
		     "failure to the memory policy's allocation", FAIL_PAGE_ALLOC);
	if (!mpol)
		SKIP(return, "neither %s() nor %s() in /proc/kallsyms",
		     mpol_alloc[0], mpol_alloc[1]);
	self->page_size = sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, fault_in_program());	/* before the area: it is not */
	self->area = mmap(NULL, 2 * self->page_size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->area);
	ASSERT_TRUE(fault_save(&self->fpa, FAIL_PAGE_ALLOC, fpa_attrs,
			       ARRAY_SIZE(fpa_attrs)));
	ASSERT_EQ(0, open_window(_metadata, &self->env, NULL));
	ASSERT_EQ(0, fault_only_under(FAIL_PAGE_ALLOC, mpol));
	ASSERT_EQ(0, fpa_write("min-order", "0"));
	ASSERT_EQ(0, fpa_write("ignore-gfp-highmem", "N"));
	ASSERT_EQ(0, fpa_write("task-filter", "Y"));
	ASSERT_EQ(0, fpa_spare_stack_depot());
}

FIXTURE_TEARDOWN(mempolicy)
{
	kmsg_end(&self->env.kmsg);
	write_file(MAKE_IT_FAIL, "0");
	syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0);
	fault_restore(&self->fpa);
	if (self->area && self->area != MAP_FAILED)
		munmap(self->area, 2 * self->page_size);
}

/*
 * A page fault under MPOL_PREFERRED_MANY whose allocation on the preferred
 * nodes fails (fail_page_alloc, once, in this task and under
 * alloc_pages_mpol()) takes its page from the fallback to any node, which
 * 0013 makes a frozen allocation too: the page is there, written and read,
 * and goes back at munmap() without a complaint of the kernel.
 */
TEST_F(mempolicy, preferred_many_fallback)
{
	unsigned long nodes = 1;	/* node 0, which every kernel has */
	char *page = self->area + self->page_size;
	int fail_fd;

	self->area[0] = 1;	/* the page table, before any failure */
	ASSERT_EQ(0, syscall(SYS_set_mempolicy, MPOL_PREFERRED_MANY, &nodes,
			     8 * sizeof(nodes)));
	ASSERT_EQ(0, fpa_write("times", "1"));
	fail_fd = open(MAKE_IT_FAIL, O_WRONLY);
	ASSERT_LE(0, fail_fd);
	ASSERT_EQ(0, fpa_write("probability", "100"));
	ASSERT_EQ(1, write(fail_fd, "1", 1));
	*page = 2;
	ASSERT_EQ(1, write(fail_fd, "0", 1));
	close(fail_fd);
	fpa_write("probability", "0");

	EXPECT_EQ(0, file_value(FAIL_PAGE_ALLOC, "times"))
		TH_LOG("the allocation on the preferred nodes did not fail");
	EXPECT_EQ(2, *page);
	EXPECT_EQ(0, munmap(self->area, 2 * self->page_size));
	self->area = NULL;
	EXPECT_EQ(0, kmsg_count(&self->env.kmsg, NULL));
}

/* ---------------------------------------------------------------- bench */

#define BENCH		"/sys/kernel/debug/frozen_pages/bench"
#define FAILSLAB	"/sys/kernel/debug/failslab"
#define BENCH_BATCH	"batch_thread"	/* runs each batch, in its thread */
#define BENCH_NEW_BATCH	"run_batch"	/* creates each batch's thread */
#define BENCH_ITERS	64
#define BENCH_GOOD_RUN	"pages 0 1 1"	/* the last complete run, kept */

FIXTURE(bench) {
	struct case_env env;
	struct fault_saved fpa, failslab;
	struct page_trace trace;
	char before[4096];	/* what the bench showed before the case */
	char why[1024];
};

/*
 * A bench case of order 0 whose first batch fails: after @got pages
 * allocated in it (with the failure injected into the next), or when its
 * thread cannot be created.  The failures injected into its allocations:
 * a slab's page allocation falls back once.
 */
FIXTURE_VARIANT(bench) {
	const char *name;
	unsigned int got;
	long long injected;
};

FIXTURE_VARIANT_ADD(bench, pages) {
	.name = "pages", .got = 0, .injected = 1,
};

FIXTURE_VARIANT_ADD(bench, slab) {
	.name = "slab", .got = 0, .injected = 2,
};

FIXTURE_VARIANT_ADD(bench, cross) {
	.name = "cross", .got = 8, .injected = 1,
};

FIXTURE_SETUP(bench)
{
	if (access(BENCH, F_OK))
		SKIP(return, "no %s: kernel without CONFIG_FROZEN_PAGES_BENCH", BENCH);
	if (access(FAIL_PAGE_ALLOC "/require-start", F_OK) || access(FAILSLAB, F_OK))
		SKIP(return, "no %s/require-start or no %s: kernel without "
		     "CONFIG_FAULT_INJECTION_STACKTRACE_FILTER or CONFIG_FAILSLAB, "
		     "which keep a failure to the bench", FAIL_PAGE_ALLOC, FAILSLAB);
	ASSERT_EQ(0, write_file(BENCH, BENCH_GOOD_RUN));
	ASSERT_EQ(0, read_file(BENCH, self->before, sizeof(self->before)));
	ASSERT_TRUE(fault_save(&self->fpa, FAIL_PAGE_ALLOC, fpa_attrs,
			       ARRAY_SIZE(fpa_attrs)));
	ASSERT_TRUE(fault_save(&self->failslab, FAILSLAB, failslab_attrs,
			       ARRAY_SIZE(failslab_attrs)));
	ASSERT_EQ(0, open_window(_metadata, &self->env, variant->name));
	ASSERT_EQ(0, fpa_write("min-order", "0"));
	ASSERT_EQ(0, fpa_write("ignore-gfp-highmem", "N"));
	ASSERT_EQ(0, fault_write(FAILSLAB, "cache-filter", "N"));
	ASSERT_EQ(0, fpa_spare_stack_depot());
}

FIXTURE_TEARDOWN(bench)
{
	kmsg_end(&self->env.kmsg);
	page_trace_end(&self->trace);
	fault_restore(&self->failslab);
	fault_restore(&self->fpa);
}

/*
 * Writes @variant's case to the bench, between two markers in @trace,
 * while capability @dir fails what it may: the write's errno, or 0.
 */
static int bench_write_failing(const FIXTURE_VARIANT(bench) *variant,
			       struct page_trace *trace, const char *dir)
{
	char line[64];
	int err;

	snprintf(line, sizeof(line), "%s 0 %d 2", variant->name, BENCH_ITERS);
	if (page_trace_mark(trace, "bench starts\n") ||
	    fault_write(dir, "probability", "100"))
		return -1;
	err = -write_file(BENCH, line);
	fault_write(dir, "probability", "0");
	if (page_trace_mark(trace, "bench ends\n"))
		return -1;
	ksft_print_msg("\"%s\": %s\n", line, strerror(err));
	return err;
}

/*
 * What a failed run must leave: the last complete run's results, and
 * none of the pages its batch threads allocated, which are @got.
 */
static void check_failed_run(struct __test_metadata *_metadata,
			     FIXTURE_DATA(bench) *self, unsigned int got)
{
	char after[sizeof(self->before)];
	long held;

	ASSERT_EQ(0, read_file(BENCH, after, sizeof(after)));
	EXPECT_STREQ(self->before, after)
		TH_LOG("the failed run changed what the bench shows");
	held = page_trace_held(&self->trace, PFN_FIRST, PFN_END);
	ASSERT_LE(0, held) TH_LOG("cannot read the trace, or it lacks a marker");
	ksft_print_msg("the batch threads allocated %zu pages, %ld of them held\n",
		       self->trace.got, held);
	EXPECT_EQ(0, self->trace.lost) TH_LOG("the trace lost events");
	EXPECT_EQ(got, self->trace.got)
		TH_LOG("the batch did not fail where the failure was injected");
	EXPECT_EQ(0, held) TH_LOG("pages of the failed batch were never freed");
	EXPECT_EQ(0, kmsg_count(&self->env.kmsg, NULL));
}

/*
 * fail_page_alloc fails the allocations under batch_thread() once its
 * space is used by @got pages: the write fails with ENOMEM and the pages
 * got before are freed.
 */
TEST_F(bench, page_alloc_fails)
{
	char value[32];
	int err;

	ASSERT_EQ(0, fault_only_under(FAIL_PAGE_ALLOC, BENCH_BATCH));
	/*
	 * space goes down by each allocation's size, in pages (1 << order),
	 * while it is above it
	 */
	snprintf(value, sizeof(value), "%u", variant->got + 1);
	ASSERT_EQ(0, fpa_write("space", value));
	ASSERT_EQ(0, page_trace_start(&self->trace, TRACE_INSTANCE, "comm ~ \"bench_*\""));
	err = bench_write_failing(variant, &self->trace, FAIL_PAGE_ALLOC);
	EXPECT_EQ(ENOMEM, err);
	EXPECT_EQ(variant->injected, FPA_TIMES - file_value(FAIL_PAGE_ALLOC, "times"))
		TH_LOG("not the failures injected that the case allows");
	check_failed_run(_metadata, self, variant->got);
}

/* failslab fails the first batch's thread creation, under run_batch(). */
TEST_F(bench, thread_create_fails)
{
	int err;

	ASSERT_EQ(0, fault_only_under(FAILSLAB, BENCH_NEW_BATCH));
	ASSERT_EQ(0, page_trace_start(&self->trace, TRACE_INSTANCE, "comm ~ \"bench_*\""));
	err = bench_write_failing(variant, &self->trace, FAILSLAB);
	EXPECT_EQ(ENOMEM, err);
	EXPECT_EQ(1, FPA_TIMES - file_value(FAILSLAB, "times"))
		TH_LOG("not one failure injected");
	check_failed_run(_metadata, self, 0);
}

TEST_HARNESS_MAIN
