// SPDX-License-Identifier: GPL-2.0
/*
 * Hole punching, zeroing and truncation inside huge folios (huge=always):
 * the range reads as zeroes through read(2) and through a live shared
 * mapping, SEEK_HOLE/SEEK_DATA agree, the rest of the data is intact, and
 * memory comes back where whole pages were freed. hugetmpfs splits a huge
 * folio only then: zeroing a few bytes keeps it (and its PMD mapping) whole.
 * The data checks also run on tmpfs; the sysfs ones on hugetmpfs only.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "stats.h"
#include "tap.h"

#define KB 1024L
#define MB (1024 * KB)
#define SIZE (8 * MB)

static const char *fs;
static char sysdir[128];
static unsigned char *model;

/* On tmpfs (no sysdir), every statistic reads 0. */
static long stat_read(const char *name)
{
	return sysdir[0] ? mount_stat(sysdir, name) : 0;
}

/* A /proc/vmstat event count, or -1 */
static long vmstat(const char *name)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char key[64];
	long v, found = -1;

	while (f && fscanf(f, "%63s %ld", key, &v) == 2)
		if (!strcmp(key, name))
			found = v;
	if (f)
		fclose(f);
	return found;
}

/* The file, read(2) and the mapping all hold what the model says. */
static void verify(int fd, const unsigned char *map, long size,
		   const char *what)
{
	unsigned char *buf = malloc(SIZE);
	long bad_read = -1, bad_map = -1;

	CHECK(pread(fd, buf, SIZE, 0) == size, "%s: %s: read size", fs, what);
	for (long i = 0; i < size; i++) {
		if (buf[i] != model[i] && bad_read < 0)
			bad_read = i;
		if (map[i] != model[i] && bad_map < 0)
			bad_map = i;
	}
	CHECK(bad_read < 0, "%s: %s: read differs at %ld", fs, what, bad_read);
	CHECK(bad_map < 0, "%s: %s: mapping differs at %ld", fs, what,
	      bad_map);
	free(buf);
}

static void one_fs(void)
{
	long splits, used, huge, thp_splits;
	unsigned char *map;
	int fd;

	if (!strcmp(fs, "hugetmpfs"))
		mount_sysdir(".", sysdir, sizeof(sysdir));
	else
		sysdir[0] = 0;

	for (long i = 0; i < SIZE; i++)
		model[i] = (i * 2654435761u >> 7) | 1;
	fd = MUST(open("p", O_RDWR | O_CREAT | O_TRUNC, 0644));
	CHECK(write(fd, model, SIZE) == SIZE, "%s: write", fs);
	map = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED, "%s: mmap", fs);
	if (map == MAP_FAILED)
		return;
	for (long i = 0; i < SIZE; i += 4096)
		(void)*(volatile unsigned char *)(map + i);
	huge = stat_read("huge_folios");
	CHECK(!sysdir[0] || huge == SIZE / (2 * MB), "%s: %ld huge folios", fs,
	      huge);
	CHECK(!sysdir[0] || stat_read("pmd_mapped") == huge,
	      "%s: all PMD-mapped", fs);

	/* A few bytes: zeroed in place, no split, the PMD stays. */
	splits = stat_read("splits");
	thp_splits = vmstat("thp_split_page");
	MUST(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		       MB + 10, 100));
	printf("%s: punching 100 bytes split %ld huge folios\n", fs,
	       vmstat("thp_split_page") - thp_splits);
	CHECK(!sysdir[0] || vmstat("thp_split_page") == thp_splits,
	      "%s: the kernel split %ld folios for 100 bytes", fs,
	      vmstat("thp_split_page") - thp_splits);
	memset(model + MB + 10, 0, 100);
	verify(fd, map, SIZE, "punch 100 bytes");
	CHECK(stat_read("splits") == splits, "%s: punching 100 bytes split",
	      fs);
	CHECK(!sysdir[0] || stat_read("pmd_mapped") == huge,
	      "%s: punching 100 bytes lost a PMD mapping", fs);
	CHECK(lseek(fd, MB, SEEK_HOLE) == SIZE,
	      "%s: no hole after zeroing bytes", fs);

	/* 64 KiB, page aligned: split, the pages freed, a hole found. */
	used = stat_read("used_bytes");
	thp_splits = vmstat("thp_split_page");
	MUST(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		       2 * MB + 64 * KB, 64 * KB));
	CHECK(vmstat("thp_split_page") == thp_splits + 1,
	      "%s: the kernel split %ld folios for 64 KiB", fs,
	      vmstat("thp_split_page") - thp_splits);
	memset(model + 2 * MB + 64 * KB, 0, 64 * KB);
	/* Before verify(): reading the hole through the mapping refills it. */
	CHECK(stat_read("splits") == splits + (sysdir[0] ? 1 : 0),
	      "%s: punching 64 KiB split %ld folios", fs,
	      stat_read("splits") - splits);
	CHECK(stat_read("used_bytes") == used - (sysdir[0] ? 64 * KB : 0),
	      "%s: used %ld after punching 64 KiB of %ld", fs,
	      stat_read("used_bytes"), used);
	CHECK(lseek(fd, 2 * MB, SEEK_HOLE) == 2 * MB + 64 * KB,
	      "%s: SEEK_HOLE finds the punched 64 KiB: %ld", fs,
	      (long)lseek(fd, 2 * MB, SEEK_HOLE));
	CHECK(lseek(fd, 2 * MB + 64 * KB, SEEK_DATA) == 2 * MB + 128 * KB,
	      "%s: SEEK_DATA after it", fs);
	verify(fd, map, SIZE, "punch 64 KiB");
	CHECK(stat_read("used_bytes") == used,
	      "%s: used %ld after a read fault refilled the hole, %ld before",
	      fs, stat_read("used_bytes"), used);

	/*
	 * Zero range over an unaligned 1 MiB: zero, space kept. tmpfs has no
	 * FALLOC_FL_ZERO_RANGE: it must say so and change nothing.
	 */
	if (fallocate(fd, FALLOC_FL_ZERO_RANGE, 4 * MB + 123, MB) == 0) {
		CHECK(sysdir[0], "%s: has ZERO_RANGE now", fs);
		memset(model + 4 * MB + 123, 0, MB);
	} else {
		CHECK(!sysdir[0] && errno == EOPNOTSUPP,
		      "%s: ZERO_RANGE: %s", fs, strerror(errno));
	}
	verify(fd, map, SIZE, "zero 1 MiB");
	CHECK(lseek(fd, 4 * MB, SEEK_HOLE) == SIZE,
	      "%s: no hole after ZERO_RANGE", fs);
	CHECK(stat_read("used_bytes") == used, "%s: used %ld after ZERO_RANGE",
	      fs, stat_read("used_bytes"));

	/* Truncate into the last huge folio: the pages past EOF are freed. */
	MUST(ftruncate(fd, 7 * MB + 100));
	memset(model + 7 * MB + 100, 0, SIZE - (7 * MB + 100));
	verify(fd, map, 7 * MB + 100, "truncate to 7 MiB + 100");
	CHECK(map[7 * MB + 200] == 0, "%s: past EOF in the last page is zero",
	      fs);
	if (sysdir[0]) {
		CHECK(stat_read("used_bytes") == 7 * MB + 4 * KB,
		      "%s: used %ld after truncating to 7 MiB + 100", fs,
		      stat_read("used_bytes"));
		CHECK(stat_read("free_hole_bytes") == 0,
		      "%s: free_hole_bytes %ld after truncate", fs,
		      stat_read("free_hole_bytes"));
	}
	munmap(map, SIZE);
	close(fd);
	MUST(unlink("p"));

	/* A small file in a huge folio: the rest of it is a free hole. */
	fd = MUST(open("q", O_RDWR | O_CREAT | O_TRUNC, 0644));
	CHECK(write(fd, "x", 1) == 1, "%s: write 1 byte", fs);
	CHECK(!sysdir[0] || stat_read("free_hole_bytes") == 2 * MB - 4 * KB,
	      "%s: free_hole_bytes %ld for a 1-byte file", fs,
	      stat_read("free_hole_bytes"));
	CHECK(!sysdir[0] || stat_read("used_bytes") == 2 * MB,
	      "%s: used_bytes %ld for a 1-byte file", fs,
	      stat_read("used_bytes"));
	close(fd);
	MUST(unlink("q"));
	CHECK(!sysdir[0] || stat_read("used_bytes") == 0,
	      "%s: used_bytes %ld at the end", fs, stat_read("used_bytes"));
}

