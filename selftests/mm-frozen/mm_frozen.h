/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the mm-frozen tests: small files in debugfs and
 * procfs, the test modules built beside the programs, the cases of
 * mm_frozen_cases.ko, and the kernel log.  Include it after
 * kselftest_harness.h.
 *
 * Kernel log windows: a test marks where it starts and ends in the kernel
 * log (kmsg_begin(), kmsg_end()) and may declare the one kernel report it
 * provokes on purpose (kmsg_expect()).  mm-frozen's runner.sh fails a run
 * on every kernel problem line (the patterns of the file kernel-problems
 * beside the programs) except, inside a window, exactly the number of
 * lines declared, matching the declared pattern; it names the test of
 * the window a problem line is in.
 */
#ifndef MM_FROZEN_H
#define MM_FROZEN_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#define CASES_MODULE	"mm_frozen_cases"
#define CASES_DIR	"/sys/kernel/debug/" CASES_MODULE
#define KMSG_PREFIX	"mm-frozen: test "
#define KNOB		"/sys/kernel/debug/frozen_pages/slab_frozen"
#define KNOB_STATS	"/sys/kernel/debug/frozen_pages/stats"
#define SLAB_SYSFS	"/sys/kernel/slab"

/* Writes @str to @path in one write(2): 0 or -errno. */
static inline int write_file(const char *path, const char *str)
{
	int fd = open(path, O_WRONLY);
	ssize_t ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, str, strlen(str));
	if (ret < 0)
		ret = -errno;
	close(fd);
	return ret < 0 ? ret : 0;
}

static inline int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t ret;

	if (fd < 0)
		return -errno;
	ret = read(fd, buf, len - 1);
	close(fd);
	if (ret < 0)
		return -errno;
	buf[ret] = '\0';
	return 0;
}

/* @name beside this program, also once installed: 0 or -1. */
static inline int path_beside_program(const char *name, char *path, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return -1;
	exe[n] = '\0';
	snprintf(path, len, "%s/%s", dirname(exe), name);
	return 0;
}

/*
 * Whether the function @name is SLUB's free path: the one that the file
 * slab-call-site, beside the program, names (one definition, shared with
 * tracing_scripts.sh).  Without it nothing can be counted: the test ends.
 */
static inline bool is_slab_call_site(const char *name)
{
	static char slab_call_site[128];
	char path[PATH_MAX], line[128];
	FILE *f = NULL;

	if (!slab_call_site[0]) {
		if (!path_beside_program("slab-call-site", path, sizeof(path)))
			f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			if (line[0] != '#')
				sscanf(line, "%127s", slab_call_site);
		if (f)
			fclose(f);
		if (!slab_call_site[0])
			ksft_exit_fail_msg("no function name in %s beside %s\n",
					   "slab-call-site", program_invocation_short_name);
	}
	return !strcmp(name, slab_call_site);
}

/*
 * Loads mm_frozen_test/@name.ko (built beside this program).  Returns 0
 * and sets *@loaded when this call loaded it, 0 when it was loaded
 * already, -1 with the reason in @why otherwise.
 */
static inline int load_test_module(const char *name, bool *loaded,
				   char *why, size_t len)
{
	char rel[NAME_MAX + 32], ko[PATH_MAX];
	int fd, ret;

	snprintf(rel, sizeof(rel), "mm_frozen_test/%s.ko", name);
	if (path_beside_program(rel, ko, sizeof(ko))) {
		snprintf(why, len, "cannot read /proc/self/exe: %s", strerror(errno));
		return -1;
	}
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "cannot open %s beside %s (module not built?): %s",
			 rel, program_invocation_short_name, strerror(errno));
		return -1;
	}
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	*loaded = !ret;
	if (ret && errno != EEXIST) {
		snprintf(why, len, "cannot load %s: %s", rel, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Removes a tracefs instance of the test's own (its events stop with it)
 * and frees the parser that read its events; either may be NULL.
 */
static inline void trace_instance_end(struct tracefs_instance *inst,
				      struct tep_handle *tep)
{
	if (inst) {
		tracefs_trace_off(inst);
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
	}
	tep_free(tep);
}

/*
 * Writes 1 to every cache's shrink file: its empty slabs go back to the
 * page allocator and, under KASAN, the objects its quarantine holds back
 * are freed first, so that a count of live slabs counts live objects.
 */
static inline void shrink_slab_caches(void)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir = opendir(SLAB_SYSFS);
	int fd;

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), SLAB_SYSFS "/%s/shrink", d->d_name);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			continue;
		if (write(fd, "1", 1) < 0)
			; /* a cache may be going away: nothing to shrink */
		close(fd);
	}
	closedir(dir);
}

