// SPDX-License-Identifier: GPL-2.0
/*
 * fsx: a randomized file consistency tester. Random writes, reads, shared
 * mmap reads and writes, truncates up and down, fallocate modes and
 * copy_file_range and collapses on a few files, every result checked
 * against an in-memory model. On hugetmpfs, collapses use
 * HUGETMPFS_IOC_COLLAPSE (MADV_COLLAPSE refuses its files), and every
 * fallocate mode must work; elsewhere MADV_COLLAPSE, and a mode the file
 * system lacks (EOPNOTSUPP) is left out. The last line says how many
 * ranges were collapsed. Offsets cluster around 2 MiB multiples, where
 * huge folios begin and end. Seeded and reproducible: on a mismatch it
 * prints the seed and the last operations, and exits 1. With -p, a second
 * process keeps memory under pressure meanwhile (anonymous memory touched
 * and freed, compaction, dropped caches); it changes timing, not the
 * sequence of operations. With -l, all but one operation in 16 move at
 * most that many KiB, so that long runs spend their time on operations
 * rather than on copying megabytes.
 *
 * usage: fsx [-s seed] [-n ops] [-m max_size_mb] [-f files] [-p pressure_mb]
 *            [-l max_len_kb] [dir]
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/hugetmpfs.h>

#include "tap.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define MB (1024L * 1024)
#define HUGE (2 * MB)
#define MAX_FILES 4
#define LOG_SIZE 32

struct file_model {
	int fd;
	long size;
	unsigned char *data;	/* max_size bytes; past size always zero */
};

static struct file_model files[MAX_FILES];
static int nfiles = 2;
static long max_size = 24 * MB;
static long max_len;		/* -l: most lengths at most this; 0: any */
static unsigned long long rng;
static unsigned char *buf;
static char oplog[LOG_SIZE][128];
static long opno;
static int can_punch = 1, can_zero = 1, can_alloc = 1;
static pid_t child;	/* the -p pressure process */
static int on_hugetmpfs;	/* else tmpfs, say */
static long collapse_tries, collapse_ranges;	/* for the last line */

