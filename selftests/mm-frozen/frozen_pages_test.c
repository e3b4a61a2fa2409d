// SPDX-License-Identifier: GPL-2.0
/*
 * frozen_pages_test - follows the refcount of pages from their allocation
 * to their free with the page_ref and kmem tracepoints, and checks that
 * slab pages are allocated and freed frozen (no refcount atomic) while
 * alloc_pages()/__free_pages() pages keep theirs.
 *
 * The mm_frozen_test module (built next to this program) allocates and
 * frees the pages on demand and lists them; the trace of a private tracefs
 * instance, read with libtracefs and libtraceevent, is cut per pfn into
 * lifetimes: from the previous free of the pfn to the free that follows
 * the allocation made by this process.
 *
 * If MMF_RESULTS names a writable directory, the counts of every check go
 * to $MMF_RESULTS/counts.json.
 *
 * The contig tests check the refcounts of the pages that
 * alloc_contig_range() hands out, with mm_frozen_cases.ko; the frees
 * tests two frees of 0003 that nothing else takes for sure; the thp test
 * faults a huge page in.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "../kselftest_harness.h"
#include "ksym.h"
#include "mm_frozen.h"
#include "page_trace.h"

#define MODULE_NAME	"mm_frozen_test"
#define MODULE_DIR	"/sys/kernel/debug/" MODULE_NAME
#define INSTANCE	"mm_frozen_test"
#define BUFFER_KB	16384	/* per CPU: no event may be lost */
#define NR_PAGES	64	/* pages asked of each trigger */

enum ev_kind {
	EV_ALLOC,
	EV_FREE,	/* ends a lifetime */
	EV_FREE_FROZEN,
	EV_REF_SET,
	EV_REF_ATOMIC,
	EV_REF_AND_TEST,	/* an atomic whose ret says "reached zero" */
};

struct ev_type {
	const char *system;
	const char *name;
	enum ev_kind kind;
	bool optional;
};

static const struct ev_type ev_types[] = {
	{ "kmem", "mm_page_alloc", EV_ALLOC },
	{ "kmem", "mm_page_free", EV_FREE },
	{ "kmem", "mm_page_free_batched", EV_FREE },
	{ "kmem", "mm_page_free_frozen", EV_FREE_FROZEN, true },
	{ "page_ref", "page_ref_set", EV_REF_SET },
	{ "page_ref", "page_ref_mod", EV_REF_ATOMIC },
	{ "page_ref", "page_ref_mod_and_return", EV_REF_ATOMIC },
	{ "page_ref", "page_ref_mod_unless", EV_REF_ATOMIC },
	{ "page_ref", "page_ref_mod_and_test", EV_REF_AND_TEST },
};

#define NR_EV_TYPES ARRAY_SIZE(ev_types)

struct ev_fields {
	struct tep_event *event;
	struct tep_format_field *pfn, *order, *call_site, *count, *val, *ret;
};

struct ev {
	unsigned long long ts, call_site;
	unsigned long pfn;
	size_t seq;
	enum ev_kind kind;
	int pid, order, count, val, ret;
};

struct trace {
	const struct ev_fields *fields;
	struct tep_handle *tep;
	struct ev *ev;
	size_t nr, alloc;
	unsigned int lost;
};

struct env {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct ev_fields fields[NR_EV_TYPES];
	bool free_frozen;	/* kmem:mm_page_free_frozen exists */
	bool loaded;
	char reason[2 * PATH_MAX];
};

/* A page listed by the module: "pfn order refcount". */
struct mft_page {
	unsigned long pfn;
	unsigned int order;
	int refcount;
};

/* What happened to one page between its allocation and its free. */
struct life {
	unsigned int atomics, to_zero, ref_sets, ref_sets_1;
	const struct ev *frozen;
};

enum section {
	SEC_SLAB, SEC_FREE_PAGES, SEC_ALLOC_PAGES, SEC_ALLOC_SLAB,
	SEC_KNOB_0, SEC_KNOB_1, NR_SECTIONS
};

static const char * const section_names[NR_SECTIONS] = {
	"slab", "free_pages", "alloc_pages", "alloc_slab", "knob_0", "knob_1",
};

/*
 * Per check: pages listed by the module; atomics, the refcount atomics in
 * their lifetimes; every other field counts pages.
 */
struct tally {
	bool ran;
	unsigned int pages, traced, atomics, no_atomics, one_to_zero;
	unsigned int ref_set, ref_set_1, frozen, frozen_from_slab;
	unsigned int live_0, live_1;
};