/*
 * Punching to the largest offset (offset + len == LLONG_MAX, which the VFS
 * allows) is still a punch, not a truncate: a MAP_PRIVATE mapping's own
 * copy of a page is not file data and must survive it.
 */
static void punch_to_max(void)
{
	unsigned char *priv, *shared;
	int fd;

	fd = MUST(open("m", O_RDWR | O_CREAT | O_TRUNC, 0644));
	CHECK(write(fd, model, 4 * MB) == 4 * MB, "%s: write", fs);
	priv = mmap(NULL, 4 * MB, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	shared = mmap(NULL, 4 * MB, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(priv != MAP_FAILED && shared != MAP_FAILED, "%s: mmap", fs);
	if (priv == MAP_FAILED || shared == MAP_FAILED)
		return;
	priv[3 * MB] = 0x77;	/* a private copy of that page */
	(void)*(volatile unsigned char *)(priv + 2 * MB + 8 * KB);
	MUST(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 2 * MB,
		       INT64_MAX - 2 * MB));
	CHECK(priv[3 * MB] == 0x77, "%s: private byte %#x after punch to max",
	      fs, priv[3 * MB]);
	CHECK(priv[3 * MB + 1] == model[3 * MB + 1],
	      "%s: private page changed after punch to max", fs);
	CHECK(priv[2 * MB + 8 * KB] == 0 && shared[3 * MB] == 0,
	      "%s: shared pages not punched", fs);
	CHECK(priv[2 * MB - 1] == model[2 * MB - 1] &&
	      shared[2 * MB - 1] == model[2 * MB - 1],
	      "%s: data before the punch changed", fs);
	CHECK(lseek(fd, 0, SEEK_END) == 4 * MB, "%s: size changed", fs);
	munmap(priv, 4 * MB);
	munmap(shared, 4 * MB);
	close(fd);
	MUST(unlink("m"));
}

int main(void)
{
	model = malloc(SIZE);
	fs = "hugetmpfs";
	MUST(mount("none", ".", NULL, MS_REMOUNT, "huge=always"));
	one_fs();
	punch_to_max();

	fs = "tmpfs";
	mkdir("/mnt/t-punch-tmpfs", 0755);
	MUST(mount("none", "/mnt/t-punch-tmpfs", "tmpfs", 0, "huge=always"));
	MUST(chdir("/mnt/t-punch-tmpfs"));
	one_fs();
	punch_to_max();
	MUST(chdir("/"));
	MUST(umount("/mnt/t-punch-tmpfs"));
	return tap_done("t-punch");
}
