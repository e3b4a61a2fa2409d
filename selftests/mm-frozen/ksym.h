/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols for the mm-frozen tests: which function a call site
 * recorded by a tracepoint is in, and where a function's text is.
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

/*
 * The text of function @name, from its address to the next text symbol's
 * in /proc/kallsyms: 0, or -1 if there is no such function.
 */
static inline int symbol_range(const char *name, unsigned long long *start,
			       unsigned long long *end)
{
	unsigned long long a;
	char line[1024], sym[128], type;
	FILE *f = fopen("/proc/kallsyms", "r");

	*start = 0;
	*end = ~0ULL;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &a, &type, sym) == 3 &&
		    strchr("tT", type) && !strcmp(sym, name))
			*start = a;
	rewind(f);
	while (*start && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &a, &type, sym) == 3 &&
		    strchr("tTwW", type) && a > *start && a < *end)
			*end = a;
	fclose(f);
	return *start && *end != ~0ULL ? 0 : -1;
}

#endif /* MM_FROZEN_KSYM_H */
