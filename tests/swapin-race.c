// SPDX-License-Identifier: GPL-2.0
/*
 * swapin-race: several processes read(2) the same file page by page, in
 * the same order, each time after memory.reclaim has pushed it out to swap
 * (t-swapin-race.sh). Readers that meet a page in swap race to bring it
 * back; the one that arrives second must read the data, not zeroes: a page
 * coming back from swap is not a hole.
 *
 * With -T, truncation instead: from the last page down, FILE is cut 100
 * bytes into a page while the readers read that page (swapping it in),
 * then grown by the rest of the page: its first 100 bytes must be as
 * written and the rest zeroes (truncate zeroes the tail of the new last
 * page, and must not take a page coming back from swap for a hole).
 * FILE is left empty.
 *
 * usage: swapin-race [-T] -p readers -r rounds CGROUP FILE EXPECTED
 *   CGROUP: the memory cgroup FILE is charged to; EXPECTED: what FILE holds
 * Prints the pages read wrong; exits 0 if none, 1 if any, 3 if too few
 * rounds could be raced (less than a quarter of the file went to swap
 * before them: with -T, before the one round; else before a third of
 * them), 2 on an error.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tap.h"

#define PAGE 4096L

/* One reader: every page of @fd in order; returns how many were wrong. */
static long read_all(int fd, const char *want, long size, int go)
{
	char buf[PAGE], c;
	long off, bad = 0, zero = 0;

	/* All readers start together, so that they meet on the same pages. */
	if (read(go, &c, 1) != 1)
		exit(2);
	for (off = 0; off < size; off += PAGE) {
		ssize_t n = pread(fd, buf, PAGE, off);

		if (n != PAGE) {
			fprintf(stderr, "pread at %ld: %zd: %s\n", off, n,
				strerror(errno));
			exit(2);
		}
		if (memcmp(buf, want + off, PAGE)) {
			static const char zeroes[PAGE];

			if (!memcmp(buf, zeroes, PAGE))
				zero++;
			if (bad++ < 5)
				fprintf(stderr, "pid %d: page %ld read wrong%s\n",
					getpid(), off / PAGE,
					zero ? " (zeroes)" : "");
		}
	}
	if (bad)
		fprintf(stderr, "pid %d: %ld pages read wrong, %ld of them zeroes\n",
			getpid(), bad, zero);
	return bad;
}

/* memory.reclaim of @cg for @val bytes; returns memory.swap.current. */
static long reclaim(const char *cg, const char *val)
{
	char path[512];
	long swapped;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/memory.reclaim", cg);
	fd = open(path, O_WRONLY);
	if (fd < 0 || (write(fd, val, strlen(val)) < 0 && errno != EAGAIN)) {
		perror(path);
		exit(2);
	}
	close(fd);
	snprintf(path, sizeof(path), "%s/memory.swap.current", cg);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &swapped) != 1)
		exit(2);
	fclose(f);
	return swapped;
}

/*
 * -T: cut FILE page by page from the end while @readers read the page being
 * cut; returns how many pages were wrong after it.
 */
static long truncate_race(int fd, const char *want, long size, int readers)
{
	volatile long *cur = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	static const char zeroes[PAGE];
	char buf[PAGE];
	long n, bad = 0;
	int i, status;

	if (cur == MAP_FAILED)
		exit(2);
	*cur = size / PAGE - 1;
	for (i = 0; i < readers; i++) {
		if (MUST(fork()) == 0) {
			long page;

			while ((page = *cur) >= 0)
				if (pread(fd, buf, PAGE, page * PAGE) < 0)
					exit(2);
			exit(0);
		}
	}
	for (n = size / PAGE - 1; n >= 0; n--) {
		volatile long spin;

		*cur = n;
		/*
		 * Cut while a reader's swap-in of the page is under way: at
		 * a different point of it each time.
		 */
		for (spin = (n * 7919 % 64) * 64; spin > 0; spin--)
			;
		MUST(ftruncate(fd, n * PAGE + 100));
		MUST(ftruncate(fd, (n + 1) * PAGE));
		if (pread(fd, buf, PAGE, n * PAGE) != PAGE)
			exit(2);
		if (memcmp(buf, want + n * PAGE, 100) ||
		    memcmp(buf + 100, zeroes, PAGE - 100)) {
			if (bad++ < 5)
				fprintf(stderr, "page %ld: %s wrong after the cut\n",
					n, memcmp(buf, want + n * PAGE, 100) ?
					"the head" : "the tail");
		}
		MUST(ftruncate(fd, n * PAGE));
	}
	*cur = -1;
	for (i = 0; i < readers; i++) {
		MUST(wait(&status));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			exit(2);
	}
	munmap((void *)cur, PAGE);
	return bad;
}

