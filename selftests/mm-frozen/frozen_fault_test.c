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
 * No leak: the churned cache is left without slabs, and every page that
 * this task allocated while the churn ran has been freed by its end.  The
 * page allocator's own trace events tell which pages those are, so that
 * the count is exact whatever the rest of the guest does meanwhile.
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
#define TRACE_INSTANCE	"frozen_fault_test"
#define TRACE_BUFFER_KB	4096	/* per CPU: the churn's events fit many times */

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

/* ---------------------------------------------------------- held pages */

/*
 * One page of a page allocation or free that the trace saw.  An
 * allocation counts as the case's when this task made it, outside an
 * interrupt (whose allocations belong to whatever it interrupted),
 * between the two markers that run_failing() writes around the case.
 */
struct page_ev {
	unsigned long long ts, gfp;
	unsigned long pfn;
	size_t seq;
	unsigned int order;	/* of the allocation or free */
	bool alloc, by_task;
};

struct page_trace {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct tep_event *alloc, *free, *batched, *marker;
	int marker_fd;
	int pid;
	unsigned int markers, lost;
	bool out_of_memory;		/* some events were not kept */
	unsigned long long window[2];	/* the markers' times */
	struct page_ev *ev;
	size_t nr, cap;
};

/*
 * kmem:mm_page_alloc of this task only, every free whoever frees, and the
 * markers, on one clock for all CPUs.  The marker file is opened here, as
 * opening allocates.  Returns 0, or -1 on error.
 */
static int page_trace_start(struct page_trace *t)
{
	static const char * const systems[] = { "kmem", "ftrace", NULL };
	char filter[64];

	*t = (struct page_trace){ .pid = getpid(), .marker_fd = -1 };
	t->inst = tracefs_instance_create(TRACE_INSTANCE);
	if (!t->inst)
		return -1;
	snprintf(filter, sizeof(filter), "common_pid == %d", t->pid);
	if (tracefs_instance_file_write(t->inst, "trace_clock", "global") < 0 ||
	    tracefs_instance_set_buffer_size(t->inst, TRACE_BUFFER_KB, -1) ||
	    tracefs_event_file_write(t->inst, "kmem", "mm_page_alloc", "filter",
				     filter) < 0 ||
	    tracefs_event_enable(t->inst, "kmem", "mm_page_alloc") ||
	    tracefs_event_enable(t->inst, "kmem", "mm_page_free") ||
	    tracefs_event_enable(t->inst, "kmem", "mm_page_free_batched"))
		return -1;
	t->marker_fd = tracefs_instance_file_open(t->inst, "trace_marker", O_WRONLY);
	if (t->marker_fd < 0)
		return -1;
	t->tep = tracefs_local_events_system(NULL, systems);
	if (!t->tep)
		return -1;
	t->alloc = tep_find_event_by_name(t->tep, "kmem", "mm_page_alloc");
	t->free = tep_find_event_by_name(t->tep, "kmem", "mm_page_free");
	t->batched = tep_find_event_by_name(t->tep, "kmem", "mm_page_free_batched");
	t->marker = tep_find_event_by_name(t->tep, "ftrace", "print");
	if (!t->alloc || !t->free || !t->batched || !t->marker)
		return -1;
	return tracefs_trace_on(t->inst);
}

/* A marker in the trace, written from a constant: nothing is allocated. */
static int page_trace_mark(const struct page_trace *t, const char *text)
{
	ssize_t len = strlen(text);

	return write(t->marker_fd, text, len) == len ? 0 : -1;
}

/* Removes the instance of a trace that page_trace_start() began. */
static void page_trace_end(struct page_trace *t)
{
	if (!t->inst)
		return;
	if (t->marker_fd >= 0)
		close(t->marker_fd);
	trace_instance_end(t->inst, t->tep);
	free(t->ev);
	*t = (struct page_trace){};
}

