// SPDX-License-Identifier: GPL-2.0
/*
 * Large folios: where a PMD-sized folio cannot be had, a write, a fault or
 * fallocate gets the largest folio between 1 MiB and 16 KiB that fits its
 * range, not 4 KiB pages. The kernel's fail_page_alloc (min-order 9, this
 * process only) makes huge pages unavailable while smaller ones are not.
 * Checked: which sizes are made (per-size counters, HUGETMPFS_IOC_STAT), data
 * byte for byte through read and mmap, punch and truncate inside large
 * folios, MAP_PRIVATE copies, collapse into huge folios afterwards, fsx with
 * huge pages unavailable; the never policy and large_fallback=0 give single
 * pages, large_fallback refuses bad values; everything given back on unlink.
 * tmpfs in 6.12 has no such fallback for its mounts (4 KiB pages only), so
 * there is nothing to compare with there.
 */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <linux/hugetmpfs.h>

#include "stats.h"
#include "tap.h"

#define KB 1024L
#define MB (1024 * KB)

static const char *fpa = "/sys/kernel/debug/fail_page_alloc";
static char sysdir[128];

static long stat_read(const char *name)
{
	return mount_stat(sysdir, name);
}

/* Write @val to @dir/@name; false (said on stderr) if refused. */
static int write_file(const char *dir, const char *name, const char *val)
{
	char path[256];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
		return 0;
	}
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok;
}

/*
 * Huge pages unavailable to this process (and the children it starts
 * meanwhile), smaller ones not: every allocation of order 9 or more fails,
 * reclaim or not, silently.
 */
static void no_huge_pages(int on)
{
	if (on) {
		CHECK(write_file(fpa, "task-filter", "Y") &&
		      write_file(fpa, "min-order", "9") &&
		      write_file(fpa, "ignore-gfp-wait", "N") &&
		      write_file(fpa, "ignore-gfp-highmem", "N") &&
		      write_file(fpa, "verbose", "0") &&
		      write_file(fpa, "interval", "1") &&
		      write_file(fpa, "times", "-1") &&
		      write_file(fpa, "space", "0") &&
		      write_file(fpa, "probability", "100"),
		      "set up fail_page_alloc");
	}
	CHECK(write_file("/proc/self", "make-it-fail", on ? "1" : "0"),
	      "make-it-fail=%d", on);
	if (!on)
		CHECK(write_file(fpa, "probability", "0"), "fail_page_alloc off");
}

static unsigned char pattern(long off, int seed)
{
	return (unsigned char)(off * 7 + off / 4093 + seed);
}

static void fill(char *buf, long off, long len, int seed)
{
	long i;

	for (i = 0; i < len; i++)
		buf[i] = pattern(off + i, seed);
}

/* Write [@off, @off + @len) with the pattern, in @chunk-sized writes. */
static void write_pattern(int fd, long off, long len, long chunk, int seed)
{
	char *buf = malloc(chunk);
	long done;

	for (done = 0; done < len; done += chunk) {
		fill(buf, off + done, chunk, seed);
		CHECK(pwrite(fd, buf, chunk, off + done) == chunk,
		      "write at %ld: %s", off + done, strerror(errno));
	}
	free(buf);
}

/*
 * Does [@off, @off + @len) read back as the pattern, except zeroes in
 * [@zlo, @zhi)? Returns the first bad offset, or -1.
 */
static long bad_byte(const unsigned char *p, long off, long len, int seed,
		     long zlo, long zhi)
{
	long i;

	for (i = 0; i < len; i++) {
		long at = off + i;
		unsigned char want = at >= zlo && at < zhi ? 0 :
				     pattern(at, seed);

		if (p[i] != want)
			return at;
	}
	return -1;
}

static long read_check(int fd, long len, int seed, long zlo, long zhi)
{
	unsigned char *buf = malloc(len);
	long bad;

	if (pread(fd, buf, len, 0) != len) {
		free(buf);
		return 0;
	}
	bad = bad_byte(buf, 0, len, seed, zlo, zhi);
	free(buf);
	return bad;
}