/* Shared with the forked tests, so that each rewrites counts.json whole. */
static struct counts {
	bool free_frozen_event;	/* kmem:mm_page_free_frozen exists */
	struct tally tally[NR_SECTIONS];
} *counts;

static void __attribute__((constructor)) counts_init(void)
{
	counts = mmap(NULL, sizeof(*counts), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counts == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
}

static void write_tally(FILE *f, enum section s)
{
	const struct tally *t = &counts->tally[s];

	fprintf(f, "  \"%s\": ", section_names[s]);
	if (!t->ran) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"pages\": %u, \"traced\": %u, \"atomics\": %u, ",
		t->pages, t->traced, t->atomics);
	fprintf(f, "\"pages_without_atomics\": %u, ", t->no_atomics);
	fprintf(f, "\"pages_one_atomic_to_zero\": %u, ", t->one_to_zero);
	fprintf(f, "\"pages_ref_set\": %u, \"pages_ref_set_1\": %u, ",
		t->ref_set, t->ref_set_1);
	fprintf(f, "\"frozen_frees\": %u, \"frozen_frees_from_slab\": %u, ",
		t->frozen, t->frozen_from_slab);
	fprintf(f, "\"live_refcount_0\": %u, \"live_refcount_1\": %u}",
		t->live_0, t->live_1);
}

static void write_counts(void)
{
	const char *dir = getenv("MMF_RESULTS");
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	const char *variant = getenv("MMF_VARIANT");
	FILE *f;
	int s;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/counts.json", dir);
	snprintf(tmp, sizeof(tmp), "%s.%d", path, getpid());
	f = fopen(tmp, "w");
	if (!f) {
		ksft_print_msg("cannot write %s: %s\n", tmp, strerror(errno));
		return;
	}
	fprintf(f, "{\n  \"variant\": \"%s\",\n", variant ? variant : "unknown");
	fprintf(f, "  \"free_frozen_event\": %s,\n",
		counts->free_frozen_event ? "true" : "false");
	for (s = 0; s < NR_SECTIONS; s++) {
		write_tally(f, s);
		fputs(s + 1 < NR_SECTIONS ? ",\n" : "\n}\n", f);
	}
	if (fclose(f) || rename(tmp, path))
		ksft_print_msg("cannot write %s: %s\n", path, strerror(errno));
}

static void env_teardown(struct env *env)
{
	trace_instance_end(env->inst, env->tep);
	env->inst = NULL;
	env->tep = NULL;
	if (env->loaded && syscall(SYS_delete_module, MODULE_NAME, O_NONBLOCK))
		ksft_print_msg("cannot unload %s: %s\n", MODULE_NAME,
			       strerror(errno));
	env->loaded = false;
}

static int enable_events(struct env *env)
{
	const struct ev_type *t;
	size_t i;

	if (tracefs_event_enable(env->inst, "page_ref", NULL))
		return -1;
	for (i = 0; i < NR_EV_TYPES; i++) {
		t = &ev_types[i];
		if (t->optional &&
		    !tracefs_event_file_exists(env->inst, t->system, t->name,
					       "enable"))
			continue;
		if (tracefs_event_enable(env->inst, t->system, t->name))
			return -1;
	}
	return 0;
}

static int create_instance(struct env *env)
{
	env->inst = tracefs_instance_create(INSTANCE);
	if (!env->inst)
		return -1;
	/* Events of a page may be on two CPUs: one clock for all. */
	if (tracefs_trace_off(env->inst) ||
	    tracefs_instance_file_write(env->inst, "trace_clock", "global") < 0 ||
	    tracefs_instance_set_buffer_size(env->inst, BUFFER_KB, -1))
		return -1;
	return enable_events(env);
}

static int load_formats(struct env *env)
{
	static const char * const systems[] = { "kmem", "page_ref", NULL };
	struct ev_fields *f;
	size_t i;

	env->tep = tracefs_local_events_system(NULL, systems);
	if (!env->tep)
		return -1;
	for (i = 0; i < NR_EV_TYPES; i++) {
		f = &env->fields[i];
		f->event = tep_find_event_by_name(env->tep, ev_types[i].system,
						  ev_types[i].name);
		if (!f->event) {
			if (ev_types[i].optional)
				continue;
			return -1;
		}
		env->free_frozen |= ev_types[i].kind == EV_FREE_FROZEN;
		f->pfn = tep_find_field(f->event, "pfn");
		f->order = tep_find_field(f->event, "order");
		f->call_site = tep_find_field(f->event, "call_site");
		f->count = tep_find_field(f->event, "count");
		f->val = tep_find_field(f->event, "val");
		f->ret = tep_find_field(f->event, "ret");
	}
	return 0;
}

