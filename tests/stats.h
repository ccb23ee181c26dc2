/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a hugetmpfs mount's statistics, for the C tests.
 */
#ifndef HUGETMPFS_TEST_STATS_H
#define HUGETMPFS_TEST_STATS_H

#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* The statistics directory of the mount that holds @path */
static inline void mount_sysdir(const char *path, char *dir, size_t len)
{
	struct stat st;

	if (stat(path, &st)) {
		dir[0] = 0;
		return;
	}
	snprintf(dir, len, "/sys/fs/hugetmpfs/%u:%u", major(st.st_dev),
		 minor(st.st_dev));
}

/* One statistic of the mount at @dir, or -1 (said on stderr) */
static inline long mount_stat(const char *dir, const char *name)
{
	char path[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &v) != 1)
		fprintf(stderr, "cannot read %s\n", path);
	if (f)
		fclose(f);
	return v;
}

#endif