/* A number field of @rec, 0 if @event has none. */
static unsigned long long field_of(struct tep_event *event, const char *name,
				   struct tep_record *rec)
{
	unsigned long long v = 0;

	tep_get_field_val(NULL, event, name, rec, &v, 0);
	return v;
}

/* Adds a page event for each page of the block; -1 when out of memory. */
static int add_pages(struct page_trace *t, const struct page_ev *block)
{
	unsigned long i, nr = 1UL << block->order;

	if (t->nr + nr > t->cap) {
		size_t cap = 2 * (t->nr + nr);
		struct page_ev *ev = realloc(t->ev, cap * sizeof(*ev));

		if (!ev) {
			t->out_of_memory = true;
			return -1;
		}
		t->ev = ev;
		t->cap = cap;
	}
	for (i = 0; i < nr; i++, t->nr++) {
		t->ev[t->nr] = *block;
		t->ev[t->nr].pfn += i;
		t->ev[t->nr].seq = t->nr;
	}
	return 0;
}

static int collect_page_event(struct tep_event *event, struct tep_record *rec,
			      int cpu, void *data)
{
	struct page_trace *t = data;
	int irq = tep_data_flags(t->tep, rec) &
		  (TRACE_FLAG_HARDIRQ | TRACE_FLAG_SOFTIRQ);
	struct page_ev block = { .ts = rec->ts };

	t->lost += !!rec->missed_events;
	if (event == t->marker) {
		/* the earliest and the latest: the CPUs' buffers come apart */
		if (!t->markers++ || rec->ts < t->window[0])
			t->window[0] = rec->ts;
		if (rec->ts > t->window[1])
			t->window[1] = rec->ts;
		return 0;
	}
	if (event != t->alloc && event != t->free && event != t->batched)
		return 0;
	block.pfn = field_of(event, "pfn", rec);
	if (block.pfn == -1UL)		/* an allocation that failed */
		return 0;
	if (event != t->batched)
		block.order = field_of(event, "order", rec);
	block.alloc = event == t->alloc;
	if (block.alloc) {
		block.gfp = field_of(event, "gfp_flags", rec);
		block.by_task = tep_data_pid(t->tep, rec) == t->pid && !irq;
	}
	return add_pages(t, &block);
}

/* By pfn, then in time order: each page's life in one run. */
static int page_ev_cmp(const void *a, const void *b)
{
	const struct page_ev *x = a, *y = b;

	if (x->pfn != y->pfn)
		return x->pfn < y->pfn ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Stops the trace and counts the pages that the case allocated and that
 * nobody freed after: those whose last event is such an allocation.  Logs
 * the first few.  Returns -1 when the trace cannot be read or has not
 * both markers.
 */
static long page_trace_held(struct page_trace *t)
{
	const struct page_ev *e;
	long nr_held = 0;
	size_t i;

	tracefs_trace_off(t->inst);
	if (tracefs_iterate_raw_events(t->tep, t->inst, NULL, 0,
				       collect_page_event, t) ||
	    t->out_of_memory || t->markers != 2)
		return -1;
	qsort(t->ev, t->nr, sizeof(*t->ev), page_ev_cmp);
	for (i = 0; i < t->nr; i++) {
		e = &t->ev[i];
		if (i + 1 < t->nr && t->ev[i + 1].pfn == e->pfn)
			continue;
		if (!e->alloc || !e->by_task ||
		    e->ts < t->window[0] || e->ts > t->window[1])
			continue;
		if (nr_held++ < 8)
			ksft_print_msg("held: pfn %#lx of an order-%u allocation, gfp %#llx\n",
				       e->pfn, e->order, e->gfp);
	}
	return nr_held;
}

/* ---------------------------------------------------------------- fault */

FIXTURE(fault) {
	struct case_env env;
	struct fpa_saved fpa;
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
	page_trace_end(&self->trace);
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
	ASSERT_EQ(0, page_trace_start(&self->trace))
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
	held = page_trace_held(&self->trace);
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

TEST_HARNESS_MAIN