/* Returns NULL when ready, else why the tests must be skipped. */
static const char *env_setup(struct env *env)
{
	if (geteuid())
		return "must be run as root";
	if (tracefs_tracing_dir_is_mounted(false, NULL) != 1)
		return "tracefs is not mounted";
	if (!tracefs_event_file_exists(NULL, "page_ref",
				       "page_ref_mod_and_test", "format"))
		return "no page_ref events (CONFIG_DEBUG_PAGE_REF=n)";
	if (load_test_module(MODULE_NAME, &env->loaded, env->reason,
			     sizeof(env->reason)))
		return env->reason;
	if (create_instance(env) || load_formats(env)) {
		env_teardown(env);
		return "cannot set up a tracefs instance with the kmem and page_ref events";
	}
	return NULL;
}

static unsigned long long field(struct tep_format_field *f,
				const struct tep_record *rec)
{
	unsigned long long v = 0;

	if (f)
		tep_read_number_field(f, rec->data, &v);
	return v;
}

static int collect(struct tep_event *event, struct tep_record *rec,
		   int cpu, void *data)
{
	struct trace *t = data;
	const struct ev_fields *f;
	struct ev *e;
	size_t i;

	for (i = 0; i < NR_EV_TYPES && t->fields[i].event != event; i++)
		;
	if (i == NR_EV_TYPES)
		return 0;
	if (rec->missed_events)
		t->lost++;
	if (t->nr == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 65536;
		t->ev = realloc(t->ev, t->alloc * sizeof(*t->ev));
		if (!t->ev)
			return 1;
	}
	f = &t->fields[i];
	e = &t->ev[t->nr];
	*e = (struct ev){
		.ts = rec->ts, .seq = t->nr, .kind = ev_types[i].kind,
		.pid = tep_data_pid(t->tep, rec),
		.pfn = field(f->pfn, rec), .order = field(f->order, rec),
		.call_site = field(f->call_site, rec),
		.count = field(f->count, rec), .val = field(f->val, rec),
		.ret = field(f->ret, rec),
	};
	t->nr++;
	return 0;
}

/* By pfn, then in time order: each pfn's events in one run. */
static int ev_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->pfn != y->pfn)
		return x->pfn < y->pfn ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int read_trace(struct env *env, struct trace *t)
{
	*t = (struct trace){ .fields = env->fields, .tep = env->tep };
	if (tracefs_iterate_raw_events(env->tep, env->inst, NULL, 0, collect,
				       t) || (t->alloc && !t->ev))
		return -1;
	qsort(t->ev, t->nr, sizeof(*t->ev), ev_cmp);
	return 0;
}

/* The events on @pfn: *first, and the count as the return value. */
static size_t pfn_events(const struct trace *t, unsigned long pfn,
			 const struct ev **first)
{
	size_t lo = 0, hi = t->nr, end;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->ev[mid].pfn < pfn)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < t->nr && t->ev[end].pfn == pfn; end++)
		;
	*first = &t->ev[lo];
	return end - lo;
}

static void count_event(const struct ev *e, struct life *l)
{
	switch (e->kind) {
	case EV_REF_AND_TEST:
		/* ret: the count reached zero; count: read just after. */
		if (e->ret && !e->count)
			l->to_zero++;
		/* fallthrough */
	case EV_REF_ATOMIC:
		l->atomics++;
		break;
	case EV_REF_SET:
		l->ref_sets++;
		l->ref_sets_1 += e->val == 1;
		break;
	default:
		break;
	}
}

/*
 * The lifetime of @p: the last allocation of its pfn and order by @pid
 * that a free follows, back to the previous free of the pfn (page_ref_set
 * may come before mm_page_alloc) and on to that free.  The run frees its
 * pages last thing, and the per-CPU free lists hand the page freed last
 * out first: this process may allocate the pfn again before the trace is
 * off, and that allocation is not the run's.  Returns false if not traced.
 */
