/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the benchmark programs: timing, sizes, /proc/meminfo, and the
 * output format the driver collects, one figure a line:
 *
 *	<metric> <value> <unit>
 *
 * Units say which way is better: MB/s, ops/s are higher-better; ns, ms, s
 * and kB (memory) lower-better; "ratio" figures say so in their name.
 */
#ifndef HUGETMPFS_BENCH_H
#define HUGETMPFS_BENCH_H

#include <errno.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline void die(const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	va_start(ap, fmt);
	fprintf(stderr, "bench: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(2);
}

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void figure(const char *metric, double value, const char *unit)
{
	printf("%s %.6g %s\n", metric, value, unit);
	fflush(stdout);
}

/* A size with an optional k/m/g suffix, in bytes. */
static inline size_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	switch (*end) {
	case 'g': case 'G': v <<= 10; /* fall through */
	case 'm': case 'M': v <<= 10; /* fall through */
	case 'k': case 'K': v <<= 10; end++; break;
	}
	if (*end || !v) {
		errno = EINVAL;
		die("bad size '%s'", s);
	}
	return v;
}

/* Fold the per-CPU counters, so that meminfo is exact (root only). */
static inline void stat_refresh(void)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);

	/* Not root, or it failed: the counters are a little stale, no more. */
	if (fd >= 0) {
		ssize_t r = write(fd, "1", 1);

		(void)r;
		close(fd);
	}
}

/* A /proc/meminfo field in kB, or -1. */
static inline long meminfo_kb(const char *field)
{
	char line[256];
	size_t n = strlen(field);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* Write @val to the file @path (a sysfs or cgroup knob) */
static inline void put_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(val, f) < 0 || fclose(f))
		die("write %s to %s", val, path);
}

/* The first line of the file @path, without its newline, in @buf */
static inline void get_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f || !fgets(buf, len, f))
		die("read %s", path);
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static inline void drop_caches(const char *what)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	if (fd < 0 || write(fd, what, strlen(what)) < 0)
		die("drop_caches");
	close(fd);
}

/* A new file of @size, mapped shared and writable; its fd in *@fd. */
static inline char *map_new_file(const char *path, size_t size, int *fd)
{
	char *map;

	*fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (*fd < 0 || ftruncate(*fd, size))
		die("%s", path);
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (map == MAP_FAILED)
		die("mmap %s", path);
	return map;
}

#endif