static unsigned long long rnd(void)
{
	/* xorshift64*: fast, and the same sequence everywhere */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static long rnd_below(long n)
{
	return n > 0 ? (long)(rnd() % (unsigned long long)n) : 0;
}

/* An offset in [0, limit): half of them near a 2 MiB boundary */
static long rnd_offset(long limit)
{
	long off;

	if (limit <= 0)
		return 0;
	if (rnd() & 1) {
		off = rnd_below(limit / HUGE + 1) * HUGE + rnd_below(16384) - 8192;
		if (off >= 0 && off < limit)
			return off;
	}
	return rnd_below(limit);
}

/* A length: mostly small, sometimes up to a few huge pages */
static long rnd_len(void)
{
	long len;

	switch (rnd() % 4) {
	case 0:
		len = 1 + rnd_below(64);
		break;
	case 1:
		len = 1 + rnd_below(16384);
		break;
	case 2:
		len = 1 + rnd_below(HUGE);
		break;
	default:
		len = 1 + rnd_below(3 * HUGE);
		break;
	}
	if (max_len && len > max_len && rnd() % 16)
		len = 1 + rnd_below(max_len);
	return len;
}

/* A length from rnd_len() that does not run past @limit from @off */
static long rnd_len_within(long off, long limit)
{
	long len = rnd_len();

	return off + len > limit ? limit - off : len;
}

static void logop(const char *fmt, long a, long b, long c)
{
	snprintf(oplog[opno % LOG_SIZE], sizeof(oplog[0]), fmt, a, b, c);
	opno++;
}

static void fail(const char *what, int f, long off, int got, int want)
{
	fprintf(stderr, "FAIL op %ld: %s: file %d offset %ld: got 0x%02x, expected 0x%02x\n",
		opno, what, f, off, got, want);
	fprintf(stderr, "last operations (oldest first):\n");
	for (long i = opno > LOG_SIZE ? opno - LOG_SIZE : 0; i < opno; i++)
		fprintf(stderr, "  %6ld %s\n", i, oplog[i % LOG_SIZE]);
	if (child)
		kill(child, SIGKILL);
	exit(1);
}

static void compare(const char *what, int f, long off, const unsigned char *got,
		    long len)
{
	const unsigned char *want = files[f].data + off;

	if (!memcmp(got, want, len))
		return;
	for (long i = 0; i < len; i++)
		if (got[i] != want[i])
			fail(what, f, off + i, got[i], want[i]);
}

static void fill_random(unsigned char *p, long len)
{
	unsigned char v = rnd();

	for (long i = 0; i < len; i++)
		p[i] = v + i * 7 + (i >> 12);
}

static void set_size(int f, long size)
{
	struct file_model *m = &files[f];

	if (size < m->size)
		memset(m->data + size, 0, m->size - size);
	m->size = size;
}

static void op_write(int f)
{
	struct file_model *m = &files[f];
	long off = rnd_offset(max_size - 1);
	long len = rnd_len_within(off, max_size);

	logop("write  off %ld len %ld file %ld", off, len, f);
	fill_random(buf, len);
	if (pwrite(m->fd, buf, len, off) != len)
		fail("pwrite failed", f, off, errno, 0);
	memcpy(m->data + off, buf, len);
	if (off + len > m->size)
		m->size = off + len;
}

static void op_read(int f)
{
	struct file_model *m = &files[f];
	long off = rnd_offset(m->size + 4096), len = rnd_len(), want;
	ssize_t got;

	logop("read   off %ld len %ld file %ld", off, len, f);
	want = off >= m->size ? 0 : (off + len > m->size ? m->size - off : len);
	got = pread(m->fd, buf, len, off);
	if (got != want)
		fail("pread length", f, off, (int)got, (int)want);
	compare("pread", f, off, buf, got);
}

static void op_mapread(int f)
{
	struct file_model *m = &files[f];
	unsigned char *p;
	long off, len;

	if (!m->size)
		return;
	off = rnd_offset(m->size);
	len = rnd_len_within(off, m->size);
	logop("mapread off %ld len %ld file %ld", off, len, f);
	/* Map it all, so that huge folios can be PMD-mapped. */
	p = mmap(NULL, m->size, PROT_READ, MAP_SHARED, m->fd, 0);
	if (p == MAP_FAILED)
		fail("mmap read", f, 0, errno, 0);
	compare("mmap read", f, off, p + off, len);
	munmap(p, m->size);
}

static void op_mapwrite(int f)
{
	struct file_model *m = &files[f];
	long off, len;
	unsigned char *p;

	if (!m->size)
		return;
	off = rnd_offset(m->size);
	len = rnd_len_within(off, m->size);
	logop("mapwrite off %ld len %ld file %ld", off, len, f);
	p = mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
	if (p == MAP_FAILED)
		fail("mmap write", f, 0, errno, 0);
	fill_random(m->data + off, len);
	memcpy(p + off, m->data + off, len);
	if (rnd() & 1)
		msync(p, m->size, MS_SYNC);
	munmap(p, m->size);
}

static void op_truncate(int f)
{
	long size = rnd() & 1 ? rnd_offset(max_size) : rnd_below(files[f].size + 1);

	logop("truncate to %ld file %ld (%ld)", size, f, files[f].size);
	if (ftruncate(files[f].fd, size))
		fail("ftruncate", f, size, errno, 0);
	set_size(f, size);
}

static void op_fallocate(int f)
{
	struct file_model *m = &files[f];
	long off = rnd_offset(max_size - 1);
	long len = rnd_len_within(off, max_size);
	int which = rnd() % 4, mode;
	int *can;

	switch (which) {
	case 0:
		mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
		can = &can_punch;
		break;
	case 1:
		mode = FALLOC_FL_ZERO_RANGE | (rnd() & 1 ? FALLOC_FL_KEEP_SIZE : 0);
		can = &can_zero;
		break;
	case 2:
		mode = FALLOC_FL_KEEP_SIZE;
		can = &can_alloc;
		break;
	default:
		mode = 0;
		can = &can_alloc;
		break;
	}
	if (!*can)
		return;
	logop("fallocate mode %#lx off %ld len %ld", mode, off, len);
	if (fallocate(m->fd, mode, off, len)) {
		/* hugetmpfs supports every mode used here */
		if (errno == EOPNOTSUPP && !on_hugetmpfs) {
			*can = 0;	/* said once, at the first use */
			printf("fallocate mode %#x: not supported\n", mode);
			return;
		}
		fail("fallocate", f, off, errno, 0);
	}
	if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) {
		long end = off + len < m->size ? off + len : m->size;

		if (end > off)
			memset(m->data + off, 0, end - off);
	}
	if (!(mode & FALLOC_FL_KEEP_SIZE) && off + len > m->size)
		m->size = off + len;
}