static bool find_life(const struct trace *t, const struct mft_page *p,
		      pid_t pid, struct life *l)
{
	const struct ev *ev;
	size_t n = pfn_events(t, p->pfn, &ev);
	size_t a = n, s, f = n, i;

	for (i = n; i-- > 0 && a == n; ) {
		if (ev[i].kind == EV_FREE)
			f = i;
		else if (f < n && ev[i].kind == EV_ALLOC && ev[i].pid == pid &&
			 ev[i].order == (int)p->order)
			a = i;
	}
	if (a == n)
		return false;
	for (s = a; s > 0 && ev[s - 1].kind != EV_FREE; s--)
		;
	*l = (struct life){};
	for (i = s; i <= f; i++)
		count_event(&ev[i], l);
	/* mm_page_free_frozen is next to mm_page_free, on either side. */
	if (f > 0 && ev[f - 1].kind == EV_FREE_FROZEN)
		l->frozen = &ev[f - 1];
	else if (f + 1 < n && ev[f + 1].kind == EV_FREE_FROZEN)
		l->frozen = &ev[f + 1];
	return true;
}

/* Call sites seen in one run, resolved once each. */
struct sites {
	unsigned long long addr[8];
	char name[8][128];
	unsigned int hits[8], nr;
};

static const char *site_name(struct sites *s, unsigned long long addr)
{
	unsigned int i;

	for (i = 0; i < s->nr && s->addr[i] != addr; i++)
		;
	if (i == s->nr) {
		if (s->nr == ARRAY_SIZE(s->addr))
			return "?";
		s->addr[s->nr] = addr;
		symbol_of(addr, s->name[s->nr], sizeof(s->name[0]));
		s->nr++;
	}
	s->hits[i]++;
	return s->name[i];
}

static void tally_page(const struct trace *t, const struct mft_page *p,
		       struct sites *sites, struct tally *ty)
{
	struct life l;

	ty->pages++;
	ty->live_0 += p->refcount == 0;
	ty->live_1 += p->refcount == 1;
	if (!find_life(t, p, getpid(), &l))
		return;
	ty->traced++;
	ty->atomics += l.atomics;
	ty->no_atomics += !l.atomics;
	ty->one_to_zero += l.atomics == 1 && l.to_zero == 1;
	ty->ref_set += !!l.ref_sets;
	ty->ref_set_1 += !!l.ref_sets_1;
	if (l.frozen) {
		ty->frozen++;
		ty->frozen_from_slab +=
			is_slab_call_site(site_name(sites, l.frozen->call_site));
	}
}

static void log_tally(enum section s, const struct sites *sites)
{
	const struct tally *t = &counts->tally[s];
	unsigned int i;

	ksft_print_msg("%s: %u pages listed, %u traced from alloc to free, %u refcount atomics\n",
		       section_names[s], t->pages, t->traced, t->atomics);
	ksft_print_msg("%s: pages with 0 atomics %u, with 1 atomic to zero %u, with page_ref_set %u (to 1: %u)\n",
		       section_names[s], t->no_atomics, t->one_to_zero,
		       t->ref_set, t->ref_set_1);
	ksft_print_msg("%s: refcount while in use 0: %u, 1: %u; frozen frees %u, from slab %u\n",
		       section_names[s], t->live_0, t->live_1, t->frozen,
		       t->frozen_from_slab);
	for (i = 0; i < sites->nr; i++)
		ksft_print_msg("%s: %u frozen frees called from %s\n",
			       section_names[s], sites->hits[i],
			       sites->name[i]);
}

static unsigned int read_pages(const char *path, struct mft_page *pages,
			       unsigned int max)
{
	FILE *f = fopen(path, "r");
	unsigned int nr = 0;

	if (!f)
		return 0;
	while (nr < max && fscanf(f, "%lx %u %d", &pages[nr].pfn,
				  &pages[nr].order, &pages[nr].refcount) == 3)
		nr++;
	fclose(f);
	return nr;
}

/*
 * Traces one write of NR_PAGES to the module's @file and tallies the
 * pages it lists into section @s.  Both files are opened before the trace
 * is on: the trace holds the run and the least of this process around it.
 */
static void run_trigger(struct __test_metadata *_metadata, struct env *env,
			const char *file, enum section s)
{
	struct mft_page pages[NR_PAGES];
	char path[PATH_MAX], num[16];
	struct sites sites = {};
	struct trace t;
	unsigned int nr, i;
	int fd, on_fd;
	ssize_t ret;

	snprintf(path, sizeof(path), "%s/%s", MODULE_DIR, file);
	snprintf(num, sizeof(num), "%d", NR_PAGES);
	fd = open(path, O_WRONLY);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", path, strerror(errno));
	on_fd = tracefs_trace_on_get_fd(env->inst);
	ASSERT_LE(0, on_fd);
	ASSERT_EQ(0, tracefs_instance_file_clear(env->inst, "trace"));
	ASSERT_EQ(0, tracefs_trace_on_fd(on_fd));
	ret = write(fd, num, strlen(num));
	tracefs_trace_off_fd(on_fd);
	close(on_fd);
	close(fd);
	ASSERT_EQ((ssize_t)strlen(num), ret)
		TH_LOG("write %s to %s: %s", num, path, strerror(errno));
	ASSERT_EQ(0, read_trace(env, &t));
	nr = read_pages(path, pages, NR_PAGES);
	ASSERT_EQ(NR_PAGES, nr) TH_LOG("%s listed %u pages", path, nr);

	counts->free_frozen_event = env->free_frozen;
	counts->tally[s] = (struct tally){ .ran = true };
	for (i = 0; i < nr; i++)
		tally_page(&t, &pages[i], &sites, &counts->tally[s]);
	free(t.ev);
	log_tally(s, &sites);
	write_counts();
	EXPECT_EQ(0, t.lost) TH_LOG("the trace lost events %u times", t.lost);
	ASSERT_EQ(nr, counts->tally[s].traced)
		TH_LOG("pages whose allocation and free are not both traced");
}

