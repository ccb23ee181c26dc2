// SPDX-License-Identifier: GPL-2.0
/*
 * Fragmentation and recovery: write a file in 4 KiB pieces while huge pages
 * are unavailable (DENY_CMD switches them off, ALLOW_CMD back on), then map
 * it and watch which fraction of it sits in PMD-sized folios (ShmemHugePages)
 * as background agents (khugepaged at its defaults, the filesystem's own)
 * get to it, and finally after an explicit collapse: MADV_COLLAPSE, or on
 * hugetmpfs (which khugepaged and MADV_COLLAPSE leave alone) its own
 * HUGETMPFS_IOC_COLLAPSE. The data is checked at the end.
 *
 *	frag FILE SIZE SECONDS STEP DENY_CMD ALLOW_CMD
 */
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <linux/hugetmpfs.h>
#include "bench.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#define PAGE 4096UL

static long base_kb;

static double pmd_fraction(size_t size)
{
	stat_refresh();
	return (meminfo_kb("ShmemHugePages") - base_kb) * 1024.0 / size;
}

static void run(const char *cmd)
{
	if (system(cmd)) {
		errno = EINVAL;
		die("command failed: %s", cmd);
	}
}

int main(int argc, char **argv)
{
	char piece[PAGE] = { 0 }, name[64];
	struct statfs sfs;
	int seconds, step, fd, s;
	size_t size, off;
	double t;
	char *map;

	if (argc != 7) {
		fprintf(stderr,
			"usage: frag FILE SIZE SECONDS STEP DENY_CMD ALLOW_CMD\n");
		return 2;
	}
	size = parse_size(argv[2]);
	seconds = atoi(argv[3]);
	step = atoi(argv[4]);
	if (step <= 0 || seconds < 0) {
		errno = EINVAL;
		die("SECONDS/STEP");
	}

	stat_refresh();
	base_kb = meminfo_kb("ShmemHugePages");
	run(argv[5]);
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("%s", argv[1]);
	t = now();
	for (off = 0; off < size; off += PAGE) {
		*(uint64_t *)piece = off;
		if (pwrite(fd, piece, PAGE, off) != PAGE)
			die("write at %zu", off);
	}
	figure("write_4k", size / (now() - t) / 1e6, "MB/s");
	run(argv[6]);

	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	for (s = 0; ; s += step) {
		snprintf(name, sizeof(name), "pmd_fraction_%ds", s);
		figure(name, pmd_fraction(size), "fraction");
		if (s + step > seconds)
			break;
		sleep(step);
	}

	t = now();
	if (fstatfs(fd, &sfs))
		die("fstatfs");
	if (sfs.f_type == HUGETMPFS_MAGIC) {
		struct hugetmpfs_collapse c = { .offset = 0, .length = 0 };

		if (ioctl(fd, HUGETMPFS_IOC_COLLAPSE, &c) < 0)
			fprintf(stderr, "frag: HUGETMPFS_IOC_COLLAPSE: %s\n",
				strerror(errno));
	} else if (madvise(map, size, MADV_COLLAPSE)) {
		fprintf(stderr, "frag: MADV_COLLAPSE: %s\n", strerror(errno));
	}
	figure("collapse", (now() - t) * 1e3, "ms");
	figure("pmd_fraction_collapsed", pmd_fraction(size), "fraction");

	for (off = 0; off < size; off += PAGE)
		if (*(uint64_t *)(map + off) != off) {
			errno = EIO;
			die("wrong data at %zu", off);
		}
	munmap(map, size);
	close(fd);
	if (unlink(argv[1]))
		die("unlink %s", argv[1]);
	return 0;
}