static struct hugetmpfs_stat file_stat(int fd)
{
	struct hugetmpfs_stat st = {};

	CHECK(ioctl(fd, HUGETMPFS_IOC_STAT, &st) == 0, "HUGETMPFS_IOC_STAT: %s",
	      strerror(errno));
	return st;
}

#define ST(fd, h, l, lp, s) do {					\
	struct hugetmpfs_stat _st = file_stat(fd);			\
	CHECK(_st.huge_folios == (h) && _st.large_folios == (l) &&	\
	      _st.large_pages == (lp) && _st.small_pages == (s),	\
	      "huge %llu large %llu (pages %llu) small %llu, want "	\
	      "%d %d (%d) %d", (unsigned long long)_st.huge_folios,	\
	      (unsigned long long)_st.large_folios,			\
	      (unsigned long long)_st.large_pages,			\
	      (unsigned long long)_st.small_pages, h, l, lp, s);	\
} while (0)

/* 1 MiB writes: 1 MiB folios, the first of each range after a failure. */
static void test_writes(void)
{
	long made = stat_read("large_alloc_1024kB");
	long nomem = stat_read("huge_fallback_nomem");
	int fd = MUST(open("a", O_RDWR | O_CREAT | O_TRUNC, 0644));

	no_huge_pages(1);
	write_pattern(fd, 0, 8 * MB, MB, 1);
	no_huge_pages(0);
	ST(fd, 0, 8, 2048, 0);
	CHECK(stat_read("large_alloc_1024kB") - made == 8,
	      "large_alloc_1024kB +%ld", stat_read("large_alloc_1024kB") - made);
	CHECK(stat_read("huge_fallback_nomem") - nomem == 4,
	      "a huge folio was tried in each 2 MiB range: nomem +%ld",
	      stat_read("huge_fallback_nomem") - nomem);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	CHECK(read_check(fd, 8 * MB, 1, 0, 0) == -1, "data read back");
	close(fd);
}

/*
 * A small write in an empty range: the largest folio around it that ends
 * within the file's size (past it, nothing would ever use it).
 */
static void test_sparse_write(void)
{
	long made = stat_read("large_alloc_128kB");
	int fd = MUST(open("b", O_RDWR | O_CREAT | O_TRUNC, 0644));

	no_huge_pages(1);
	write_pattern(fd, 3 * MB + 64 * KB, 64 * KB, 64 * KB, 2);
	no_huge_pages(0);
	ST(fd, 0, 1, 32, 0);
	CHECK(stat_read("large_alloc_128kB") - made == 1,
	      "one 128 KiB folio (3 MiB to its size): +%ld",
	      stat_read("large_alloc_128kB") - made);
	CHECK(read_check(fd, 3 * MB + 128 * KB, 2, 0, 3 * MB + 64 * KB) == -1,
	      "zeroes, then the data");
	CHECK(lseek(fd, 0, SEEK_DATA) == 3 * MB, "SEEK_DATA finds the folio");
	close(fd);
	unlink("b");
}

/*
 * fallocate of part of a range needs no failure to get large folios: they
 * hold the reservation and nothing else.
 */
static void test_fallocate(void)
{
	long made = stat_read("large_alloc_256kB");
	int fd = MUST(open("c", O_RDWR | O_CREAT | O_TRUNC, 0644));
	struct stat st;

	CHECK(fallocate(fd, 0, 512 * KB, 256 * KB) == 0, "fallocate: %s",
	      strerror(errno));
	ST(fd, 0, 1, 64, 0);
	CHECK(stat_read("large_alloc_256kB") - made == 1,
	      "a 256 KiB folio: +%ld", stat_read("large_alloc_256kB") - made);
	MUST(fstat(fd, &st));
	CHECK(st.st_blocks * 512 == 256 * KB, "st_blocks %lld",
	      (long long)st.st_blocks);
	/* Unaligned: only what the reservation covers whole. */
	CHECK(fallocate(fd, 0, 4 * MB + 4 * KB, 60 * KB) == 0, "fallocate: %s",
	      strerror(errno));
	MUST(fstat(fd, &st));
	CHECK(st.st_blocks * 512 == 316 * KB, "st_blocks %lld",
	      (long long)st.st_blocks);
	close(fd);
	unlink("c");
}

