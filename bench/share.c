// SPDX-License-Identifier: GPL-2.0
/*
 * Two processes map the same file, already in memory: the page-table memory
 * their mappings cost (PageTables in /proc/meminfo) and how long each takes
 * to touch every page the first time (faults) and the second (mapped).
 *
 *	share FILE SIZE
 */
#include <sys/mman.h>
#include <sys/wait.h>
#include "bench.h"

#define PAGE 4096UL
#define PROCS 2

struct times {
	double touch, again;
};

static double pass(volatile char *map, size_t size)
{
	double t = now();
	uint64_t sum = 0;

	for (size_t off = 0; off < size; off += PAGE)
		sum += map[off];
	if (sum != size / PAGE) {
		errno = EIO;
		die("shared mapping reads wrong data");
	}
	return now() - t;
}

static void child(int fd, size_t size, int up, int down)
{
	struct times tm;
	char *map, c;

	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("child mmap");
	tm.touch = pass(map, size);
	/* Hold the mapping while the parent counts the page tables. */
	if (write(up, &tm, sizeof(tm)) != sizeof(tm) || read(down, &c, 1) != 1)
		die("child pipe");
	tm.again = pass(map, size);
	if (write(up, &tm, sizeof(tm)) != sizeof(tm))
		die("child pipe");
	_exit(0);
}

int main(int argc, char **argv)
{
	double touch = 0, again = 0;
	int up[2], down[2], fd, i;
	long pt0, pt;
	struct times tm;
	size_t size;
	char *map;

	if (argc != 3) {
		fprintf(stderr, "usage: share FILE SIZE\n");
		return 2;
	}
	size = parse_size(argv[2]);
	map = map_new_file(argv[1], size, &fd);
	for (size_t off = 0; off < size; off += PAGE)
		map[off] = 1;
	munmap(map, size);

	if (pipe(up) || pipe(down))
		die("pipe");
	stat_refresh();
	pt0 = meminfo_kb("PageTables");
	for (i = 0; i < PROCS; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid)
			child(fd, size, up[1], down[0]);
	}
	for (i = 0; i < PROCS; i++) {
		if (read(up[0], &tm, sizeof(tm)) != sizeof(tm))
			die("a child failed");
		touch = tm.touch > touch ? tm.touch : touch;
	}
	stat_refresh();
	pt = meminfo_kb("PageTables") - pt0;
	if (write(down[1], "gg", PROCS) != PROCS)
		die("pipe");
	for (i = 0; i < PROCS; i++) {
		if (read(up[0], &tm, sizeof(tm)) != sizeof(tm))
			die("a child failed");
		again = tm.again > again ? tm.again : again;
	}
	for (i = 0; i < PROCS; i++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			die("a child failed");
	}
	figure("page_tables", pt > 0 ? pt : 0, "kB");
	figure("touch", touch * 1e3, "ms");
	figure("access", again * 1e3, "ms");
	close(fd);
	if (unlink(argv[1]))
		die("unlink %s", argv[1]);
	return 0;
}
