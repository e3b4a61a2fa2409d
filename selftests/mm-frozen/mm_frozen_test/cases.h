/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mm_frozen_cases: cases that the mm-frozen tests run in the kernel on
 * demand, one debugfs file each (see cases.c).
 */
#ifndef MM_FROZEN_CASES_H
#define MM_FROZEN_CASES_H

#include <linux/compiler.h>
#include <linux/types.h>

/* What a case saw, one "name value" line per item: read back by the test. */
struct mfc_result {
	char buf[1024];
	size_t len;
};

/* A case runs on a write of its file, with the value written as @arg. */
struct mfc_case {
	const char *name;
	int (*run)(struct mfc_result *r, unsigned int arg);
};

/* A group of cases with what they need set up first, if anything. */
struct mfc_group {
	const struct mfc_case *cases;
	unsigned int nr_cases;
	int (*init)(void);
	void (*exit)(void);
};

extern const struct mfc_group mfc_hazard_group;
extern const struct mfc_group mfc_fault_group;
extern const struct mfc_group mfc_pressure_group;
extern const struct mfc_group mfc_contig_group;
extern const struct mfc_group mfc_frees_group;

__printf(2, 3) void mfc_report(struct mfc_result *r, const char *fmt, ...);

#endif /* MM_FROZEN_CASES_H */
