// SPDX-License-Identifier: GPL-2.0
/*
 * frozen_knob_test - the debugfs interface of CONFIG_DEBUG_FROZEN_PAGES and
 * the kmem:mm_page_free_frozen tracepoint.
 *
 * /sys/kernel/debug/frozen_pages/slab_frozen accepts "0" or "1" (with an
 * optional newline) and nothing else; stats counts slab pages allocated and
 * freed frozen or refcounted as the knob says; flipping the knob while
 * slabs come and go on every CPU leaves no BUG, WARNING or refcount report
 * in the kernel log; and mm_page_free_frozen fires both for slab frees and
 * for __free_pages() frees, told apart by its call site.
 *
 * Slab churn comes from user space: directories created and removed in a
 * tmpfs allocate and free dentries and inodes, and writing to
 * /sys/kernel/slab/<cache>/shrink hands empty slabs back to the page
 * allocator.  Processes created and reaped free their page tables with
 * __free_pages().
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "../kselftest_harness.h"
#include "ksym.h"
#include "mm_frozen.h"

#define CHURN_DIRS	2000
#define FLIP_SECONDS	30
#define FLIP_PERIOD_US	5000

enum knob_stat { ALLOC_FROZEN, FREE_FROZEN, ALLOC_REFCOUNTED, FREE_REFCOUNTED, NR_STATS };

static const char * const stat_names[NR_STATS] = {
	"slabs_allocated_frozen", "slabs_freed_frozen",
	"slabs_allocated_refcounted", "slabs_freed_refcounted",
};

struct stats {
	unsigned long v[NR_STATS];
};

static int read_knob(void)
{
	char buf[8] = "";
	int fd = open(KNOB, O_RDONLY);

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) < 1)
		buf[0] = '?';
	close(fd);
	return buf[0] == '0' || buf[0] == '1' ? buf[0] - '0' : -1;
}

/* One write(2) of exactly len bytes: returns 0 or the errno. */
static int write_knob(const char *value, size_t len)
{
	int fd = open(KNOB, O_WRONLY), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, value, len) != (ssize_t)len)
		err = errno;
	close(fd);
	return err;
}

static int set_knob(int on)
{
	return write_knob(on ? "1\n" : "0\n", 2);
}

static bool read_stats(struct stats *st)
{
	char name[32];
	unsigned long value;
	FILE *f = fopen(KNOB_STATS, "r");
	int i, seen = 0;

	if (!f)
		return false;
	memset(st, 0, sizeof(*st));
	while (fscanf(f, "%31s %lu", name, &value) == 2) {
		for (i = 0; i < NR_STATS; i++) {
			if (!strcmp(name, stat_names[i])) {
				st->v[i] = value;
				seen++;
			}
		}
	}
	fclose(f);
	return seen == NR_STATS;
}

/* Fills slabs with dentries and inodes, empties them, gives them back. */
static void slab_churn(const char *base)
{
	char path[PATH_MAX];
	int i;

	for (i = 0; i < CHURN_DIRS; i++) {
		snprintf(path, sizeof(path), "%s/%d", base, i);
		mkdir(path, 0700);
	}
	for (i = 0; i < CHURN_DIRS; i++) {
		snprintf(path, sizeof(path), "%s/%d", base, i);
		rmdir(path);
	}
	/* dentries and inodes are freed after an RCU grace period */
	usleep(100 * 1000);
	shrink_slab_caches();
}

