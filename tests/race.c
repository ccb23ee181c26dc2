// SPDX-License-Identifier: GPL-2.0
/*
 * race: several processes work on one file and a few others while the
 * kernel's background mechanisms work on the same folios (t-race.sh and
 * soak-race.sh run those). Each worker owns a slice of the shared file (two
 * 2 MiB ranges, mapped shared for the whole run) and a file of its own; it
 * writes, writes through its mapping, reads both ways, punches, fallocates
 * and zeroes in its slice, and truncates, writes and fallocates its own
 * file, checking every read against a model of what it wrote. The slices
 * do not overlap, so the outcome is deterministic whatever the timing: at
 * the end every byte of every file must match its worker's model.
 *
 * usage: race [-w workers] [-n ops] [-f stopfile] [-s seed] [-t seconds] DIR
 *   -n ops per worker (default 2000), or with -t, as many as fit in that
 *   many seconds (make soak). With -f, each worker goes on after its ops
 *   until STOPFILE exists: the caller stops the workers once every
 *   background mechanism has acted, whatever the machine's speed.
 * Exits 0 if all is consistent, 1 on a mismatch (it says where), 2 on a
 * usage or system error.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <linux/hugetmpfs.h>

#include "tap.h"

#define MB (1024L * 1024)
#define HUGE (2 * MB)
#define SLICE (2 * HUGE)
#define OWN_MAX (3 * HUGE)
#define MAX_WORKERS 16

static unsigned long long rng;
static int worker;
static long opno;
static const char *stop_file;	/* -f */
static int can_zero;	/* FALLOC_FL_ZERO_RANGE: hugetmpfs has it */

static unsigned long long rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static long rnd_below(long n)
{
	return n > 0 ? (long)(rnd() % n) : 0;
}

/* An offset in [0, @size), near a 2 MiB boundary half the time */
static long rnd_off(long size)
{
	long off;

	if (rnd() & 1)
		return rnd_below(size);
	off = rnd_below(size / HUGE + 1) * HUGE + rnd_below(2 * 65536) - 65536;
	return off < 0 ? 0 : off >= size ? size - 1 : off;
}

/* A length from @off to at most @end, mostly short */
static long rnd_len(long off, long end)
{
	long max = end - off;

	if (max <= 0)
		return 0;
	if (rnd() % 8)
		max = max < 65536 ? max : 65536;
	return 1 + rnd_below(max);
}

static void die(const char *what, long off, long got, long want)
{
	fprintf(stderr, "race: worker %d op %ld: %s at %ld: %ld, not %ld\n",
		worker, opno, what, off, got, want);
	exit(1);
}

static void fill(unsigned char *p, long len)
{
	unsigned long long v = rnd();

	for (long i = 0; i < len; i++) {
		if (!(i & 7))
			v = v * 6364136223846793005ULL + 1442695040888963407ULL;
		p[i] = v >> (8 * (i & 7));
	}
}

static void compare(const char *what, long base, const unsigned char *got,
		    const unsigned char *want, long len)
{
	for (long i = 0; i < len; i++)
		if (got[i] != want[i])
			die(what, base + i, got[i], want[i]);
}

static void check_read(int fd, long base, const unsigned char *model,
		       long off, long len, unsigned char *buf)
{
	long r = pread(fd, buf, len, base + off);

	if (r != len)
		die("pread length", base + off, r, len);
	compare("pread", base + off, buf, model + off, len);
}

/* Has this worker done enough? */
static int done(long nops, double until)
{
	struct timespec t;

	if (until) {
		if (opno & 63)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
		return t.tv_sec >= until;
	}
	return opno >= nops && (!stop_file || !access(stop_file, F_OK));
}

