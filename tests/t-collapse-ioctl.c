// SPDX-License-Identifier: GPL-2.0
/*
 * HUGETMPFS_IOC_COLLAPSE: files written in small pages (huge=never at the
 * time) are made of PMD-sized folios at once, their data intact byte for
 * byte after the caches are dropped, their holes still holes to SEEK_HOLE;
 * a process that mapped the file shared reads the same data afterwards,
 * now through a PMD (smaps), and writes through it reach the file; a
 * private mapping keeps its own copy of what it wrote; a page held by a
 * pipe (vmsplice) keeps its range as it is (EAGAIN) until released; bad
 * arguments fail with EINVAL, EBADF, EPERM. The counters and used_bytes
 * follow. On tmpfs, MADV_COLLAPSE on the same layout is the reference.
 * HUGETMPFS_IOC_SET_HUGE/GET_HUGE: a file's own policy decides for it over
 * the mount's, inherit gives it back; HUGETMPFS_IOC_STAT counts its folios.
 */
#include <fcntl.h>
#include <stdint.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/hugetmpfs.h>

#include "stats.h"
#include "tap.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define KB 1024L
#define MB (1024 * KB)
#define HPAGE (2 * MB)

static char sysdir[128];

static long stat_read(const char *name)
{
	return mount_stat(sysdir, name);
}

static void remount(const char *huge)
{
	char opts[64];

	snprintf(opts, sizeof(opts), "huge=%s", huge);
	MUST(mount("none", ".", NULL, MS_REMOUNT, opts));
}

static void set_override(const char *val)
{
	FILE *f = fopen("/sys/module/hugetmpfs/parameters/huge_override", "w");

	CHECK(f && fputs(val, f) >= 0 && fclose(f) == 0,
	      "set huge_override=%s", val);
}

static void drop_caches(void)
{
	int fd = MUST(open("/proc/sys/vm/drop_caches", O_WRONLY));

	MUST(write(fd, "3", 1));
	close(fd);
}

static unsigned char pattern(long off, int seed)
{
	return ((off * 2654435761u) >> 11) + seed;
}

/* A file of @size written 4 KiB at a time, every @step bytes; the rest hole */
static int make_file(const char *name, long size, long step, int seed)
{
	unsigned char page[4096];
	int fd = MUST(open(name, O_RDWR | O_CREAT | O_TRUNC, 0644));

	for (long off = 0; off < size; off += step) {
		for (int i = 0; i < 4096; i++)
			page[i] = pattern(off + i, seed);
		MUST(pwrite(fd, page, sizeof(page), off));
	}
	MUST(ftruncate(fd, size));
	return fd;
}

/* Where the first byte that differs from make_file()'s is, or -1 */
static long first_bad(const unsigned char *p, long size, long step, int seed)
{
	for (long off = 0; off < size; off++) {
		int data = off % step < 4096;

		if (p[off] != (data ? pattern(off, seed) : 0))
			return off;
	}
	return -1;
}

static long file_bad(int fd, long size, long step, int seed)
{
	unsigned char *buf = malloc(size);
	long bad;

	CHECK(pread(fd, buf, size, 0) == size, "read back");
	bad = first_bad(buf, size, step, seed);
	free(buf);
	return bad;
}

static int collapse(int fd, long off, long len, struct hugetmpfs_collapse *c)
{
	memset(c, 0, sizeof(*c));
	c->offset = off;
	c->length = len;
	return ioctl(fd, HUGETMPFS_IOC_COLLAPSE, c);
}