/* The value of a "name value" line of @result; -1 if there is none. */
static inline long long result_value(const char *result, const char *name)
{
	size_t len = strlen(name);
	const char *p = result;

	while (p && *p) {
		if (!strncmp(p, name, len) && p[len] == ' ')
			return strtoll(p + len + 1, NULL, 0);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

/* A counter of the knob's stats; -1 without it. */
static inline long long stat_value(const char *name)
{
	char stats[512];

	if (read_file(KNOB_STATS, stats, sizeof(stats)))
		return -1;
	return result_value(stats, name);
}

/*
 * A case of mm_frozen_cases.ko is a file: opened (case_open()), written
 * its argument to run (case_start()), read for its result
 * (case_result()).  A test that must do nothing else while the case runs
 * opens the file first.
 */
static inline int case_open(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), CASES_DIR "/%s", name);
	return open(path, O_RDWR);
}

/* Runs the case of file @fd with @arg: 0 or -errno, the case's own. */
static inline int case_start(int fd, unsigned long arg)
{
	char num[32];

	snprintf(num, sizeof(num), "%lu", arg);
	return write(fd, num, strlen(num)) < 0 ? -errno : 0;
}

/* The result of the last run of the case of file @fd: 0 or -errno. */
static inline int case_result(int fd, char *result, size_t len)
{
	ssize_t n = pread(fd, result, len - 1, 0);

	result[n > 0 ? n : 0] = '\0';
	return n < 0 ? -errno : 0;
}

/*
 * Runs case @name of mm_frozen_cases.ko with @arg; its result goes to
 * @result.  Returns 0 or -errno (the case's own error, from the write).
 */
static inline int run_case(const char *name, unsigned long arg, char *result,
			   size_t len)
{
	int fd = case_open(name), ret;

	result[0] = '\0';
	if (fd < 0)
		return -errno;
	ret = case_start(fd, arg) ?: case_result(fd, result, len);
	close(fd);
	return ret;
}

/* Loads the cases module (it stays loaded: see cases.c); NULL or why not. */
static inline const char *cases_ready(char *why, size_t len)
{
	bool loaded;

	if (geteuid())
		return "must be run as root";
	if (load_test_module(CASES_MODULE, &loaded, why, len))
		return why;
	return NULL;
}

/* ---------------------------------------------------------- kernel log */

struct kmsg {
	int fd;			/* /dev/kmsg, read from where kmsg_begin() was */
	char name[128];
	char *log;		/* the window's lines so far, '\n'-separated */
	size_t len;
	regex_t problems;	/* the patterns of kernel-problems */
	bool have_problems;
};

static inline __attribute__((format(printf, 1, 2)))
void kmsg_write(const char *fmt, ...)
{
	char line[512];
	va_list args;
	int fd = open("/dev/kmsg", O_WRONLY);

	if (fd < 0)
		return;
	/* <4>: on the console too, where a crashed guest's log survives */
	strcpy(line, "<4>" KMSG_PREFIX);
	va_start(args, fmt);
	vsnprintf(line + strlen(line), sizeof(line) - strlen(line), fmt, args);
	va_end(args);
	if (write(fd, line, strlen(line)) < 0)
		; /* the runner reports a window that is not closed */
	close(fd);
}

/* The patterns of the file kernel-problems, one extended regex a line. */
static inline bool compile_kernel_problems(regex_t *re)
{
	char path[PATH_MAX], line[512], *ere = NULL, *grown;
	size_t len = 0;
	bool ok = false;
	FILE *f;

	if (path_beside_program("kernel-problems", path, sizeof(path)))
		return false;
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		grown = realloc(ere, len + strlen(line) + 4);
		if (!grown)
			goto out;
		ere = grown;
		len += sprintf(ere + len, "%s(%s)", len ? "|" : "", line);
	}
	ok = ere && !regcomp(re, ere, REG_EXTENDED | REG_NOSUB);
out:
	fclose(f);
	free(ere);
	return ok;
}

/* Opens the window of test @name: kmsg_count() sees what comes after. */
static inline int kmsg_begin(struct kmsg *k, const char *name)
{
	*k = (struct kmsg){ .fd = -1 };
	snprintf(k->name, sizeof(k->name), "%s", name);
	k->have_problems = compile_kernel_problems(&k->problems);
	k->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (k->fd < 0)
		return -errno;
	lseek(k->fd, 0, SEEK_END);
	kmsg_write("begin %s\n", k->name);
	return 0;
}