static void work(int shared, long base, int own, long nops, double until)
{
	static unsigned char slice[SLICE], mine[OWN_MAX], buf[OWN_MAX];
	unsigned char *map;
	long own_size = 0, off, len, end;
	int mode;

	map = mmap(NULL, SLICE, PROT_READ | PROT_WRITE, MAP_SHARED, shared,
		   base);
	if (map == MAP_FAILED)
		die("mmap", base, errno, 0);
	for (opno = 0; !done(nops, until); opno++) {
		off = rnd_off(SLICE);
		len = rnd_len(off, SLICE);
		switch (rnd() % 12) {
		case 0: case 1:
			fill(slice + off, len);
			if (pwrite(shared, slice + off, len, base + off) != len)
				die("pwrite", base + off, errno, 0);
			break;
		case 2:
			fill(slice + off, len);
			memcpy(map + off, slice + off, len);
			break;
		case 3:
			check_read(shared, base, slice, off, len, buf);
			break;
		case 4:
			compare("mapped read", base + off, map + off,
				slice + off, len);
			break;
		case 5:
			if (fallocate(shared, FALLOC_FL_PUNCH_HOLE |
				      FALLOC_FL_KEEP_SIZE, base + off, len))
				die("punch", base + off, errno, 0);
			memset(slice + off, 0, len);
			break;
		case 6:
			mode = can_zero && rnd() & 1 ? FALLOC_FL_ZERO_RANGE : 0;
			if (fallocate(shared, mode | FALLOC_FL_KEEP_SIZE,
				      base + off, len))
				die("fallocate", base + off, errno, mode);
			if (mode)
				memset(slice + off, 0, len);
			break;
		case 7: case 8:
			off = rnd_off(OWN_MAX);
			len = rnd_len(off, OWN_MAX);
			fill(mine + off, len);
			if (pwrite(own, mine + off, len, off) != len)
				die("own pwrite", off, errno, 0);
			if (off + len > own_size)
				own_size = off + len;
			break;
		case 9:
			end = rnd_off(OWN_MAX);
			if (ftruncate(own, end))
				die("own truncate", end, errno, 0);
			if (end < own_size)
				memset(mine + end, 0, own_size - end);
			own_size = end;
			break;
		case 10:
			off = rnd_off(OWN_MAX);
			len = rnd_len(off, OWN_MAX);
			if (fallocate(own, 0, off, len))
				die("own fallocate", off, errno, 0);
			if (off + len > own_size)
				own_size = off + len;
			break;
		default:
			len = own_size;
			if (pread(own, buf, len, 0) != len)
				die("own pread length", 0, errno, len);
			compare("own pread", 0, buf, mine, len);
			break;
		}
		if ((opno & 255) == 255) {
			check_read(shared, base, slice, 0, SLICE, buf);
			compare("mapped slice", base, map, slice, SLICE);
		}
	}
	check_read(shared, base, slice, 0, SLICE, buf);
	compare("mapped slice", base, map, slice, SLICE);
	if (lseek(own, 0, SEEK_END) != own_size)
		die("own size", 0, lseek(own, 0, SEEK_END), own_size);
	if (pread(own, buf, own_size, 0) != own_size)
		die("own final read", 0, errno, own_size);
	compare("own final read", 0, buf, mine, own_size);
	munmap(map, SLICE);
}

int main(int argc, char **argv)
{
	long nops = 2000, seconds = 0;
	unsigned long long seed = 1;
	int workers = 4, opt, shared, status, bad = 0;
	struct statfs sfs;
	double until = 0;
	pid_t pid[MAX_WORKERS];

	while ((opt = getopt(argc, argv, "w:n:f:s:t:")) != -1) {
		switch (opt) {
		case 'w':
			workers = atoi(optarg);
			break;
		case 'n':
			nops = atol(optarg);
			break;
		case 'f':
			stop_file = optarg;
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			seconds = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: race [-w workers] [-n ops] [-f stopfile] [-s seed] [-t seconds] DIR\n");
			return 2;
		}
	}
	if (optind != argc - 1 || workers < 1 || workers > MAX_WORKERS ||
	    chdir(argv[optind]))
		return 2;
	can_zero = !statfs(".", &sfs) && sfs.f_type == HUGETMPFS_MAGIC;
	if (seconds) {
		struct timespec t;

		clock_gettime(CLOCK_MONOTONIC, &t);
		until = t.tv_sec + seconds;
	}
	shared = MUST(open("shared", O_RDWR | O_CREAT | O_TRUNC, 0644));
	MUST(ftruncate(shared, workers * SLICE));
	printf("race: %d workers, %s %ld, seed %llu, %s\n", workers,
	       seconds ? "seconds" : "ops each", seconds ? seconds : nops,
	       seed, can_zero ? "hugetmpfs" : "not hugetmpfs");
	fflush(stdout);
	for (int w = 0; w < workers; w++) {
		pid[w] = MUST(fork());
		if (!pid[w]) {
			char name[32];
			int own;

			worker = w;
			rng = (seed * MAX_WORKERS + w) * 0x9E3779B97F4A7C15ULL + 1;
			snprintf(name, sizeof(name), "own.%d", w);
			own = MUST(open(name, O_RDWR | O_CREAT | O_TRUNC, 0644));
			work(shared, w * SLICE, own, nops, until);
			printf("race: worker %d: %ld operations, consistent\n",
			       w, opno);
			exit(0);
		}
	}
	for (int w = 0; w < workers; w++) {
		MUST(waitpid(pid[w], &status, 0));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	printf("race: %s\n", bad ? "INCONSISTENT" : "all consistent");
	return bad ? 1 : 0;
}
