// SPDX-License-Identifier: GPL-2.0
/*
 * Huge folios follow huge= (remounted between cases) and the module-wide
 * override, and a 2 MiB-aligned shared mapping of them is PMD-mapped: the
 * mount's sysfs counters, /proc/self/smaps (ShmemPmdMapped) and
 * /proc/meminfo (ShmemHugePages) must agree. Data stays byte-exact
 * throughout. Runs in a fresh mount (cwd).
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

#define MB (1024L * 1024)
#define HUGE (2 * MB)
#define SIZE (64 * MB)	/* 32 huge folios: every PMD path, a quarter of the copying */

static char sysdir[128];

static long stat_read(const char *name)
{
	return mount_stat(sysdir, name);
}

static void set_override(const char *val)
{
	FILE *f = fopen("/sys/module/hugetmpfs/parameters/huge_override", "w");

	CHECK(f && fputs(val, f) >= 0 && fclose(f) == 0,
	      "set huge_override=%s", val);
}

static void remount(const char *huge)
{
	char opts[64];

	snprintf(opts, sizeof(opts), "huge=%s", huge);
	MUST(mount("none", ".", NULL, MS_REMOUNT, opts));
}

/* The byte written at @off by the cases that write a pattern */
static unsigned char pattern(long off)
{
	return (off * 2654435761u) >> 11;
}

/* Fill @buf with the @len bytes of pattern() that belong at @off. */
static void fill_pattern(unsigned char *buf, long off, long len)
{
	for (long i = 0; i < len; i++)
		buf[i] = pattern(off + i);
}

/*
 * Read back the file's first @len bytes: each must be pattern() (or @fill,
 * when not negative) in [@from, @to) and zero elsewhere. Returns the offset
 * of the first that is not, a short read's offset included, or -1.
 */
static long first_difference(int fd, long len, long from, long to, int fill)
{
	unsigned char *rd = malloc(4 * MB);
	long bad = -1;

	for (long off = 0; off < len && bad < 0; off += 4 * MB) {
		long n = len - off < 4 * MB ? len - off : 4 * MB;

		if (pread(fd, rd, n, off) != n) {
			bad = off;
			break;
		}
		for (long i = 0; i < n && bad < 0; i++) {
			long pos = off + i;
			int want = pos < from || pos >= to ? 0 :
				   fill < 0 ? pattern(pos) : fill;

			if (rd[i] != want)
				bad = pos;
		}
	}
	free(rd);
	return bad;
}

/*
 * Make a size file, by write(2) or by faults on a mapping of the truncated
 * file; touch it all through a shared mapping; check data, counters, smaps.
 */
