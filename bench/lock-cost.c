// SPDX-License-Identifier: GPL-2.0
/*
 * lock-cost - what one page-refcount atomic costs on this host.
 *
 * The frozen path removes one lock-prefixed read-modify-write per page
 * free (put_page_testzero()'s atomic_dec_and_test()).  This measures that
 * instruction natively, where time means something: a lock-prefixed
 * decrement of a counter in a cache line of its own, uncontended; the
 * same with a second thread, on another CPU, incrementing the same line
 * (the cross-CPU free of a page another CPU touched); and a plain,
 * non-atomic decrement as the floor.  Each case runs ROUNDS rounds of
 * ITERS operations and reports the median, minimum and maximum
 * nanoseconds per operation.
 *
 * Usage: lock-cost [-j] [ROUNDS [ITERS]]   (default 11 rounds of 10^7)
 *   -j   one JSON object instead of the table
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CACHE_LINE 64

struct line {
	_Alignas(CACHE_LINE) atomic_long count;
};

static struct line target;
static atomic_bool stop_contender;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

/* The other CPU's side of the contended case: keeps taking the line. */
static void *contender(void *unused __attribute__((unused)))
{
	pin_to_cpu(1);
	while (!atomic_load_explicit(&stop_contender, memory_order_relaxed))
		atomic_fetch_add_explicit(&target.count, 1, memory_order_relaxed);
	return NULL;
}

/* ns per operation of one round of @iters decrements. */
static double round_ns(long iters, bool atomic)
{
	volatile long plain = 0;
	double t0 = now_ns();
	long i;

	if (atomic) {
		for (i = 0; i < iters; i++)
			atomic_fetch_sub(&target.count, 1);	/* lock xadd/subq */
	} else {
		for (i = 0; i < iters; i++)
			plain = plain - 1;
	}
	return (now_ns() - t0) / iters;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct result {
	const char *name;
	double median, min, max;
};

static struct result measure(const char *name, int rounds, long iters,
			     bool atomic, bool contended)
{
	double *ns = calloc(rounds, sizeof(*ns));
	struct result r = { .name = name };
	pthread_t thread;
	int i;

	if (!ns)
		exit(1);
	if (contended) {
		atomic_store(&stop_contender, false);
		if (pthread_create(&thread, NULL, contender, NULL)) {
			perror("pthread_create");
			exit(1);
		}
	}
	round_ns(iters / 10, atomic);	/* warm up the line and the CPU */
	for (i = 0; i < rounds; i++)
		ns[i] = round_ns(iters, atomic);
	if (contended) {
		atomic_store(&stop_contender, true);
		pthread_join(thread, NULL);
	}
	qsort(ns, rounds, sizeof(*ns), cmp_double);
	r.median = ns[rounds / 2];
	r.min = ns[0];
	r.max = ns[rounds - 1];
	free(ns);
	return r;
}

int main(int argc, char **argv)
{
	struct result r[3];
	bool json = argc > 1 && !strcmp(argv[1], "-j");
	int rounds, i, n = 0;
	long iters;

	argv += json;
	argc -= json;
	rounds = argc > 1 ? atoi(argv[1]) : 11;
	iters = argc > 2 ? atol(argv[2]) : 10000000;
	if (rounds < 1 || iters < 10) {
		fprintf(stderr, "usage: lock-cost [-j] [ROUNDS [ITERS]]\n");
		return 2;
	}
	pin_to_cpu(0);
	r[n++] = measure("plain", rounds, iters, false, false);
	r[n++] = measure("lock_uncontended", rounds, iters, true, false);
	r[n++] = measure("lock_contended", rounds, iters, true, true);

	if (json) {
		printf("{\"rounds\": %d, \"iters\": %ld", rounds, iters);
		for (i = 0; i < n; i++)
			printf(", \"%s\": {\"median_ns\": %.3f, \"min_ns\": %.3f, \"max_ns\": %.3f}",
			       r[i].name, r[i].median, r[i].min, r[i].max);
		printf("}\n");
		return 0;
	}
	printf("%-18s %10s %10s %10s   (ns per decrement, %d rounds of %ld)\n",
	       "case", "median", "min", "max", rounds, iters);
	for (i = 0; i < n; i++)
		printf("%-18s %10.2f %10.2f %10.2f\n",
		       r[i].name, r[i].median, r[i].min, r[i].max);
	return 0;
}
