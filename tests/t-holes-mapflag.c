// SPDX-License-Identifier: GPL-2.0
/*
 * A hole record made while a file is first mapped shared and writable
 * must be flagged, or the hole shrinker frees what the mapping wrote into
 * its holes, unread (issue 37, defect 1).
 *
 * A writer thread makes a file's huge folio with one pwrite() while
 * failslab (task-filter, ignore-gfp-wait) fails its non-sleeping slab
 * allocations: storing the folio's hole record then always drops the
 * xarray lock to allocate a node. Meanwhile a second thread mmap()s the
 * file MAP_SHARED|PROT_WRITE for the first time, at a delay swept across
 * the writer's pwrite() so that some mmap()s land in that window. Once the
 * writer is done, the mapping writes into the folio's holes; after
 * munmap(), drop_caches runs the shrinker. Every byte written, by pwrite()
 * or through a mapping, must read back. On tmpfs the same, as reference.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#define MB (1024L * 1024)
#define NFILES 32
#define ROUNDS 8
#define FAILSLAB "/sys/kernel/debug/failslab/"

static const char mark[] = "written through a shared mapping";

struct race {
	int fd;
	double start, delay;	/* the mapper waits @delay after @start */
	double took;		/* the writer's pwrite() */
	char *map;
	volatile int go;
};

static void *writer(void *arg)
{
	struct race *r = arg;
	char buf[4096];
	int self = MUST(open("/proc/thread-self/make-it-fail", O_WRONLY));
	double t;

	memset(buf, 'W', sizeof(buf));
	while (!r->go)
		;
	MUST(write(self, "1", 1));
	t = now_s();
	MUST(pwrite(r->fd, buf, sizeof(buf), 2 * MB));
	r->took = now_s() - t;
	MUST(write(self, "0", 1));
	close(self);
	return NULL;
}

static void *mapper(void *arg)
{
	struct race *r = arg;

	while (!r->go)
		;
	while (now_s() < r->start + r->delay)
		;
	r->map = mmap(NULL, 4 * MB, PROT_READ | PROT_WRITE, MAP_SHARED,
		      r->fd, 0);
	return NULL;
}

/* One round of NFILES races; return the longest pwrite(). */
static double round_of(int round, double span)
{
	struct race r[NFILES];
	pthread_t w, m;
	char name[64], buf[sizeof(mark)];
	double longest = 0;
	int i, lost = 0;

	for (i = 0; i < NFILES; i++) {
		snprintf(name, sizeof(name), "f%d-%d", round, i);
		r[i].fd = MUST(open(name, O_CREAT | O_RDWR | O_TRUNC, 0644));
		/* Inside i_size: huge under within_size as under always */
		MUST(ftruncate(r[i].fd, 4 * MB));
		r[i].go = 0;
		r[i].delay = span * i / NFILES;
		MUST(pthread_create(&w, NULL, writer, &r[i]));
		MUST(pthread_create(&m, NULL, mapper, &r[i]));
		r[i].start = now_s();
		r[i].go = 1;
		pthread_join(w, NULL);
		pthread_join(m, NULL);
		if (r[i].map == MAP_FAILED) {
			CHECK(0, "mmap: %s", strerror(errno));
			r[i].map = NULL;
			continue;
		}
		/* Into a hole of the writer's folio, once it is there */
		memcpy(r[i].map + 3 * MB, mark, sizeof(mark));
		munmap(r[i].map, 4 * MB);
		if (r[i].took > longest)
			longest = r[i].took;
	}
	put_file("/proc/sys/vm/drop_caches", "2");
	for (i = 0; i < NFILES; i++) {
		MUST(pread(r[i].fd, buf, sizeof(buf), 3 * MB));
		if (memcmp(buf, mark, sizeof(mark)))
			lost++;
		MUST(pread(r[i].fd, buf, 1, 2 * MB + 4095));
		CHECK(buf[0] == 'W', "round %d file %d: pwrite's data", round,
		      i);
		close(r[i].fd);
		snprintf(name, sizeof(name), "f%d-%d", round, i);
		unlink(name);
	}
	CHECK(!lost, "round %d: %d of %d files lost what their mapping wrote",
	      round, lost, NFILES);
	return longest;
}

static void body(void)
{
	double span = 0.002;
	int round;

	for (round = 0; round < ROUNDS; round++)
		span = round_of(round, span);
}

int main(void)
{
	if (access(FAILSLAB "probability", W_OK)) {
		/* The test kernel has it (kernel/hugetmpfs.config) */
		fprintf(stderr, "no failslab (CONFIG_FAILSLAB)\n");
		return 2;
	}
	put_file(FAILSLAB "task-filter", "Y");
	put_file(FAILSLAB "ignore-gfp-wait", "Y");
	put_file(FAILSLAB "verbose", "0");
	put_file(FAILSLAB "interval", "1");
	put_file(FAILSLAB "times", "-1");
	put_file(FAILSLAB "probability", "100");
	on_hugetmpfs_and_tmpfs(body, "huge=within_size");
	put_file(FAILSLAB "probability", "0");
	put_file(FAILSLAB "task-filter", "N");
	return tap_done("t-holes-mapflag");
}