/*
 * The kernel as it comes: with the debugfs knob, slab_frozen=1 (its
 * default) for the tests and the setting found restored after them.
 */
FIXTURE(frozen) {
	struct env env;
	char saved[16];
};

FIXTURE_SETUP(frozen)
{
	const char *why = env_setup(&self->env);

	if (why)
		SKIP(return, "%s", why);
	if (!read_file(KNOB, self->saved, sizeof(self->saved)))
		ASSERT_EQ(0, write_file(KNOB, "1"));
}

FIXTURE_TEARDOWN(frozen)
{
	if (self->saved[0] && write_file(KNOB, self->saved))
		TH_LOG("cannot restore %s to %s", KNOB, self->saved);
	env_teardown(&self->env);
}

/* Slab pages are freed frozen, by SLUB, with no refcount atomic. */
TEST_F(frozen, slab_free_without_refcount_atomic)
{
	const struct tally *t = &counts->tally[SEC_SLAB];

	run_trigger(_metadata, &self->env, "slab_pages", SEC_SLAB);
	EXPECT_EQ(t->pages, t->no_atomics)
		TH_LOG("slab pages with a refcount atomic: %u",
		       t->pages - t->no_atomics);
}

/* ...and reach free_frozen_pages() from SLUB, by mm-frozen's tracepoint. */
TEST_F(frozen, slab_free_reaches_free_frozen_pages)
{
	const struct tally *t = &counts->tally[SEC_SLAB];

	if (!self->env.free_frozen)
		SKIP(return, "no kmem:mm_page_free_frozen: kernel without mm-frozen's tracepoint");
	run_trigger(_metadata, &self->env, "slab_pages", SEC_SLAB);
	EXPECT_EQ(t->pages, t->frozen_from_slab)
		TH_LOG("slab pages not freed by free_frozen_pages() from slab: %u",
		       t->pages - t->frozen_from_slab);
}

/* __free_pages() drops the refcount of alloc_pages() pages to zero. */
TEST_F(frozen, free_pages_one_atomic_to_zero)
{
	const struct tally *t = &counts->tally[SEC_FREE_PAGES];

	run_trigger(_metadata, &self->env, "pages", SEC_FREE_PAGES);
	EXPECT_EQ(t->pages, t->one_to_zero)
		TH_LOG("pages not freed after exactly one page_ref_mod_and_test to 0: %u",
		       t->pages - t->one_to_zero);
}

/* alloc_pages() sets the refcount to 1; slab pages stay at 0. */
TEST_F(frozen, alloc_refcount)
{
	const struct tally *p = &counts->tally[SEC_ALLOC_PAGES];
	const struct tally *s = &counts->tally[SEC_ALLOC_SLAB];

	run_trigger(_metadata, &self->env, "pages", SEC_ALLOC_PAGES);
	run_trigger(_metadata, &self->env, "slab_pages", SEC_ALLOC_SLAB);
	EXPECT_EQ(p->pages, p->ref_set_1)
		TH_LOG("alloc_pages() pages without page_ref_set to 1: %u",
		       p->pages - p->ref_set_1);
	EXPECT_EQ(p->pages, p->live_1)
		TH_LOG("alloc_pages() pages whose refcount was not 1: %u",
		       p->pages - p->live_1);
	EXPECT_EQ(0, s->ref_set)
		TH_LOG("slab pages with a page_ref_set: %u", s->ref_set);
	EXPECT_EQ(s->pages, s->live_0)
		TH_LOG("slab pages whose refcount was not 0: %u",
		       s->pages - s->live_0);
}

FIXTURE(knob) {
	struct env env;
	char saved[16];
};

