/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a hugetmpfs mount's statistics, for the C tests.
 */
#ifndef HUGETMPFS_TEST_STATS_H
#define HUGETMPFS_TEST_STATS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The number a file starts with, or -1 (said on stderr) */
static inline long read_long(const char *path)
{
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f || fscanf(f, "%ld", &v) != 1)
		fprintf(stderr, "cannot read %s\n", path);
	if (f)
		fclose(f);
	return v;
}

/* One statistic of the mount at @dir, or -1 (said on stderr) */
static inline long mount_stat(const char *dir, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return read_long(path);
}

/* A /proc/meminfo field in kB, or -1 (said on stderr) */
static inline long meminfo_kb(const char *field)
{
	FILE *f = fopen("/proc/meminfo", "r");
	size_t n = strlen(field);
	char line[256];
	long v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			v = atol(line + n + 1);
	if (v < 0)
		fprintf(stderr, "no %s in /proc/meminfo\n", field);
	if (f)
		fclose(f);
	return v;
}

/*
 * kB of ShmemPmdMapped (or FilePmdMapped) in this process's VMA that starts
 * at @addr, or -1 (said on stderr)
 */
static inline long pmd_mapped_kb(void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	unsigned long start, end;
	char line[512];
	int in_vma = 0;
	long kb = 0, v;

	if (!f) {
		fprintf(stderr, "cannot read /proc/self/smaps\n");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in_vma = start == (unsigned long)addr;
		else if (in_vma &&
			 (sscanf(line, "FilePmdMapped: %ld", &v) == 1 ||
			  sscanf(line, "ShmemPmdMapped: %ld", &v) == 1))
			kb += v;
	}
	fclose(f);
	return kb;
}

/* Does /proc/mounts show @what in the line of the mount at @dir? */
static inline int mount_shows(const char *dir, const char *what)
{
	char line[512], at[256];
	FILE *f = fopen("/proc/mounts", "r");
	int found = 0;

	/* The mount point field exactly: /mnt/a is not /mnt/a-b. */
	snprintf(at, sizeof(at), " %s ", dir);
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, at) && strstr(line, what))
			found = 1;
	if (f)
		fclose(f);
	return found;
}

#endif
