/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols for the mm-frozen tests: which function a call site
 * recorded by a tracepoint is in.
 */
#ifndef MM_FROZEN_KSYM_H
#define MM_FROZEN_KSYM_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The text symbol containing @addr, from /proc/kallsyms. */
static inline void symbol_of(unsigned long long addr, char *name, size_t len)
{
	unsigned long long a, best = 0;
	char line[1024], sym[128], type;
	FILE *f = fopen("/proc/kallsyms", "r");

	snprintf(name, len, "0x%llx", addr);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &a, &type, sym) == 3 &&
		    strchr("tTwW", type) && a <= addr && a >= best) {
			best = a;
			snprintf(name, len, "%s", sym);
		}
	fclose(f);
}

#endif /* MM_FROZEN_KSYM_H */
