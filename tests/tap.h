/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal check helpers for hugetmpfs's C tests: each failed check prints
 * where and why, and the test exits non-zero if any check failed.
 */
#ifndef HUGETMPFS_TEST_TAP_H
#define HUGETMPFS_TEST_TAP_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int tap_failures;
static int tap_checks;
static const char *tap_fs = "hugetmpfs";	/* where checks run */

#define CHECK(cond, fmt, ...) do {					\
	tap_checks++;							\
	if (!(cond)) {							\
		tap_failures++;						\
		fprintf(stderr, "FAIL %s:%d (%s): %s: " fmt "\n",	\
			__FILE__, __LINE__, tap_fs, #cond, ##__VA_ARGS__); \
	}								\
} while (0)

/* A system call that must succeed; stops the test if it does not. */
#define MUST(expr) ({							\
	long _r = (long)(expr);						\
	if (_r == -1) {							\
		fprintf(stderr, "FATAL %s:%d: %s: %s\n", __FILE__,	\
			__LINE__, #expr, strerror(errno));		\
		exit(2);						\
	}								\
	_r;								\
})

/* Write @val to the file @path (a sysfs or proc knob); stops the test if
 * that fails. */
static inline void put_file(const char *path, const char *val)
{
	int fd = MUST(open(path, O_WRONLY));

	MUST(write(fd, val, strlen(val)));
	close(fd);
}

/* Seconds on the monotonic clock */
static inline double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static inline int tap_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, tap_checks, tap_failures);
	if (!tap_checks)
		return 3;	/* a test that checked nothing has not passed */
	return tap_failures ? 1 : 0;
}

/*
 * Run @body in the current directory (the hugetmpfs mount the runner made),
 * then again on a tmpfs mounted with @opts, the reference: any divergence
 * fails there as well. Checks made on tmpfs say so.
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>


static inline void on_hugetmpfs_and_tmpfs(void (*body)(void), const char *opts)
{
	const char *dir = "/mnt/tap-tmpfs";
	char cwd[256];

	tap_fs = "hugetmpfs";
	body();
	MUST(getcwd(cwd, sizeof(cwd)));
	mkdir(dir, 0755);
	MUST(mount("tmpfs", dir, "tmpfs", 0, opts));
	MUST(chdir(dir));
	tap_fs = "tmpfs";
	printf("-- the same on tmpfs (%s)\n", opts);
	body();
	tap_fs = "hugetmpfs";
	MUST(chdir(cwd));
	MUST(umount(dir));
}

#endif