/* Page tables of a reaped process go back through __free_pages(). */
static void page_table_churn(int processes)
{
	int i;

	for (i = 0; i < processes; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
}

static char *make_churn_dir(void)
{
	char *dir = strdup("/tmp/frozen_knob_test.XXXXXX");

	return dir && mkdtemp(dir) ? dir : NULL;
}

FIXTURE(knob) {
	int saved;
	char *dir;
};

FIXTURE_SETUP(knob)
{
	if (geteuid())
		SKIP(return, "must be run as root");
	self->saved = read_knob();
	if (self->saved < 0)
		SKIP(return, "%s not found: kernel without CONFIG_DEBUG_FROZEN_PAGES", KNOB);
	self->dir = make_churn_dir();
	ASSERT_NE(NULL, self->dir);
}

FIXTURE_TEARDOWN(knob)
{
	if (self->saved >= 0)
		set_knob(self->saved);
	if (self->dir)
		rmdir(self->dir);
	free(self->dir);
}

TEST_F(knob, bad_writes_rejected)
{
	static const struct { const char *value; size_t len; } bad[] = {
		{ "2", 1 }, { "2\n", 2 }, { "abc", 3 }, { "abc\n", 4 },
		{ "", 0 }, { "\n", 1 }, { "10", 2 }, { "1 ", 2 },
		{ "1111111111111111111111111111111111111111", 40 },
	};
	int before, i, err;

	ASSERT_EQ(0, set_knob(1));
	before = read_knob();
	for (i = 0; i < (int)ARRAY_SIZE(bad); i++) {
		err = write_knob(bad[i].value, bad[i].len);
		TH_LOG("write of %zu bytes \"%.*s\": %s, knob now %d", bad[i].len,
		       (int)strcspn(bad[i].value, "\n"), bad[i].value,
		       err ? strerror(err) : "accepted", read_knob());
		EXPECT_EQ(EINVAL, err);
		EXPECT_EQ(before, read_knob());
	}
	EXPECT_EQ(0, write_knob("0", 1));
	EXPECT_EQ(0, read_knob());
	EXPECT_EQ(0, write_knob("1\n", 2));
	EXPECT_EQ(1, read_knob());
}

/* stats_during(KNOB): the growth of every counter over one slab churn. */
static void stats_during(struct __test_metadata *_metadata, const char *dir,
			 int knob, struct stats *grown)
{
	struct stats before, after;
	int i;

	ASSERT_EQ(0, set_knob(knob));
	ASSERT_TRUE(read_stats(&before));
	slab_churn(dir);
	ASSERT_TRUE(read_stats(&after));
	for (i = 0; i < NR_STATS; i++)
		grown->v[i] = after.v[i] - before.v[i];
	TH_LOG("slab_frozen=%d: slabs allocated frozen +%lu, freed frozen +%lu, allocated refcounted +%lu, freed refcounted +%lu",
	       knob, grown->v[ALLOC_FROZEN], grown->v[FREE_FROZEN],
	       grown->v[ALLOC_REFCOUNTED], grown->v[FREE_REFCOUNTED]);
}

/*
 * Allocations follow the knob exactly.  Frees follow the slab's own
 * refcount, so slabs allocated before a flip may still be freed the other
 * way after it: only the matching free counter is required to grow.
 */
TEST_F(knob, stats_follow_knob)
{
	struct stats grown;

	stats_during(_metadata, self->dir, 1, &grown);
	EXPECT_GT(grown.v[ALLOC_FROZEN], 0);
	EXPECT_GT(grown.v[FREE_FROZEN], 0);
	EXPECT_EQ(0, grown.v[ALLOC_REFCOUNTED]);

	stats_during(_metadata, self->dir, 0, &grown);
	EXPECT_GT(grown.v[ALLOC_REFCOUNTED], 0);
	EXPECT_GT(grown.v[FREE_REFCOUNTED], 0);
	EXPECT_EQ(0, grown.v[ALLOC_FROZEN]);
}

struct churner {
	pthread_t thread;
	char *dir;
	volatile bool *stop;
	unsigned long rounds;
};

static void *churn_until_stopped(void *arg)
{
	struct churner *c = arg;

	while (!*c->stop) {
		slab_churn(c->dir);
		c->rounds++;
	}
	return NULL;
}

/*
 * FLIP_SECONDS of flips, then the churners' last rounds; the harness's
 * timeout stays below the target's own (settings), which kselftest scales
 * for slow machines and this one cannot be.
 */
TEST_F_TIMEOUT(knob, flips_under_churn, 100)
{
	struct churner churners[2];
	volatile bool stop = false;
	unsigned long flips = 0, rounds = 0;
	time_t end = time(NULL) + FLIP_SECONDS;
	struct kmsg kmsg;
	struct stats st;
	int i;

	ASSERT_EQ(0, kmsg_begin(&kmsg, "knob.flips_under_churn"));

	for (i = 0; i < 2; i++) {
		churners[i] = (struct churner){ .stop = &stop, .dir = make_churn_dir() };
		ASSERT_NE(NULL, churners[i].dir);
		ASSERT_EQ(0, pthread_create(&churners[i].thread, NULL,
					    churn_until_stopped, &churners[i]));
	}
	while (time(NULL) < end) {
		ASSERT_EQ(0, set_knob(flips++ & 1));
		usleep(FLIP_PERIOD_US);
	}
	stop = true;
	for (i = 0; i < 2; i++) {
		pthread_join(churners[i].thread, NULL);
		rounds += churners[i].rounds;
		rmdir(churners[i].dir);
		free(churners[i].dir);
	}
	ASSERT_EQ(0, set_knob(1));
	slab_churn(self->dir);
	ASSERT_TRUE(read_stats(&st));
	TH_LOG("%lu flips in %d s, %lu churn rounds on 2 threads", flips,
	       FLIP_SECONDS, rounds);
	TH_LOG("stats: slabs allocated frozen %lu, freed frozen %lu, allocated refcounted %lu, freed refcounted %lu",
	       st.v[ALLOC_FROZEN], st.v[FREE_FROZEN], st.v[ALLOC_REFCOUNTED],
	       st.v[FREE_REFCOUNTED]);
	EXPECT_GT(rounds, 0);
	/* Whatever broke: a BUG, a WARNING, a refcount report, a bad page */
	EXPECT_EQ(0, kmsg_count(&kmsg, NULL));
	kmsg_end(&kmsg);
}

/* Call sites of mm_page_free_frozen, sorted into slab and __free_pages. */
struct sites {
	struct tep_format_field *call_site;
	unsigned long long *addrs;
	size_t nr, cap;
};

static int collect_call_site(struct tep_event *event, struct tep_record *rec,
			     int cpu, void *data)
{
	struct sites *s = data;
	unsigned long long addr;

	if (strcmp(event->name, "mm_page_free_frozen") ||
	    tep_read_number_field(s->call_site, rec->data, &addr))
		return 0;
	if (s->nr == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->addrs = realloc(s->addrs, s->cap * sizeof(*s->addrs));
		if (!s->addrs)
			return -1;
	}
	s->addrs[s->nr++] = addr;
	return 0;
}

static int addr_cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

TEST(tracepoint_tells_paths_apart)
{
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct tep_event *event;
	struct sites s = {};
	unsigned long slab = 0, free_pages = 0, other = 0;
	char name[128], *dir;
	size_t i, same;

	if (geteuid())
		SKIP(return, "must be run as root");
	if (!tracefs_event_file_exists(NULL, "kmem", "mm_page_free_frozen", "format"))
		SKIP(return, "no kmem:mm_page_free_frozen event in this kernel");

	inst = tracefs_instance_create("frozen_knob_test");
	ASSERT_NE(NULL, inst);
	tracefs_instance_file_write(inst, "buffer_size_kb", "8192");
	ASSERT_EQ(0, tracefs_event_enable(inst, "kmem", "mm_page_free_frozen"));
	tracefs_trace_on(inst);

	dir = make_churn_dir();
	ASSERT_NE(NULL, dir);
	slab_churn(dir);
	page_table_churn(20);
	rmdir(dir);
	free(dir);
	tracefs_trace_off(inst);

	tep = tracefs_local_events_system(NULL, (const char *[]){ "kmem", NULL });
	ASSERT_NE(NULL, tep);
	event = tep_find_event_by_name(tep, "kmem", "mm_page_free_frozen");
	ASSERT_NE(NULL, event);
	s.call_site = tep_find_field(event, "call_site");
	ASSERT_NE(NULL, s.call_site);
	ASSERT_EQ(0, tracefs_iterate_raw_events(tep, inst, NULL, 0,
						collect_call_site, &s));

	/* few distinct call sites: resolve each once */
	qsort(s.addrs, s.nr, sizeof(*s.addrs), addr_cmp);
	for (i = 0; i < s.nr; i += same) {
		for (same = 1; i + same < s.nr && s.addrs[i + same] == s.addrs[i]; same++)
			;
		symbol_of(s.addrs[i], name, sizeof(name));
		if (is_slab_call_site(name))
			slab += same;
		else if (!strcmp(name, "__free_pages"))
			free_pages += same;
		else
			other += same;
	}
	TH_LOG("mm_page_free_frozen: %zu events: %lu from slab, %lu from __free_pages, %lu from elsewhere",
	       s.nr, slab, free_pages, other);
	EXPECT_GT(slab, 0);
	EXPECT_GT(free_pages, 0);

	free(s.addrs);
	trace_instance_end(inst, tep);
}

TEST_HARNESS_MAIN