FIXTURE_SETUP(knob)
{
	const char *why;

	if (read_file(KNOB, self->saved, sizeof(self->saved)))
		SKIP(return, "no %s (CONFIG_DEBUG_FROZEN_PAGES=n?)", KNOB);
	why = env_setup(&self->env);
	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(knob)
{
	if (write_file(KNOB, self->saved))
		TH_LOG("cannot restore %s to %s", KNOB, self->saved);
	env_teardown(&self->env);
}

/* slab_frozen=0: SLUB's refcounted path, one atomic per slab page. */
TEST_F(knob, slab_frozen_0_one_atomic)
{
	const struct tally *t = &counts->tally[SEC_KNOB_0];

	ASSERT_EQ(0, write_file(KNOB, "0"));
	run_trigger(_metadata, &self->env, "slab_pages", SEC_KNOB_0);
	EXPECT_EQ(t->pages, t->one_to_zero)
		TH_LOG("slab pages not freed after one atomic to 0: %u",
		       t->pages - t->one_to_zero);
}

/* slab_frozen=1: frozen again, in the same boot. */
TEST_F(knob, slab_frozen_1_no_atomic)
{
	const struct tally *t = &counts->tally[SEC_KNOB_1];

	ASSERT_EQ(0, write_file(KNOB, "1"));
	run_trigger(_metadata, &self->env, "slab_pages", SEC_KNOB_1);
	EXPECT_EQ(t->pages, t->no_atomics)
		TH_LOG("slab pages with a refcount atomic: %u",
		       t->pages - t->no_atomics);
}

/*
 * alloc_contig_range() hands out pages refcounted for their owner's put:
 * with __GFP_COMP one compound page with its head at 1 (the
 * set_page_refcounted() that 0004 moves to the caller of prep_new_page()),
 * its tails at 0; without, every page at 1.  mm_frozen_cases.ko's
 * contig cases take a free movable block of MAX_PAGE_ORDER each.
 */
FIXTURE(contig) {
	struct case_env env;
	char why[1024];
};

FIXTURE_SETUP(contig)
{
	const char *why = cases_ready(self->why, sizeof(self->why));

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, open_window(_metadata, &self->env, NULL));
}

FIXTURE_TEARDOWN(contig)
{
	kmsg_end(&self->env.kmsg);
}

/* Runs contig case @name: false if it skipped or gave no pages. */
static bool run_contig(struct __test_metadata *_metadata,
		       struct case_env *env, const char *name)
{
	int ret = run_logged(env, name, 0);

	if (ret == -EOPNOTSUPP)
		SKIP(return false, "no alloc_contig_range() (CONFIG_CONTIG_ALLOC=n)");
	EXPECT_EQ(0, ret)
		TH_LOG("alloc_contig_range() of a free movable block: %s",
		       strerror(-ret));
	return !ret;
}

TEST_F(contig, compound_head_refcounted)
{
	struct case_env *env = &self->env;

	if (!run_contig(_metadata, env, "contig_compound"))
		return;
	ASSERT_EQ(1, res(env, "head")) TH_LOG("not a compound page");
	EXPECT_EQ(res(env, "order"), res(env, "compound_order"));
	EXPECT_EQ(1, res(env, "head_refcount"))
		TH_LOG("the head's refcount is not the one its owner puts");
	EXPECT_EQ(0, res(env, "tails_refcounted"));
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

TEST_F(contig, split_pages_refcounted)
{
	struct case_env *env = &self->env;

	if (!run_contig(_metadata, env, "contig_split"))
		return;
	EXPECT_EQ(1LL << res(env, "order"), res(env, "pages"));
	EXPECT_EQ(0, res(env, "pages_not_refcounted_once"))
		TH_LOG("pages whose refcount is not the 1 that their owner puts");
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

#define MIGRATE_PAGES	4096	/* pages of this process, some blocks' worth */
#define MIGRATE_TRIES	32	/* pages spread over them, tried in turn */

/* The pfn of this process's page at @addr, from its pagemap; 0 if none. */
static unsigned long pfn_of(const void *addr)
{
	long page_size = sysconf(_SC_PAGESIZE);
	unsigned long long entry = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &entry, sizeof(entry),
		  (unsigned long)addr / page_size * sizeof(entry)) != sizeof(entry))
		entry = 0;
	close(fd);
	/* bit 63: present; bits 0-54: the pfn */
	return entry >> 63 ? entry & ((1ULL << 55) - 1) : 0;
}

