// SPDX-License-Identifier: GPL-2.0
/*
 * A memory error in a file page (injected with MADV_HWPOISON) must not turn
 * the file's data into zeroes without a word: the poisoned page is kept,
 * read and write of it fail with EIO, touching it through a new mapping
 * raises SIGBUS, and every other byte of the file reads back. Checked in a
 * small page (huge=never) and in a huge folio (huge=always, which memory
 * failure splits, keeping the preallocation past EOF), on hugetmpfs and on
 * tmpfs in the same boot.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"

#ifndef MADV_HWPOISON
#define MADV_HWPOISON 100
#endif

#define PG 4096L
#define MB (1024L * 1024)
#define SIZE (3 * MB)		/* EOF inside the second 2 MiB folio */
#define PREALLOC (4 * MB)	/* fallocate(KEEP_SIZE) up to here */
#define BAD (SIZE - MB + 5 * PG)	/* in the folio straddling EOF */

static const char *what;
static sigjmp_buf jump;
static volatile sig_atomic_t armed;

/*
 * Touching the poisoned page jumps back to map_reads(). The process that
 * poisoned a page it maps is told at once too (BUS_MCEERR_AR, on both
 * filesystems, at the return from madvise()): that one is only news, since
 * the page is already unmapped.
 */
static void on_sigbus(int sig __attribute__((unused)), siginfo_t *si,
		      void *uc __attribute__((unused)))
{
	if (armed)
		siglongjmp(jump, 1);
	if (si->si_code != BUS_MCEERR_AR && si->si_code != BUS_MCEERR_AO)
		abort();
}

static unsigned char pattern(long off)
{
	return ((off / PG) * 131 + off * 7) | 1;
}

/* Is the byte at @off of a fresh shared mapping readable? */
static bool map_reads(int fd, long off)
{
	volatile unsigned char *p;
	volatile bool ok = false;

	p = mmap(NULL, PREALLOC, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return false;
	if (!sigsetjmp(jump, 1)) {
		armed = 1;
		ok = p[off] == pattern(off);
	}
	armed = 0;
	munmap((void *)p, PREALLOC);
	return ok;
}

static void one_fs(const char *fs, const char *dir, const char *opts)
{
	unsigned char *buf = malloc(SIZE), page[PG];
	long blocks, bad = -1;
	unsigned char *p;
	struct stat st;
	char path[128];
	int fd;

	what = opts;
	mkdir(dir, 0755);
	MUST(mount("none", dir, fs, 0, opts));
	snprintf(path, sizeof(path), "%s/f", dir);
	fd = MUST(open(path, O_RDWR | O_CREAT, 0644));
	for (long i = 0; i < SIZE; i++)
		buf[i] = pattern(i);
	CHECK(pwrite(fd, buf, SIZE, 0) == SIZE, "%s %s: write", fs, what);
	MUST(fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, PREALLOC));
	MUST(fstat(fd, &st));
	blocks = st.st_blocks;

	p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "%s %s: mmap", fs, what);
	if (p == MAP_FAILED)
		goto out;
	(void)*(volatile unsigned char *)(p + BAD);
	CHECK(madvise(p + BAD, PG, MADV_HWPOISON) == 0,
	      "%s %s: MADV_HWPOISON: %s", fs, what, strerror(errno));
	munmap(p, SIZE);

	errno = 0;
	CHECK(pread(fd, page, PG, BAD) < 0 && errno == EIO,
	      "%s %s: read of the poisoned page: %s", fs, what,
	      strerror(errno));
	CHECK(pread(fd, page, 100, BAD + 1000) < 0 && errno == EIO,
	      "%s %s: read inside the poisoned page: %s", fs, what,
	      strerror(errno));
	errno = 0;
	CHECK(pwrite(fd, page, 10, BAD + 20) < 0 && errno == EIO,
	      "%s %s: write to the poisoned page: %s", fs, what,
	      strerror(errno));
	CHECK(!map_reads(fd, BAD), "%s %s: poisoned page mapped", fs, what);
	CHECK(map_reads(fd, BAD + PG), "%s %s: next page not mapped", fs,
	      what);
	CHECK(map_reads(fd, BAD - PG), "%s %s: page before not mapped", fs,
	      what);

	/* Everything else reads back, page by page. */
	for (long off = 0; off < SIZE; off += PG) {
		if (off == BAD)
			continue;
		if (pread(fd, page, PG, off) != PG ||
		    memcmp(page, buf + off, PG)) {
			bad = off;
			break;
		}
	}
	CHECK(bad < 0, "%s %s: page at %ld lost", fs, what, bad);
	/* Nothing dropped: the preallocation past EOF included. */
	MUST(fstat(fd, &st));
	CHECK(st.st_blocks == blocks, "%s %s: %ld KiB held, was %ld KiB", fs,
	      what, (long)st.st_blocks / 2, blocks / 2);
	CHECK(pwrite(fd, buf, PG, SIZE + 8 * PG) == PG,
	      "%s %s: write into the preallocation: %s", fs, what,
	      strerror(errno));

	/* Punching the page out lets the range be used again. */
	MUST(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, BAD,
		       PG));
	CHECK(pwrite(fd, buf + BAD, PG, BAD) == PG &&
	      pread(fd, page, PG, BAD) == PG && !memcmp(page, buf + BAD, PG),
	      "%s %s: page rewritten after punch", fs, what);
out:
	close(fd);
	MUST(unlink(path));
	MUST(umount(dir));
	free(buf);
}

int main(void)
{
	static const char * const fss[] = { "hugetmpfs", "tmpfs" };
	static const char * const opts[] = { "huge=never", "huge=always" };
	struct sigaction sa = {
		.sa_sigaction = on_sigbus,
		.sa_flags = SA_SIGINFO,
	};

	if (access("/proc/sys/vm/memory_failure_recovery", F_OK)) {
		printf("no CONFIG_MEMORY_FAILURE in this kernel\n");
		return 77;
	}
	sigaction(SIGBUS, &sa, NULL);
	for (int f = 0; f < 2; f++)
		for (int o = 0; o < 2; o++) {
			tap_fs = fss[f];
			one_fs(fss[f], f ? "/mnt/t-hwpoison-tmp" :
					   "/mnt/t-hwpoison-ht", opts[o]);
		}
	return tap_done("t-hwpoison");
}