static void op_copy(int f)
{
	int g = rnd_below(nfiles);
	struct file_model *src = &files[g], *dst = &files[f];
	loff_t in, out;
	long len, got;

	if (!src->size)
		return;
	in = rnd_offset(src->size);
	len = rnd_len_within(in, src->size);
	out = rnd_offset(max_size - len);
	/* Overlapping copies within one file are EINVAL: move the target. */
	if (f == g && out < in + len && in < out + len)
		out = in + len + rnd_below(4096) <= max_size - len ?
		      in + len + rnd_below(4096) : 0;
	if (f == g && out < in + len && in < out + len)
		return;
	logop("copy   in %ld out %ld len %ld", in, out, len);
	memcpy(buf, src->data + in, len);
	got = copy_file_range(src->fd, &in, dst->fd, &out, len, 0);
	if (got != len)
		fail("copy_file_range", f, out, (int)got, (int)len);
	memcpy(dst->data + out - len, buf, len);
	if (out > dst->size)
		dst->size = out;
}

/*
 * A collapse over part of the file: data must not change. On hugetmpfs,
 * HUGETMPFS_IOC_COLLAPSE (MADV_COLLAPSE refuses its files); elsewhere
 * MADV_COLLAPSE. Refused for want of memory or a busy page is fine.
 */
static void op_collapse(int f)
{
	struct file_model *m = &files[f];
	struct hugetmpfs_collapse c = {};
	long off, len;
	void *p;
	int r;

	if (m->size < HUGE)
		return;
	off = rnd_below(m->size / HUGE) * HUGE;
	len = (1 + rnd_below(2)) * HUGE;
	if (off + len > m->size)
		len = HUGE;
	logop("collapse off %ld len %ld file %ld", off, len, f);
	p = mmap(NULL, m->size, PROT_READ, MAP_SHARED, m->fd, 0);
	if (p == MAP_FAILED)
		fail("mmap for collapse", f, off, errno, 0);
	collapse_tries++;
	if (on_hugetmpfs) {
		c.offset = off;
		c.length = len;
		r = ioctl(m->fd, HUGETMPFS_IOC_COLLAPSE, &c);
		if (r < 0 && errno != EAGAIN && errno != ENOMEM)
			fail("HUGETMPFS_IOC_COLLAPSE", f, off, errno, 0);
		collapse_ranges += c.collapsed;
	} else {
		r = madvise((char *)p + off, len, MADV_COLLAPSE);
		/* EINVAL: the mapping's address is not 2 MiB aligned */
		if (r && errno != EAGAIN && errno != ENOMEM && errno != EINVAL)
			fail("madvise(MADV_COLLAPSE)", f, off, errno, 0);
		collapse_ranges += !r;
	}
	compare("read after collapse", f, off, (unsigned char *)p + off, len);
	munmap(p, m->size);
}