static void one_case(const char *huge, int by_write, int advice,
		     long expect_huge, long size)
{
	long before = stat_read("huge_alloc");
	long thp_kb = meminfo_kb("ShmemHugePages");
	unsigned char *buf = malloc(4 * MB), *p;
	long pmd_kb, bad = -1, made;
	int fd;

	/* The cases below expect a huge folio per 2 MiB of the file, or none. */
	expect_huge = expect_huge ? size / HUGE : 0;

	remount(huge);
	fd = MUST(open("f", O_RDWR | O_CREAT | O_TRUNC, 0644));
	if (by_write) {
		for (long off = 0; off < size; off += 4 * MB) {
			fill_pattern(buf, off, 4 * MB);
			CHECK(write(fd, buf, 4 * MB) == 4 * MB, "write");
		}
	} else {
		MUST(ftruncate(fd, size));
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "mmap");
	if (p == MAP_FAILED)
		goto out;
	CHECK(((uintptr_t)p & (HUGE - 1)) == 0,
	      "mapping of a huge-capable file is 2 MiB aligned (%p)", p);
	if (advice)
		MUST(madvise(p, size, advice));
	for (long off = 0; off < size; off += 4096) {
		if (!by_write)
			p[off] = pattern(off);
		if (p[off] != pattern(off) && bad < 0)
			bad = off;
	}
	CHECK(bad < 0, "huge=%s: data differs at %ld", huge, bad);

	made = stat_read("huge_alloc") - before;
	pmd_kb = pmd_mapped_kb(p);
	printf("huge=%s %s advice=%d: %ld huge folios, %ld kB PMD-mapped\n",
	       huge, by_write ? "write" : "fault", advice, made, pmd_kb);
	CHECK(made == expect_huge, "huge=%s: %ld huge folios, expected %ld",
	      huge, made, expect_huge);
	if (expect_huge)
		CHECK(pmd_kb == expect_huge * 2048,
		      "huge=%s: %ld kB PMD-mapped, expected %ld", huge, pmd_kb,
		      expect_huge * 2048);
	else
		CHECK(pmd_kb == 0, "huge=%s: %ld kB PMD-mapped", huge, pmd_kb);
	if (expect_huge) {
		/* mlock keeps the PMD mappings (and the folios) as they are. */
		CHECK(mlock(p, size) == 0, "huge=%s: mlock: %s", huge,
		      strerror(errno));
		CHECK(pmd_mapped_kb(p) == expect_huge * 2048,
		      "huge=%s: %ld kB PMD-mapped after mlock", huge,
		      pmd_mapped_kb(p));
		CHECK(munlock(p, size) == 0, "huge=%s: munlock", huge);
	}
	CHECK(stat_read("huge_folios") == expect_huge,
	      "huge=%s: sysfs huge_folios %ld, expected %ld", huge,
	      stat_read("huge_folios"), expect_huge);
	CHECK(stat_read("pmd_mapped") == expect_huge,
	      "huge=%s: sysfs pmd_mapped %ld, expected %ld", huge,
	      stat_read("pmd_mapped"), expect_huge);
	CHECK(meminfo_kb("ShmemHugePages") - thp_kb == expect_huge * 2048,
	      "huge=%s: ShmemHugePages grew by %ld kB, expected %ld", huge,
	      meminfo_kb("ShmemHugePages") - thp_kb, expect_huge * 2048);
	munmap(p, size);
	CHECK(stat_read("pmd_mapped") == 0, "huge=%s: pmd_mapped %ld unmapped",
	      huge, stat_read("pmd_mapped"));
out:
	close(fd);
	MUST(unlink("f"));
	CHECK(meminfo_kb("ShmemHugePages") == thp_kb,
	      "huge=%s: ShmemHugePages %ld kB after unlink, %ld before", huge,
	      meminfo_kb("ShmemHugePages"), thp_kb);
	free(buf);
}

/*
 * Mappings that cannot take a PMD still work, with PTEs: an offset that is
 * not 2 MiB-aligned, a VMA smaller than 2 MiB, and MAP_PRIVATE copies.
 */