/*
 * alloc_contig_range() of the pageblock around a page of this process:
 * the page moves out (its data with it) and the block comes back, each
 * page refcounted once.  The old page is freed into the block while it is
 * isolated (free_frozen_pages() hands it to free_one_page(), 0001's line):
 * a page lost there leaves the block busy.  A block that holds a page it
 * cannot move is busy too: the block of a page further on is tried.
 */
TEST_F(contig, migrates_a_process_page)
{
	long page_size = sysconf(_SC_PAGESIZE);
	struct case_env *env = &self->env;
	int i, tries = 0, ret = -EBUSY;
	unsigned long pfn = 0;
	char *area;

	area = mmap(NULL, MIGRATE_PAGES * page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, area);
	for (i = 0; i < MIGRATE_PAGES; i++)
		memset(area + i * page_size, 'a' + i % 26, page_size);
	for (i = 0; ret == -EBUSY && tries < MIGRATE_TRIES; tries++) {
		i = tries * (MIGRATE_PAGES / MIGRATE_TRIES);
		pfn = pfn_of(area + i * page_size);
		ASSERT_NE(0, pfn) TH_LOG("no pfn in /proc/self/pagemap (not root?)");
		ret = run_logged(env, "contig_migrate", pfn);
	}
	if (ret == -EOPNOTSUPP)
		SKIP(return, "no alloc_contig_range() (CONFIG_CONTIG_ALLOC=n)");
	ASSERT_EQ(0, ret) TH_LOG("alloc_contig_range() of the block of a page "
				 "of this process: %s, %d tried",
				 strerror(-ret), tries);
	ksft_print_msg("page %d: pfn %#lx, then %#lx; %d tried\n", i,
		       pfn, pfn_of(area + i * page_size), tries);
	EXPECT_NE(pfn, pfn_of(area + i * page_size)) TH_LOG("the page did not move");
	EXPECT_EQ('a' + i % 26, area[i * page_size]);
	EXPECT_EQ('a' + i % 26, area[(i + 1) * page_size - 1]);
	EXPECT_EQ(res(env, "pages"), 1LL << res(env, "order"));
	EXPECT_EQ(0, res(env, "pages_not_refcounted_once"))
		TH_LOG("pages whose refcount is not the 1 that their owner puts");
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

/*
 * frees: two frees that 0003 sends to free_frozen_pages(), which nothing
 * else in the guest takes for sure, run by mm_frozen_cases.ko (see
 * mm_frozen_test/frees.c).  The page allocator's trace events say which
 * pages of the case's allocation were freed.
 */
#define FREES_INSTANCE	"frozen_pages_frees"

FIXTURE(frees) {
	struct case_env env;
	struct page_trace trace;
	char why[1024];
};

FIXTURE_SETUP(frees)
{
	const char *why = cases_ready(self->why, sizeof(self->why));
	char filter[64];

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, open_window(_metadata, &self->env, NULL));
	snprintf(filter, sizeof(filter), "common_pid == %d", getpid());
	ASSERT_EQ(0, page_trace_start(&self->trace, FREES_INSTANCE, filter))
		TH_LOG("cannot trace kmem:mm_page_alloc and the frees in %s",
		       FREES_INSTANCE);
}

FIXTURE_TEARDOWN(frees)
{
	page_trace_end(&self->trace);
	kmsg_end(&self->env.kmsg);
}

/*
 * Runs case @name between two markers of the trace, its file opened
 * before (opening allocates), and returns how many pages of the block
 * that its result names ("pfn", "order") it left allocated.
 */
static long run_frees_case(struct __test_metadata *_metadata,
			   FIXTURE_DATA(frees) *self, const char *name)
{
	struct case_env *env = &self->env;
	unsigned long pfn;
	int fd, ret;
	long held;

	fd = case_open(name);
	if (fd < 0)
		return -1;
	ret = page_trace_mark(&self->trace, "case starts\n") ?:
	      case_start(fd, 0) ?:
	      page_trace_mark(&self->trace, "case ends\n") ?:
	      case_result(fd, env->result, sizeof(env->result));
	close(fd);
	log_case_result(name, env->result);
	if (ret || res(env, "pfn") < 0)
		return -1;
	pfn = res(env, "pfn");
	held = page_trace_held(&self->trace, pfn, pfn + (1UL << res(env, "order")));
	ksft_print_msg("%s: %zu pages of pfn %#lx allocated, %ld of them held\n",
		       name, self->trace.got, pfn, held);
	EXPECT_EQ(0, self->trace.lost) TH_LOG("the trace lost events");
	return held;
}

