// SPDX-License-Identifier: GPL-2.0
/*
 * A hole record whose range holds a large folio (not a huge one) must
 * neither be stuck nor miscount its holes (issue 37, defect 3).
 *
 * A huge folio holds data in pages 256-383 of its 512. Soft offline splits
 * it outside any punch; page 400, a hole, stays mapped while [0, 1 MiB) is
 * punched, so the record keeps that one hole in memory. A 64 KiB write at 0
 * then fills the emptied start with a 1 MiB large folio: 240 more hole
 * pages in memory (pages 16-255), which HUGETMPFS_IOC_STAT must count.
 * Once page 400 is unmapped, the shrinker (drop_caches) must free all 241
 * holes, the large folio's too, and every byte must read back as written.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <linux/hugetmpfs.h>

#include "tap.h"

#define KB 1024L
#define MB (1024 * KB)
#define PAGE 4096L

static unsigned char pattern(long off)
{
	return (off * 7 + off / 4093) & 0xff;
}

static void fill(unsigned char *buf, long off, long len)
{
	for (long i = 0; i < len; i++)
		buf[i] = pattern(off + i);
}

static struct hugetmpfs_stat stat_of(int fd)
{
	struct hugetmpfs_stat st = {};

	MUST(ioctl(fd, HUGETMPFS_IOC_STAT, &st));
	return st;
}

int main(void)
{
	static unsigned char buf[2 * MB], want[2 * MB];
	__u32 always = HUGETMPFS_HUGE_ALWAYS;
	struct hugetmpfs_stat st;
	unsigned char *map, *one;
	long bad = -1, i;
	int fd;

	fd = MUST(open("f", O_CREAT | O_RDWR | O_TRUNC, 0644));
	MUST(ioctl(fd, HUGETMPFS_IOC_SET_HUGE, &always));
	MUST(ftruncate(fd, 2 * MB));
	fill(buf, MB, 512 * KB);
	MUST(pwrite(fd, buf, 512 * KB, MB));
	st = stat_of(fd);
	CHECK(st.huge_folios == 1 && st.hole_pages == 384,
	      "one huge folio, 384 holes: %llu, %llu",
	      (unsigned long long)st.huge_folios,
	      (unsigned long long)st.hole_pages);

	/* Split outside a punch: soft offline of a data page */
	map = mmap(NULL, 2 * MB, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED, "mmap: %s", strerror(errno));
	MUST(madvise(map + MB, PAGE, 101));	/* MADV_SOFT_OFFLINE */
	munmap(map, 2 * MB);
	st = stat_of(fd);
	CHECK(st.huge_folios == 0, "soft offline split it (%llu huge)",
	      (unsigned long long)st.huge_folios);

	/* Punch the empty start while hole page 400 is mapped */
	one = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 400 * PAGE);
	CHECK(one != MAP_FAILED && one[0] == 0, "page 400 mapped, a hole");
	MUST(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, MB));
	st = stat_of(fd);
	CHECK(st.hole_pages == 1, "after the punch, 1 hole in memory: %llu",
	      (unsigned long long)st.hole_pages);

	/* A write into the emptied start: a 1 MiB large folio */
	fill(buf, 0, 64 * KB);
	MUST(pwrite(fd, buf, 64 * KB, 0));
	st = stat_of(fd);
	CHECK(st.large_folios == 1 && st.large_pages == 256,
	      "a 1 MiB large folio at 0: %llu folios, %llu pages",
	      (unsigned long long)st.large_folios,
	      (unsigned long long)st.large_pages);
	CHECK(st.hole_pages == 241, "241 holes in memory: %llu",
	      (unsigned long long)st.hole_pages);

	/* Nothing mapped: the shrinker frees every hole */
	munmap(one, PAGE);
	for (i = 0; i < 3; i++) {
		int dc = MUST(open("/proc/sys/vm/drop_caches", O_WRONLY));

		MUST(write(dc, "2", 1));
		close(dc);
	}
	st = stat_of(fd);
	CHECK(st.hole_pages == 0, "no hole left: %llu",
	      (unsigned long long)st.hole_pages);
	CHECK(st.large_folios == 0 && st.huge_folios == 0 &&
	      st.small_pages == 16 + 128,
	      "only the 144 data pages: %llu small, %llu large, %llu huge",
	      (unsigned long long)st.small_pages,
	      (unsigned long long)st.large_folios,
	      (unsigned long long)st.huge_folios);

	/* Every byte, from the generator */
	memset(want, 0, sizeof(want));
	fill(want, 0, 64 * KB);
	fill(want + MB, MB, 512 * KB);
	CHECK(pread(fd, buf, 2 * MB, 0) == 2 * MB, "read back");
	for (i = 0; i < 2 * MB && bad < 0; i++)
		if (buf[i] != want[i])
			bad = i;
	CHECK(bad < 0, "first wrong byte at %ld", bad);
	close(fd);
	unlink("f");
	return tap_done("t-holes-stuck");
}