int main(int argc, char **argv)
{
	int readers = 4, rounds = 4, opt, round, fd, efd, i, cut = 0, raced = 0;
	long size, swapped_total = 0, wrong = 0;
	char val[32];
	const char *want;
	struct stat st;

	while ((opt = getopt(argc, argv, "Tp:r:")) != -1) {
		if (opt == 'T')
			cut = 1;
		else if (opt == 'p')
			readers = atoi(optarg);
		else if (opt == 'r')
			rounds = atoi(optarg);
		else
			return 2;
	}
	if (argc - optind != 3 || readers < 2 || rounds < 1)
		return 2;
	fd = MUST(open(argv[optind + 1], O_RDONLY));
	efd = MUST(open(argv[optind + 2], O_RDONLY));
	MUST(fstat(fd, &st));
	close(fd);	/* each round opens it anew */
	size = st.st_size & ~(PAGE - 1);
	want = (const char *)MUST(mmap(NULL, size, PROT_READ, MAP_PRIVATE, efd, 0));
	snprintf(val, sizeof(val), "%ld", 4 * size);

	for (round = 0; round < rounds; round++) {
		int go[2], status;
		long swapped;

		/*
		 * Pages just read are active: it may take memory.reclaim a
		 * few passes (each says EAGAIN if it fell short), and now and
		 * then it falls short for a while: such a round is not raced
		 * (a run must race most of its rounds).
		 */
		for (i = 0; i < 64; i++) {
			swapped = reclaim(argv[optind], val);
			if (swapped >= size * 3 / 4)
				break;
			if (i >= 8)
				usleep(100000);
		}
		printf("round %d: %ld KiB in swap\n", round, swapped >> 10);
		fflush(stdout);
		if (swapped < size / 4) {
			printf("round %d: less than a quarter of the file in swap: not raced\n",
			       round);
			continue;
		}
		raced++;
		swapped_total += swapped;

		if (cut) {
			long bad;

			fd = MUST(open(argv[optind + 1], O_RDWR));
			bad = truncate_race(fd, want, size, readers);
			printf("round %d: %ld pages wrong after the cut\n", round, bad);
			wrong += bad;
			close(fd);
			break;	/* FILE is empty now */
		}
		fd = MUST(open(argv[optind + 1], O_RDONLY));
		MUST(pipe(go));
		for (i = 0; i < readers; i++) {
			if (MUST(fork()) == 0) {
				close(go[1]);
				exit(read_all(fd, want, size, go[0]) ? 1 : 0);
			}
		}
		close(go[0]);
		for (i = 0; i < readers; i++)
			MUST(write(go[1], "g", 1));
		close(go[1]);
		for (i = 0; i < readers; i++) {
			MUST(wait(&status));
			if (!WIFEXITED(status) || WEXITSTATUS(status) == 2)
				return 2;
			wrong += WEXITSTATUS(status);
		}
		close(fd);
	}
	printf("%s, %d readers, %d rounds raced: %ld KiB in swap in all, %ld %s\n",
	       cut ? "cut" : "read", readers, raced, swapped_total >> 10,
	       wrong, cut ? "pages wrong" : "readers read pages wrong");
	if (wrong)
		return 1;
	/* -T stops after its first raced round; else most must be raced. */
	return raced >= (cut ? 1 : rounds - rounds / 3) ? 0 : 3;
}