/*
 * __free_pages() of a non-compound order-2 page whose first page another
 * reference holds: it frees the three others, the holder's put_page()
 * the first.
 */
TEST_F(frees, free_pages_while_held)
{
	struct case_env *env = &self->env;
	long held = run_frees_case(_metadata, self, "free_held");

	ASSERT_LE(0, held) TH_LOG("the case did not run, or its trace is not whole");
	EXPECT_EQ(1, res(env, "refcount_after_free"))
		TH_LOG("__free_pages() did not leave the holder its reference");
	EXPECT_EQ(1UL << res(env, "order"), self->trace.got);
	EXPECT_EQ(0, held) TH_LOG("pages of the block were never freed");
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

/*
 * A page fragment cache that moved on to a new page while fragments of
 * its old one were out: they hold the old page, and the last of their
 * page_frag_free()s frees it.
 */
TEST_F(frees, page_frag_last_free)
{
	struct case_env *env = &self->env;
	long held = run_frees_case(_metadata, self, "frag_last");

	ASSERT_LE(0, held) TH_LOG("the case did not run, or its trace is not whole");
	EXPECT_LT(0, res(env, "frags_out"));
	EXPECT_EQ(res(env, "frags_out"), res(env, "refcount_after_move"))
		TH_LOG("the old page's refcount is not its fragments out");
	EXPECT_EQ(1UL << res(env, "order"), self->trace.got);
	EXPECT_EQ(0, held) TH_LOG("the old page was never freed");
	EXPECT_EQ(0, kmsg_count(&env->kmsg, NULL));
}

/*
 * thp: an anonymous fault in a PMD-aligned MADV_HUGEPAGE region takes a
 * huge page from alloc_pages_mpol()'s first attempt, on the local node
 * (0013 makes that a frozen allocation, which folio_alloc_mpol() gives
 * its refcount): one huge page maps the region, which the process
 * writes, reads and unmaps without a complaint of the kernel.
 */
#define THP_SYSFS	"/sys/kernel/mm/transparent_hugepage"

/* The AnonHugePages of this process's mapping at @addr, in kB; -1 if none. */
static long long anon_huge_kb(const void *addr)
{
	char line[256], want[32];
	long long kb = -1;
	bool in_vma = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "%lx-", (unsigned long)addr);
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '-') && strchr(line, '-') < strchr(line, ' '))
			in_vma = !strncmp(line, want, strlen(want));
		else if (in_vma && sscanf(line, "AnonHugePages: %lld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

FIXTURE(thp) {
	struct case_env env;
	char *map;
	size_t pmd_size;
};

FIXTURE_SETUP(thp)
{
	char enabled[128], size[32];

	if (read_file(THP_SYSFS "/enabled", enabled, sizeof(enabled)) ||
	    strstr(enabled, "[never]"))
		SKIP(return, "no transparent huge pages here (%s/enabled)", THP_SYSFS);
	ASSERT_EQ(0, read_file(THP_SYSFS "/hpage_pmd_size", size, sizeof(size)));
	self->pmd_size = strtoul(size, NULL, 0);
	ASSERT_LT(0, self->pmd_size);
	/* twice the size: room for a region aligned to it */
	self->map = mmap(NULL, 2 * self->pmd_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	ASSERT_EQ(0, open_window(_metadata, &self->env, NULL));
}

FIXTURE_TEARDOWN(thp)
{
	if (self->map && self->map != MAP_FAILED)
		munmap(self->map, 2 * self->pmd_size);
	kmsg_end(&self->env.kmsg);
}

TEST_F(thp, fault_local_node)
{
	size_t pmd_size = self->pmd_size, i;
	char *area;

	area = (char *)(((unsigned long)self->map + pmd_size - 1) & ~(pmd_size - 1));
	ASSERT_EQ(0, madvise(area, pmd_size, MADV_HUGEPAGE));
	for (i = 0; i < pmd_size; i += 4096)
		area[i] = (char)(i >> 12);
	ksft_print_msg("AnonHugePages of the region: %lld kB\n", anon_huge_kb(area));
	EXPECT_EQ(pmd_size / 1024, anon_huge_kb(area))
		TH_LOG("the fault did not map a huge page");
	for (i = 0; i < pmd_size; i += 4096)
		if (area[i] != (char)(i >> 12))
			break;
	EXPECT_EQ(pmd_size, i) TH_LOG("the huge page lost what was written");
	EXPECT_EQ(0, munmap(self->map, 2 * pmd_size));
	self->map = NULL;
	EXPECT_EQ(0, kmsg_count(&self->env.kmsg, NULL));
}

TEST_HARNESS_MAIN