static void pte_cases(void)
{
	const long size = 8 * MB;
	unsigned char *buf = malloc(size), *p;
	long bad = -1;
	int fd;

	remount("always");
	fill_pattern(buf, 0, size);
	fd = MUST(open("pte", O_RDWR | O_CREAT | O_TRUNC, 0644));
	CHECK(write(fd, buf, size) == size, "write");

	/*
	 * At offset 4 KiB, thp_get_unmapped_area() still places the mapping so
	 * that the huge folio wholly inside it, [2M, 4M), gets a PMD...
	 */
	p = mmap(NULL, 4 * MB, PROT_READ, MAP_SHARED, fd, 4096);
	CHECK(p != MAP_FAILED, "mmap at offset 4096");
	for (long i = 0; p != MAP_FAILED && i < 4 * MB; i++)
		if (p[i] != pattern(4096 + i) && bad < 0)
			bad = i;
	CHECK(bad < 0, "offset mapping differs at %ld", bad);
	CHECK(p == MAP_FAILED || pmd_mapped_kb(p) == 2048,
	      "offset mapping: %ld kB PMD-mapped, expected 2048",
	      p == MAP_FAILED ? -1 : pmd_mapped_kb(p));
	munmap(p, 4 * MB);

	/* ... but placed where address and offset disagree, PTEs only. */
	p = mmap(NULL, 8 * MB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED, "reserve address space");
	if (p != MAP_FAILED) {
		unsigned char *q = (unsigned char *)
			(((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1));

		q = mmap(q, 4 * MB, PROT_READ, MAP_SHARED | MAP_FIXED, fd,
			 4096);
		CHECK(q != MAP_FAILED, "mmap misaligned: %s", strerror(errno));
		for (long i = 0; q != MAP_FAILED && i < 4 * MB; i++)
			if (q[i] != pattern(4096 + i) && bad < 0)
				bad = i;
		CHECK(bad < 0, "misaligned mapping differs at %ld", bad);
		CHECK(q == MAP_FAILED || pmd_mapped_kb(q) == 0,
		      "misaligned mapping PMD-mapped");
		munmap(p, 8 * MB);
	}

	p = mmap(NULL, MB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 2 * MB);
	CHECK(p != MAP_FAILED, "mmap 1 MiB");
	if (p != MAP_FAILED) {
		CHECK(p[MB - 1] == pattern(3 * MB - 1), "1 MiB mapping data");
		p[0] = ~pattern(2 * MB);
		CHECK(pmd_mapped_kb(p) == 0, "1 MiB mapping PMD-mapped");
		CHECK(pread(fd, buf, 1, 2 * MB) == 1 &&
		      buf[0] == (unsigned char)~pattern(2 * MB),
		      "write through a 1 MiB mapping reaches the file");
		munmap(p, MB);
	}

	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(p != MAP_FAILED, "mmap private");
	if (p != MAP_FAILED) {
		p[5 * MB] = ~pattern(5 * MB);
		CHECK(p[5 * MB + 1] == pattern(5 * MB + 1), "private data");
		CHECK(pread(fd, buf, 1, 5 * MB) == 1 &&
		      buf[0] == pattern(5 * MB),
		      "MAP_PRIVATE write stays out of the file");
		munmap(p, size);
	}
	close(fd);
	MUST(unlink("pte"));
	free(buf);
}

/*
 * Huge folios wanted (made, or wanted but no huge page was free): counting
 * both keeps the policy checks below independent of fragmentation.
 */
static long huge_wanted(void)
{
	return stat_read("huge_alloc") + stat_read("huge_fallback_nomem");
}

/*
 * within_size: a file written sequentially in writes of at least 1 MiB gets
 * huge folios (each 2 MiB range is entered by an appending write over half
 * of it); small files and small appending writes do not.
 */
static void within_size_writes(void)
{
	static const struct {
		long block, size, huge;
	} cases[] = {
		{ MB, 8 * MB, 4 },		/* streaming in 1 MiB writes */
		{ 4 * MB, 8 * MB, 4 },		/* larger writes */
		{ MB + 4096, MB + 4096, 1 },	/* one write over half */
		{ 4096, 4096, 0 },		/* a small file stays small */
		{ 512 * 1024, 4 * MB, 0 },	/* under half: small pages */
	};
	unsigned char *buf = malloc(4 * MB);

	remount("within_size");
	for (unsigned int c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		long before = huge_wanted(), got, bad;
		int fd = MUST(open("ws", O_RDWR | O_CREAT | O_TRUNC, 0644));

		for (long off = 0; off < cases[c].size; off += cases[c].block) {
			long n = cases[c].block;

			fill_pattern(buf, off, n);
			CHECK(write(fd, buf, n) == n, "write %ld at %ld", n, off);
		}
		got = huge_wanted() - before;
		printf("within_size, %ld-byte writes to %ld bytes: %ld huge\n",
		       cases[c].block, cases[c].size, got);
		CHECK(got == cases[c].huge,
		      "%ld-byte writes to %ld bytes: %ld huge folios, expected %ld",
		      cases[c].block, cases[c].size, got, cases[c].huge);
		bad = first_difference(fd, cases[c].size, 0, cases[c].size, -1);
		CHECK(bad < 0, "within_size write data differs at %ld", bad);
		close(fd);
		MUST(unlink("ws"));
	}
	free(buf);
}

/*
 * within_size: a write into an empty file that begins past the start of a
 * 2 MiB range leaves a hole before it, so it gets small pages however far
 * it reaches, as on tmpfs: fstests' sparse-file probe (50 KiB at 1.6 MiB)
 * must not find 2 MiB allocated. Mirrored on tmpfs.
 */
static void sparse_write_body(void)
{
	static const long cases[][2] = {	/* offset, length */
		{ 1638400, 51200 },		/* fstests' _require_sparse_files */
		{ MB / 2, MB + MB / 4 },	/* ends past half the range */
	};
	unsigned char *buf = malloc(2 * MB);

	for (unsigned int c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		long off = cases[c][0], len = cases[c][1], bad;
		long want = ((off + len + 4095) & ~4095L) - (off & ~4095L);
		int fd = MUST(open("sparse", O_RDWR | O_CREAT | O_TRUNC, 0644));
		struct stat st;

		fill_pattern(buf, off, len);
		CHECK(pwrite(fd, buf, len, off) == len, "write %ld at %ld",
		      len, off);
		MUST(fstat(fd, &st));
		CHECK(st.st_blocks * 512 == want,
		      "%ld bytes at %ld: %lld bytes allocated, expected %ld",
		      len, off, (long long)st.st_blocks * 512, want);
		bad = first_difference(fd, off + len, off, off + len, -1);
		CHECK(bad < 0, "%ld bytes at %ld: byte %ld differs", len, off,
		      bad);
		close(fd);
		MUST(unlink("sparse"));
	}
	free(buf);
}

static void sparse_write(void)
{
	remount("within_size");
	on_hugetmpfs_and_tmpfs(sparse_write_body, "huge=within_size");
}

/*
 * A write(2) that faults part way into a new huge folio: what it did not
 * copy reads back as zeroes, never as the folio's old memory (new folios
 * for writes are not zeroed ahead of the copy). Mirrored on tmpfs.
 */
static void short_write_body(void)
{
	unsigned char *buf;
	const long offs[] = { 0, MB, HUGE - 4096 };

	buf = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(buf != MAP_FAILED, "mmap buffer");
	if (buf == MAP_FAILED)
		return;
	memset(buf, 0xa5, 4096);
	MUST(munmap(buf + 4096, 4096));	/* the copy faults after 4 KiB */
	for (unsigned int c = 0; c < sizeof(offs) / sizeof(offs[0]); c++) {
		int fd = MUST(open("short", O_RDWR | O_CREAT | O_TRUNC, 0644));
		long n = pwrite(fd, buf, 2 * 4096, offs[c]), bad;

		CHECK(n == 4096, "short write at %ld: %ld bytes", offs[c], n);
		MUST(ftruncate(fd, HUGE));
		bad = first_difference(fd, HUGE, offs[c], offs[c] + 4096, 0xa5);
		CHECK(bad < 0, "short write at %ld: byte %ld differs", offs[c],
		      bad);
		close(fd);
		MUST(unlink("short"));
	}
	munmap(buf, 4096);
}

static void short_write(void)
{
	remount("always");
	on_hugetmpfs_and_tmpfs(short_write_body, "huge=always");
}

int main(void)
{
	mount_sysdir(".", sysdir, sizeof(sysdir));
	CHECK(stat_read("huge_alloc") == 0, "a new mount has no huge folios");

	/* PMD-mapped all through, with both huge defaults, both ways. */
	one_case("always", 0, 0, 1, SIZE);
	one_case("within_size", 1, 0, 1, SIZE);
	one_case("always", 1, 0, 1, SIZE);
	one_case("within_size", 0, 0, 1, SIZE);
	one_case("never", 1, 0, 0, SIZE);
	one_case("never", 0, MADV_HUGEPAGE, 0, SIZE);
	one_case("advise", 0, 0, 0, SIZE);
	one_case("advise", 0, MADV_HUGEPAGE, 1, SIZE);
	one_case("always", 0, MADV_NOHUGEPAGE, 0, SIZE);

	set_override("deny");
	one_case("always", 1, 0, 0, SIZE);
	set_override("force");
	one_case("never", 0, 0, 1, SIZE);
	set_override("none");
	one_case("never", 0, 0, 0, SIZE);

	pte_cases();
	within_size_writes();
	sparse_write();
	short_write();

	return tap_done("t-huge");
}