/* Map @fd at a 2 MiB-aligned address, so that PMDs can map it. */
static unsigned char *map_aligned(int fd, long size, int flags)
{
	unsigned char *area = mmap(NULL, size + HPAGE, PROT_NONE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t at;

	CHECK(area != MAP_FAILED, "reserve");
	at = ((uintptr_t)area + HPAGE - 1) & ~(HPAGE - 1);
	return mmap((void *)at, size, PROT_READ | PROT_WRITE,
		    flags | MAP_FIXED, fd, 0);
}

static long sum_touch(volatile unsigned char *p, long size)
{
	long sum = 0;

	for (long off = 0; off < size; off += 4096)
		sum += p[off];
	return sum;
}

static struct hugetmpfs_stat file_stat(int fd)
{
	struct hugetmpfs_stat st;

	memset(&st, 0xff, sizeof(st));
	CHECK(ioctl(fd, HUGETMPFS_IOC_STAT, &st) == 0, "HUGETMPFS_IOC_STAT: %s",
	      strerror(errno));
	return st;
}

/* 16 MiB in 4 KiB writes: eight ranges collapse, nothing else changes. */
static void fragmented(void)
{
	long size = 16 * MB, used, huge, done;
	struct hugetmpfs_collapse c;
	int fd;

	remount("never");
	fd = make_file("frag", size, 4096, 1);
	remount("always");
	used = stat_read("used_bytes");
	huge = stat_read("huge_folios");
	done = stat_read("collapsed");
	CHECK(file_stat(fd).small_pages == (unsigned long long)size / 4096,
	      "small pages before");
	CHECK(collapse(fd, 0, 0, &c) == 8, "collapse the whole file: %s",
	      strerror(errno));
	CHECK(file_stat(fd).huge_folios == 8 && file_stat(fd).small_pages == 0,
	      "HUGETMPFS_IOC_STAT: all huge after");
	CHECK(c.collapsed == 8 && c.huge == 0, "collapsed %llu, huge %llu",
	      (unsigned long long)c.collapsed, (unsigned long long)c.huge);
	CHECK(stat_read("huge_folios") == huge + 8, "huge_folios %ld, was %ld",
	      stat_read("huge_folios"), huge);
	CHECK(stat_read("collapsed") == done + 8, "the collapsed counter");
	CHECK(stat_read("used_bytes") == used, "used_bytes %ld, was %ld",
	      stat_read("used_bytes"), used);
	drop_caches();
	CHECK(file_bad(fd, size, 4096, 1) == -1, "data after collapse at %ld",
	      file_bad(fd, size, 4096, 1));
	CHECK(stat_read("huge_folios") == huge + 8, "still huge after drop_caches");
	/* Again: nothing to do, and it says so. */
	CHECK(collapse(fd, 0, 0, &c) == 0 && c.huge == 8,
	      "a second collapse: huge %llu", (unsigned long long)c.huge);
	/* Part of the file: the whole ranges inside [3 MiB, 9 MiB) */
	close(fd);
	remount("never");
	fd = make_file("frag", size, 4096, 2);
	CHECK(collapse(fd, 3 * MB, 6 * MB, &c) == 2, "collapse 3 MiB + 6 MiB");
	CHECK(c.collapsed == 2, "two ranges collapsed, not %llu",
	      (unsigned long long)c.collapsed);
	CHECK(file_bad(fd, size, 4096, 2) == -1, "data after a partial collapse");
	close(fd);
	unlink("frag");
}

/* A page in every 16: the holes are filled, but stay holes to SEEK_HOLE. */
static void sparse(void)
{
	long size = 4 * MB, step = 64 * KB, used, holes;
	struct hugetmpfs_collapse c;
	int fd;

	remount("never");
	fd = make_file("sparse", size, step, 3);
	used = stat_read("used_bytes");
	holes = stat_read("free_hole_bytes");
	CHECK(collapse(fd, 0, size, &c) == 2, "collapse a sparse file: %s",
	      strerror(errno));
	CHECK(stat_read("used_bytes") == used + size - size / step * 4096,
	      "used_bytes %ld: the holes filled are charged",
	      stat_read("used_bytes"));
	CHECK(stat_read("free_hole_bytes") == holes + size - size / step * 4096,
	      "free_hole_bytes %ld", stat_read("free_hole_bytes"));
	CHECK(lseek(fd, 0, SEEK_HOLE) == 4096, "SEEK_HOLE still finds holes");
	CHECK(file_stat(fd).hole_pages == (unsigned long long)(size / 4096 - size / step),
	      "HUGETMPFS_IOC_STAT: hole pages %llu",
	      (unsigned long long)file_stat(fd).hole_pages);
	CHECK(lseek(fd, 4096, SEEK_DATA) == step, "SEEK_DATA the next data");
	CHECK(file_bad(fd, size, step, 3) == -1, "data of a sparse file");
	/* The hole shrinker may take them back apart: data stays. */
	drop_caches();
	CHECK(file_bad(fd, size, step, 3) == -1, "data after drop_caches");
	close(fd);
	unlink("sparse");
}

/* Mapped shared while collapsed: same data, then through a PMD. */
static void mapped(void)
{
	long size = 8 * MB;
	struct hugetmpfs_collapse c;
	unsigned char *p, v;
	int fd;

	remount("never");
	fd = make_file("mapped", size, 4096, 4);
	p = map_aligned(fd, size, MAP_SHARED);
	CHECK(p != MAP_FAILED, "map");
	if (p == MAP_FAILED)
		return;
	sum_touch(p, size);
	CHECK(pmd_mapped_kb(p) == 0, "small pages: no PMD yet");
	CHECK(collapse(fd, 0, 0, &c) == 4, "collapse a mapped file: %s",
	      strerror(errno));
	CHECK(first_bad(p, size, 4096, 4) == -1, "data through the mapping");
	CHECK(pmd_mapped_kb(p) == size / KB, "ShmemPmdMapped %ld kB after collapse",
	      pmd_mapped_kb(p));
	CHECK(file_stat(fd).pmd_mapped == 4, "HUGETMPFS_IOC_STAT: 4 PMD-mapped");
	p[5 * MB + 7] = 0x5a;
	CHECK(pread(fd, &v, 1, 5 * MB + 7) == 1 && v == 0x5a,
	      "a write through the PMD reaches the file");
	munmap(p, size);
	close(fd);
	unlink("mapped");
}

/* A private mapping's own copy of a page stays its own. */
static void private_copy(void)
{
	long size = 4 * MB;
	struct hugetmpfs_collapse c;
	unsigned char *p, v;
	int fd;

	remount("never");
	fd = make_file("private", size, 4096, 5);
	p = map_aligned(fd, size, MAP_PRIVATE);
	CHECK(p != MAP_FAILED, "map private");
	if (p == MAP_FAILED)
		return;
	sum_touch(p, size);
	p[3 * 4096] = pattern(3 * 4096, 5) ^ 0xff;	/* copy on write */
	CHECK(collapse(fd, 0, 0, &c) == 2, "collapse under a private mapping: %s",
	      strerror(errno));
	CHECK(p[3 * 4096] == (unsigned char)(pattern(3 * 4096, 5) ^ 0xff),
	      "the private copy is kept");
	CHECK(pread(fd, &v, 1, 3 * 4096) == 1 && v == pattern(3 * 4096, 5),
	      "the file is not changed by it");
	p[3 * 4096] = pattern(3 * 4096, 5);
	CHECK(first_bad(p, size, 4096, 5) == -1, "the rest reads the file");
	munmap(p, size);
	close(fd);
	unlink("private");
}

/* A page held by a pipe: its range stays as it is until released. */
static void busy(void)
{
	long size = 4 * MB, fails;
	struct hugetmpfs_collapse c;
	struct iovec iov;
	unsigned char *p;
	int fd, pipefd[2];

	remount("never");
	fd = make_file("busy", size, 4096, 6);
	p = map_aligned(fd, size, MAP_SHARED);
	CHECK(p != MAP_FAILED, "map");
	if (p == MAP_FAILED)
		return;
	MUST(pipe(pipefd));
	iov.iov_base = p + 4096;
	iov.iov_len = 4096;
	CHECK(vmsplice(pipefd[1], &iov, 1, 0) == 4096, "vmsplice a page");
	fails = stat_read("collapse_fail_busy");
	CHECK(collapse(fd, 0, 0, &c) == -1 && errno == EAGAIN,
	      "a held page: EAGAIN, not %s", strerror(errno));
	CHECK(c.collapsed == 1, "the other range collapsed (%llu)",
	      (unsigned long long)c.collapsed);
	CHECK(stat_read("collapse_fail_busy") == fails + 1, "collapse_fail_busy");
	close(pipefd[0]);
	close(pipefd[1]);
	CHECK(collapse(fd, 0, 0, &c) == 1 && c.huge == 1,
	      "released: collapsed now (%s)", strerror(errno));
	CHECK(first_bad(p, size, 4096, 6) == -1, "data after all that");
	munmap(p, size);
	close(fd);
	unlink("busy");
}

static void bad_arguments(void)
{
	struct hugetmpfs_collapse c;
	int fd, ro;

	remount("never");
	fd = make_file("args", 4 * MB, 4096, 7);
	CHECK(collapse(fd, 0, MB, &c) == -1 && errno == EINVAL,
	      "no whole range inside: EINVAL");
	CHECK(collapse(fd, 4 * MB, 0, &c) == -1 && errno == EINVAL,
	      "past the end: EINVAL");
	CHECK(collapse(fd, 1, -1, &c) == -1 && errno == EINVAL,
	      "offset + length overflows: EINVAL");
	CHECK(collapse(fd, -2 * MB, 0, &c) == -1 && errno == EINVAL,
	      "negative offset: EINVAL");
	memset(&c, 0, sizeof(c));
	c.flags = 1;
	CHECK(ioctl(fd, HUGETMPFS_IOC_COLLAPSE, &c) == -1 && errno == EINVAL,
	      "unknown flags: EINVAL");
	CHECK(ioctl(fd, HUGETMPFS_IOC_COLLAPSE, (void *)8) == -1 &&
	      errno == EFAULT, "bad pointer: EFAULT");
	ro = MUST(open("args", O_RDONLY));
	CHECK(collapse(ro, 0, 0, &c) == -1 && errno == EBADF,
	      "read-only: EBADF");
	close(ro);
	set_override("deny");
	CHECK(collapse(fd, 0, 0, &c) == -1 && errno == EPERM,
	      "huge_override=deny: EPERM");
	set_override("none");
	CHECK(file_bad(fd, 4 * MB, 4096, 7) == -1, "nothing changed");
	close(fd);
	unlink("args");
	/* Not ours: the other filesystem says it knows no such ioctl. */
	fd = MUST(open("/proc/self/stat", O_RDONLY));
	CHECK(collapse(fd, 0, 0, &c) == -1 && errno == ENOTTY,
	      "a file on another filesystem: ENOTTY");
	close(fd);
}

static __u32 get_huge(int fd)
{
	__u32 v = 99;

	CHECK(ioctl(fd, HUGETMPFS_IOC_GET_HUGE, &v) == 0, "GET_HUGE");
	return v;
}

/* A file's own policy wins over the mount's, for the folios made after. */
static void policy(void)
{
	struct hugetmpfs_stat st;
	unsigned char page[4096];
	__u32 v;
	int fd;

	memset(page, 0x33, sizeof(page));
	remount("never");
	fd = MUST(open("policy", O_RDWR | O_CREAT | O_TRUNC, 0644));
	CHECK(get_huge(fd) == HUGETMPFS_HUGE_INHERIT, "a new file inherits");
	st = file_stat(fd);
	CHECK(st.huge == HUGETMPFS_HUGE_NEVER && st.huge_own == HUGETMPFS_HUGE_INHERIT,
	      "stat: policy %u, own %u", st.huge, st.huge_own);
	v = HUGETMPFS_HUGE_ALWAYS;
	CHECK(ioctl(fd, HUGETMPFS_IOC_SET_HUGE, &v) == 0, "SET_HUGE always");
	CHECK(get_huge(fd) == HUGETMPFS_HUGE_ALWAYS, "GET_HUGE: always");
	for (long off = 0; off < 4 * MB; off += 4096)
		MUST(pwrite(fd, page, sizeof(page), off));
	st = file_stat(fd);
	CHECK(st.huge_folios == 2 && st.small_pages == 0,
	      "always on a huge=never mount: %llu huge folios, %llu small pages",
	      (unsigned long long)st.huge_folios,
	      (unsigned long long)st.small_pages);
	CHECK(st.size == 4 * MB && st.huge == HUGETMPFS_HUGE_ALWAYS,
	      "stat: size %llu, policy %u", (unsigned long long)st.size, st.huge);
	v = HUGETMPFS_HUGE_NEVER;
	CHECK(ioctl(fd, HUGETMPFS_IOC_SET_HUGE, &v) == 0, "SET_HUGE never");
	remount("always");
	for (long off = 4 * MB; off < 6 * MB; off += 4096)
		MUST(pwrite(fd, page, sizeof(page), off));
	st = file_stat(fd);
	CHECK(st.huge_folios == 2 && st.small_pages == 512,
	      "never on a huge=always mount: %llu huge, %llu small",
	      (unsigned long long)st.huge_folios,
	      (unsigned long long)st.small_pages);
	v = HUGETMPFS_HUGE_INHERIT;
	CHECK(ioctl(fd, HUGETMPFS_IOC_SET_HUGE, &v) == 0, "SET_HUGE inherit");
	for (long off = 6 * MB; off < 8 * MB; off += 4096)
		MUST(pwrite(fd, page, sizeof(page), off));
	st = file_stat(fd);
	CHECK(st.huge_folios == 3 && st.huge == HUGETMPFS_HUGE_ALWAYS,
	      "inherit: the mount's always again (%llu huge)",
	      (unsigned long long)st.huge_folios);
	v = 5;
	CHECK(ioctl(fd, HUGETMPFS_IOC_SET_HUGE, &v) == -1 && errno == EINVAL,
	      "SET_HUGE 5: EINVAL");
	CHECK(get_huge(fd) == HUGETMPFS_HUGE_INHERIT, "unchanged by a bad value");
	close(fd);
	unlink("policy");
}

/* tmpfs: MADV_COLLAPSE on the same layout, mapped, as the reference. */
static void tmpfs_reference(void)
{
	const char *dir = "/mnt/t-collapse-ioctl-tmpfs";
	long size = 8 * MB;
	unsigned char *p;
	char path[128];
	int fd;

	mkdir(dir, 0755);
	MUST(mount("tmpfs", dir, "tmpfs", 0, "huge=never"));
	snprintf(path, sizeof(path), "%s/mapped", dir);
	tap_fs = "tmpfs";
	fd = make_file(path, size, 4096, 4);
	p = map_aligned(fd, size, MAP_SHARED);
	CHECK(p != MAP_FAILED, "map");
	if (p != MAP_FAILED) {
		sum_touch(p, size);
		CHECK(madvise(p, size, MADV_COLLAPSE) == 0, "MADV_COLLAPSE: %s",
		      strerror(errno));
		CHECK(first_bad(p, size, 4096, 4) == -1, "data after MADV_COLLAPSE");
		printf("tmpfs: MADV_COLLAPSE of %ld MiB: ShmemPmdMapped %ld kB\n",
		       size / MB, pmd_mapped_kb(p));
		CHECK(pmd_mapped_kb(p) == size / KB, "PMD-mapped after it");
		munmap(p, size);
	}
	close(fd);
	tap_fs = "hugetmpfs";
	MUST(umount(dir));
	rmdir(dir);
}

/* Run one part and say how long it took (for the suite's time, not checked) */
static void timed(const char *name, void (*part)(void))
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	part();
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%s: %ld ms\n", name, (b.tv_sec - a.tv_sec) * 1000 +
	       (b.tv_nsec - a.tv_nsec) / 1000000);
}

int main(void)
{
	mount_sysdir(".", sysdir, sizeof(sysdir));
	timed("fragmented", fragmented);
	timed("sparse", sparse);
	timed("mapped", mapped);
	timed("private", private_copy);
	timed("busy", busy);
	timed("bad arguments", bad_arguments);
	timed("policy", policy);
	timed("tmpfs", tmpfs_reference);
	remount("never");
	return tap_done("t-collapse-ioctl");
}
