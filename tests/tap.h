/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal check helpers for hugetmpfs's C tests: each failed check prints
 * where and why, and the test exits non-zero if any check failed.
 */
#ifndef HUGETMPFS_TEST_TAP_H
#define HUGETMPFS_TEST_TAP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_failures;
static int tap_checks;

#define CHECK(cond, fmt, ...) do {					\
	tap_checks++;							\
	if (!(cond)) {							\
		tap_failures++;						\
		fprintf(stderr, "FAIL %s:%d: %s: " fmt "\n", __FILE__,	\
			__LINE__, #cond, ##__VA_ARGS__);		\
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

static inline int tap_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, tap_checks, tap_failures);
	if (!tap_checks)
		return 3;	/* a test that checked nothing has not passed */
	return tap_failures ? 1 : 0;
}

#endif