/* The second process of -p: memory pressure until killed. */
static void pressure(long mb)
{
	for (unsigned long round = 0;; round++) {
		char *p = mmap(NULL, mb * MB, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int fd;

		if (p != MAP_FAILED) {
			for (long i = 0; i < mb * MB; i += 4096)
				p[i] = i;
			munmap(p, mb * MB);
		}
		fd = open(round & 1 ? "/proc/sys/vm/compact_memory" :
				      "/proc/sys/vm/drop_caches", O_WRONLY);
		if (fd >= 0) {
			if (write(fd, round & 1 ? "1" : "3", 1) < 0)
				perror("pressure");
			close(fd);
		}
	}
}

static void verify_all(void)
{
	for (int f = 0; f < nfiles; f++) {
		struct stat st;
		long got = 0;
		ssize_t r;

		if (fstat(files[f].fd, &st))
			fail("fstat", f, 0, errno, 0);
		if (st.st_size != files[f].size)
			fail("file size", f, st.st_size, 0, 0);
		while (got < files[f].size &&
		       (r = pread(files[f].fd, buf, 4 * MB, got)) > 0) {
			compare("full read", f, got, buf, r);
			got += r;
		}
		if (got != files[f].size)
			fail("full read length", f, got, 0, 0);
	}
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	long nops = 2000, pressure_mb = 0;
	int opt;

	while ((opt = getopt(argc, argv, "s:n:m:f:p:l:")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			nops = atol(optarg);
			break;
		case 'm':
			max_size = atol(optarg) * MB;
			break;
		case 'f':
			nfiles = atoi(optarg);
			break;
		case 'p':
			pressure_mb = atol(optarg);
			break;
		case 'l':
			max_len = atol(optarg) * 1024;
			break;
		default:
			fprintf(stderr, "usage: fsx [-s seed] [-n ops] [-m max_mb] [-f files] [-p pressure_mb] [-l max_len_kb] [dir]\n");
			return 2;
		}
	}
	if (nfiles < 1 || nfiles > MAX_FILES || max_size < 4 * HUGE)
		return 2;
	if (optind < argc && chdir(argv[optind]))
		return 2;
	{
		struct statfs sfs;

		on_hugetmpfs = !statfs(".", &sfs) &&
			       sfs.f_type == HUGETMPFS_MAGIC;
	}
	rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	printf("fsx: seed %llu, %ld ops, %ld MiB, %d files, pressure %ld MiB, lengths %s%ld KiB\n",
	       seed, nops, max_size / MB, nfiles, pressure_mb,
	       max_len ? "mostly to " : "to ",
	       (max_len ? max_len : 3 * HUGE) / 1024);
	fflush(stdout);
	if (pressure_mb) {
		child = MUST(fork());
		if (!child) {
			/* Gone with us, however we end. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			pressure(pressure_mb);
		}
	}

	buf = malloc(4 * MB + 3 * HUGE);
	for (int f = 0; f < nfiles; f++) {
		char name[32];

		snprintf(name, sizeof(name), "fsx.%d", f);
		files[f].fd = MUST(open(name, O_RDWR | O_CREAT | O_TRUNC, 0644));
		files[f].data = calloc(max_size, 1);
	}

	for (long i = 0; i < nops; i++) {
		int f = rnd_below(nfiles);

		switch (rnd() % 10) {
		case 0: case 1: case 2:
			op_write(f);
			break;
		case 3: case 4:
			op_read(f);
			break;
		case 5:
			op_mapread(f);
			break;
		case 6:
			op_mapwrite(f);
			break;
		case 7:
			op_truncate(f);
			break;
		case 8:
			if (rnd() % 8)
				op_fallocate(f);
			else
				op_collapse(f);
			break;
		default:
			op_copy(f);
			break;
		}
		if (i % 500 == 499)
			verify_all();
	}
	verify_all();
	if (child) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	for (int f = 0; f < nfiles; f++) {
		char name[32];

		snprintf(name, sizeof(name), "fsx.%d", f);
		close(files[f].fd);
		unlink(name);
	}
	printf("fsx: seed %llu: %ld operations, all consistent; %ld ranges collapsed in %ld attempts (%s)\n",
	       seed, opno, collapse_ranges, collapse_tries,
	       on_hugetmpfs ? "HUGETMPFS_IOC_COLLAPSE" : "MADV_COLLAPSE");
	return 0;
}