/* Faults get large folios as writes do. */
static void test_fault(void)
{
	long made = stat_read("large_alloc_1024kB");
	int fd = MUST(open("f", O_RDWR | O_CREAT | O_TRUNC, 0644));
	char *p;

	MUST(ftruncate(fd, 4 * MB));
	p = mmap(NULL, 4 * MB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	if (p == MAP_FAILED)
		return;
	no_huge_pages(1);
	p[MB + 8 * KB] = 42;
	no_huge_pages(0);
	ST(fd, 0, 1, 256, 0);
	CHECK(stat_read("large_alloc_1024kB") - made == 1, "+%ld",
	      stat_read("large_alloc_1024kB") - made);
	munmap(p, 4 * MB);
	{
		char c = 0;

		CHECK(pread(fd, &c, 1, MB + 8 * KB) == 1 && c == 42,
		      "the write through the mapping: %d", c);
	}
	close(fd);
	unlink("f");
}

/* What the policy and the tunable say: single pages. */
static void test_policies(void)
{
	__u32 never = HUGETMPFS_HUGE_NEVER;
	char log[1 << 16];
	int fd, n;

	fd = MUST(open("d", O_RDWR | O_CREAT | O_TRUNC, 0644));
	CHECK(ioctl(fd, HUGETMPFS_IOC_SET_HUGE, &never) == 0, "SET_HUGE: %s",
	      strerror(errno));
	no_huge_pages(1);
	write_pattern(fd, 0, MB, MB, 3);
	no_huge_pages(0);
	ST(fd, 0, 0, 0, 256);
	close(fd);
	unlink("d");

	CHECK(write_file(sysdir, "large_fallback", "0"), "large_fallback=0");
	fd = MUST(open("e", O_RDWR | O_CREAT | O_TRUNC, 0644));
	no_huge_pages(1);
	write_pattern(fd, 0, MB, MB, 4);
	no_huge_pages(0);
	ST(fd, 0, 0, 0, 256);
	CHECK(read_check(fd, MB, 4, 0, 0) == -1, "data read back");
	close(fd);
	unlink("e");

	/* The runner empties the kernel log before each test. */
	CHECK(!write_file(sysdir, "large_fallback", "2") && errno == EINVAL,
	      "large_fallback=2 refused: %s", strerror(errno));
	n = klogctl(3, log, sizeof(log) - 1);	/* SYSLOG_ACTION_READ_ALL */
	log[n > 0 ? n : 0] = 0;
	CHECK(strstr(log, "large_fallback must be 0 to 1"),
	      "the kernel log names large_fallback");
	CHECK(read_long(strcat(strcpy(log, sysdir), "/large_fallback")) == 0,
	      "large_fallback still 0");
	CHECK(write_file(sysdir, "large_fallback", "1"), "large_fallback=1");
}

/* Punch, mmap, truncate and collapse on file "a" of test_writes(). */
static void test_changes(void)
{
	long splits = stat_read("splits");
	long size = 5 * MB + 12 * KB;
	int fd = MUST(open("a", O_RDWR));
	struct hugetmpfs_collapse c = { .offset = 0, .length = 4 * MB };
	unsigned char *p, *q;
	struct stat st;

	/* A page and 100 bytes of the first 1 MiB folio: it is split. */
	CHECK(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			260 * KB, 4 * KB + 100) == 0, "punch: %s",
	      strerror(errno));
	CHECK(stat_read("splits") - splits == 1, "splits +%ld",
	      stat_read("splits") - splits);
	ST(fd, 0, 7, 1792, 255);
	CHECK(read_check(fd, 8 * MB, 1, 260 * KB, 264 * KB + 100) == -1,
	      "data around the hole");
	CHECK(lseek(fd, 0, SEEK_HOLE) == 260 * KB, "SEEK_HOLE at the page");
	MUST(fstat(fd, &st));
	CHECK(st.st_blocks * 512 == 8 * MB - 4 * KB, "st_blocks %lld",
	      (long long)st.st_blocks);

	/* Into the folio at 5 MiB: it is split, what follows goes. */
	MUST(ftruncate(fd, size));
	ST(fd, 0, 4, 1024, 258);
	MUST(fstat(fd, &st));
	CHECK(st.st_blocks * 512 == size - 4 * KB, "st_blocks %lld",
	      (long long)st.st_blocks);

	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	q = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(p != MAP_FAILED && q != MAP_FAILED, "mmap: %s", strerror(errno));
	if (p == MAP_FAILED || q == MAP_FAILED)
		return;
	CHECK(bad_byte(p, 0, size, 1, 260 * KB, 264 * KB + 100) == -1,
	      "the data through a shared mapping");
	p[3 * MB + 5] = ~pattern(3 * MB + 5, 1);
	q[2 * MB + 5] = ~pattern(2 * MB + 5, 1);
	CHECK(q[3 * MB + 5] == p[3 * MB + 5], "a private mapping sees the file");
	p[3 * MB + 5] = pattern(3 * MB + 5, 1);
	CHECK(p[2 * MB + 5] == pattern(2 * MB + 5, 1),
	      "a private copy stays private");

	CHECK(ioctl(fd, HUGETMPFS_IOC_COLLAPSE, &c) == 2 && c.collapsed == 2,
	      "collapse of [0, 4 MiB): %s, %llu", strerror(errno),
	      (unsigned long long)c.collapsed);
	ST(fd, 2, 1, 256, 3);
	CHECK(bad_byte(p, 0, size, 1, 260 * KB, 264 * KB + 100) == -1,
	      "the data through the shared mapping after collapse");
	CHECK(q[2 * MB + 5] == (unsigned char)~pattern(2 * MB + 5, 1),
	      "the private copy after collapse");
	munmap(p, size);
	munmap(q, size);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	CHECK(read_check(fd, size, 1, 260 * KB, 264 * KB + 100) == -1,
	      "data read back after collapse");
	close(fd);
}

