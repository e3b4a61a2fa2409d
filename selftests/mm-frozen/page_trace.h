/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pages that a case allocated and nobody freed, told by the page
 * allocator's own trace events: kmem:mm_page_alloc of the case (an event
 * filter says whose allocations those are: a task's, or kernel threads'
 * by name), every free whoever frees, and two markers around the case.
 * Exact whatever the rest of the guest does meanwhile.
 */
#ifndef MM_FROZEN_PAGE_TRACE_H
#define MM_FROZEN_PAGE_TRACE_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "../kselftest.h"
#include "mm_frozen.h"

#define PAGE_TRACE_BUFFER_KB	4096	/* per CPU: a case's events fit many times */

/*
 * One page of a page allocation or free that the trace saw.  An
 * allocation counts as the case's when the trace's filter kept it (the
 * test's task, or the bench's threads), outside an interrupt (whose
 * allocations belong to whatever it interrupted), between the two markers
 * written around the case.
 */
struct page_ev {
	unsigned long long ts, gfp;
	unsigned long pfn;
	size_t seq;
	unsigned int order;	/* of the allocation or free */
	bool alloc, by_case;
};

struct page_trace {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct tep_event *alloc, *free, *batched, *marker;
	int marker_fd;
	unsigned int markers, lost;
	bool out_of_memory;		/* some events were not kept */
	unsigned long long window[2];	/* the markers' times */
	struct page_ev *ev;
	size_t nr, cap;
	size_t got;			/* pages the case allocated */
};

/*
 * In tracefs instance @instance: the kmem:mm_page_alloc events that event
 * filter @alloc_filter keeps, every free whoever frees, and the markers,
 * on one clock for all CPUs.  The marker file is opened here, as opening
 * allocates.  Returns 0, or -1 on error.
 */
static inline int page_trace_start(struct page_trace *t, const char *instance,
				   const char *alloc_filter)
{
	static const char * const systems[] = { "kmem", "ftrace", NULL };

	*t = (struct page_trace){ .marker_fd = -1 };
	t->inst = tracefs_instance_create(instance);
	if (!t->inst)
		return -1;
	if (tracefs_instance_file_write(t->inst, "trace_clock", "global") < 0 ||
	    tracefs_instance_set_buffer_size(t->inst, PAGE_TRACE_BUFFER_KB, -1) ||
	    tracefs_event_file_write(t->inst, "kmem", "mm_page_alloc", "filter",
				     alloc_filter) < 0 ||
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
static inline int page_trace_mark(const struct page_trace *t, const char *text)
{
	ssize_t len = strlen(text);

	return write(t->marker_fd, text, len) == len ? 0 : -1;
}

/* Removes the instance of a trace that page_trace_start() began. */
static inline void page_trace_end(struct page_trace *t)
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
static inline unsigned long long field_of(struct tep_event *event, const char *name,
				   struct tep_record *rec)
{
	unsigned long long v = 0;

	tep_get_field_val(NULL, event, name, rec, &v, 0);
	return v;
}

/* Adds a page event for each page of the block; -1 when out of memory. */
static inline int add_pages(struct page_trace *t, const struct page_ev *block)
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

static inline int collect_page_event(struct tep_event *event, struct tep_record *rec,
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
		block.by_case = !irq;
	}
	return add_pages(t, &block);
}

/* By pfn, then in time order: each page's life in one run. */
static inline int page_ev_cmp(const void *a, const void *b)
{
	const struct page_ev *x = a, *y = b;

	if (x->pfn != y->pfn)
		return x->pfn < y->pfn ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* An allocation of the case, made between the markers */
static inline bool page_ev_of_case(const struct page_trace *t, const struct page_ev *e)
{
	return e->alloc && e->by_case &&
	       e->ts >= t->window[0] && e->ts <= t->window[1];
}

/* Every pfn, for page_trace_held() */
#define PFN_FIRST	0UL
#define PFN_END		(~0UL)

/*
 * Stops the trace, counts the pages of pfn @first to @end (excluded) that
 * the case allocated (t->got) and returns how many of them nobody freed
 * after: those whose last event is such an allocation.  Logs the first
 * few.  Returns -1 when the trace cannot be read or has not both markers.
 */
static inline long page_trace_held(struct page_trace *t, unsigned long first,
				   unsigned long end)
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
		if (e->pfn < first || e->pfn >= end)
			continue;
		t->got += page_ev_of_case(t, e);
		if (i + 1 < t->nr && t->ev[i + 1].pfn == e->pfn)
			continue;
		if (!page_ev_of_case(t, e))
			continue;
		if (nr_held++ < 8)
			ksft_print_msg("held: pfn %#lx of an order-%u allocation, gfp %#llx\n",
				       e->pfn, e->order, e->gfp);
	}
	return nr_held;
}

#endif /* MM_FROZEN_PAGE_TRACE_H */