/* Declares the kernel report the test provokes: @count lines of @ere. */
static inline void kmsg_expect(int count, const char *ere)
{
	kmsg_write("expect %d %s\n", count, ere);
}

static inline void kmsg_end(struct kmsg *k)
{
	if (k->fd < 0)
		return;
	kmsg_write("end %s\n", k->name);
	close(k->fd);
	k->fd = -1;
	free(k->log);
	k->log = NULL;
	if (k->have_problems)
		regfree(&k->problems);
}

/* Appends the records logged since the last call to k->log. */
static inline void kmsg_collect(struct kmsg *k)
{
	char rec[8192], *text, *grown;
	size_t n_text;
	ssize_t n;

	while ((n = read(k->fd, rec, sizeof(rec) - 1)) > 0 ||
	       (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;	/* EPIPE: records were overwritten */
		rec[n] = '\0';
		text = strchr(rec, ';');
		text = text ? text + 1 : rec;
		n_text = strcspn(text, "\n");
		grown = realloc(k->log, k->len + n_text + 2);
		if (!grown)
			return;
		k->log = grown;
		memcpy(k->log + k->len, text, n_text);
		k->len += n_text;
		k->log[k->len++] = '\n';
		k->log[k->len] = '\0';
	}
}

/*
 * The lines of the window so far that match @ere or, with @ere NULL, the
 * kernel-problems patterns (those are printed): counted.  Marker lines do
 * not count.  -1 if the patterns cannot be had.
 */
static inline int kmsg_count(struct kmsg *k, const char *ere)
{
	regex_t own, *re = &k->problems;
	char *line, *end;
	int found = 0;

	if (ere) {
		if (regcomp(&own, ere, REG_EXTENDED | REG_NOSUB))
			return -1;
		re = &own;
	} else if (!k->have_problems) {
		return -1;
	}
	kmsg_collect(k);
	for (line = k->log; line && *line; line = end + 1) {
		end = strchr(line, '\n');
		*end = '\0';
		if (strncmp(line, KMSG_PREFIX, strlen(KMSG_PREFIX)) &&
		    !regexec(re, line, 0, NULL, 0)) {
			if (!ere)
				ksft_print_msg("kernel: %s\n", line);
			found++;
		}
		*end = '\n';
	}
	if (ere)
		regfree(&own);
	return found;
}

/* --------------------------------------- the knob of a slab_frozen variant */

#define KNOB_MISSING	"no " KNOB ": slab pages are allocated only one way here"

/*
 * Saves the knob in @saved ("" without one) for a variant that wants it
 * at @want.  Returns whether the variant can run: without the knob, slab
 * pages are allocated frozen only (KNOB_MISSING).
 */
static inline bool knob_save(const char *want, char *saved, size_t len)
{
	if (!read_file(KNOB, saved, len))
		return true;
	saved[0] = '\0';
	return !strcmp(want, "1");
}

/* Sets the knob that knob_save() found to @want: 0 or -errno. */
static inline int knob_set(const char *saved, const char *want)
{
	return saved[0] ? write_file(KNOB, want) : 0;
}

static inline void knob_restore(const char *saved)
{
	if (saved[0])
		write_file(KNOB, saved);
}

/* ------------------------------------------------------- test helpers */

/* A test's kernel log window and the result of its last case. */
struct case_env {
	struct kmsg kmsg;
	char result[1024];
};

/* Opens the window named like the test in KTAP: fixture[.variant].test */
static inline int open_window(struct __test_metadata *_metadata,
			      struct case_env *env, const char *variant)
{
	char name[128];

	snprintf(name, sizeof(name), "%s%s%s.%s", _metadata->fixture->name,
		 variant ? "." : "", variant ? variant : "", _metadata->name);
	return kmsg_begin(&env->kmsg, name);
}

static inline void log_case_result(const char *name, const char *result)
{
	const char *line, *end;

	for (line = result; *line; line = end + 1) {
		end = strchrnul(line, '\n');
		ksft_print_msg("%s: %.*s\n", name, (int)(end - line), line);
		if (!*end)
			break;
	}
}

/* Runs case @name with @arg: its result lands in env->result and the log. */
static inline int run_logged(struct case_env *env, const char *name,
			     unsigned long arg)
{
	int ret = run_case(name, arg, env->result, sizeof(env->result));

	log_case_result(name, env->result);
	return ret;
}

static inline long long res(const struct case_env *env, const char *key)
{
	return result_value(env->result, key);
}

#endif /* MM_FROZEN_H */
