// SPDX-License-Identifier: GPL-2.0
/*
 * Metadata operations on empty files, each phase over all of them in turn:
 * create, stat, rename, unlink; operations per second for each.
 *
 *	meta DIR COUNT
 */
#include <sys/stat.h>
#include "bench.h"

static void name(char *buf, size_t len, const char *dir, const char *prefix,
		 long i)
{
	snprintf(buf, len, "%s/%s%ld", dir, prefix, i);
}

int main(int argc, char **argv)
{
	char a[4096], b[4096];
	struct stat st;
	long count, i;
	double t;
	int fd;

	if (argc != 3 || (count = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: meta DIR COUNT\n");
		return 2;
	}

	t = now();
	for (i = 0; i < count; i++) {
		name(a, sizeof(a), argv[1], "m", i);
		fd = open(a, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd < 0)
			die("create %s", a);
		close(fd);
	}
	figure("create", count / (now() - t), "ops/s");

	t = now();
	for (i = 0; i < count; i++) {
		name(a, sizeof(a), argv[1], "m", i);
		if (stat(a, &st) || st.st_size)
			die("stat %s", a);
	}
	figure("stat", count / (now() - t), "ops/s");

	t = now();
	for (i = 0; i < count; i++) {
		name(a, sizeof(a), argv[1], "m", i);
		name(b, sizeof(b), argv[1], "renamed-", i);
		if (rename(a, b))
			die("rename %s", a);
	}
	figure("rename", count / (now() - t), "ops/s");

	t = now();
	for (i = 0; i < count; i++) {
		name(b, sizeof(b), argv[1], "renamed-", i);
		if (unlink(b))
			die("unlink %s", b);
	}
	figure("unlink", count / (now() - t), "ops/s");
	return 0;
}