/* Large folios of every size made on the mount so far */
static long large_allocs(void)
{
	long sum = 0;
	char name[32];
	int k;

	for (k = 2; k <= 8; k++) {
		snprintf(name, sizeof(name), "large_alloc_%ldkB", 4L << k);
		sum += stat_read(name);
	}
	return sum;
}

/* fsx, huge pages unavailable to it: large folios under every operation. */
static void test_fsx(void)
{
	long before = large_allocs(), after;
	int status = -1;
	pid_t pid;

	no_huge_pages(1);
	pid = fork();
	if (pid == 0) {
		execlp("fsx", "fsx", "-s", "7", "-n", "1500", "-m", "8", "-f",
		       "2", ".", NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	no_huge_pages(0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "fsx with no huge pages: status %d", status);
	after = large_allocs();
	CHECK(after > before, "fsx worked on large folios (%ld made)",
	      after - before);
}

int main(void)
{
	if (access(fpa, W_OK)) {
		fprintf(stderr, "%s: %s: the test kernel needs CONFIG_FAIL_PAGE_ALLOC and CONFIG_FAULT_INJECTION_DEBUG_FS\n",
			fpa, strerror(errno));
		return 2;
	}
	mount_sysdir(".", sysdir, sizeof(sysdir));
	MUST(mount("none", ".", NULL, MS_REMOUNT, "huge=always"));

	test_writes();
	test_sparse_write();
	test_fallocate();
	test_fault();
	test_policies();
	test_changes();
	test_fsx();

	unlink("a");
	CHECK(stat_read("used_bytes") == 0, "used_bytes %ld after unlink",
	      stat_read("used_bytes"));
	return tap_done("t-large");
}
