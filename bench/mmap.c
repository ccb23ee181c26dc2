// SPDX-License-Identifier: GPL-2.0
/*
 * A shared mapping of a new file: first-touch time (one write fault per
 * page, or per 2 MiB where a PMD maps it), then a dependent random pointer
 * chase over every page of the mapping (each load needs the previous one,
 * so prefetch cannot help and each step is a TLB miss without huge pages),
 * then a sequential scan.
 *
 *	mmap FILE SIZE
 *
 * Under QEMU's TCG the guest's TLB reach is not modelled: the chase shows
 * page-walk and fault costs, not what a real TLB would save.
 */
#include <sys/mman.h>
#include "bench.h"

#define PAGE 4096UL

/* xorshift64*: a fixed, fast sequence, so every run chases the same cycle */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

int main(int argc, char **argv)
{
	size_t size, pages, i, steps;
	uint64_t seed = 88172645463325252ULL, sum = 0;
	uint32_t *perm;
	char *map;
	void **p;
	double t;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: mmap FILE SIZE\n");
		return 2;
	}
	size = parse_size(argv[2]);
	pages = size / PAGE;
	map = map_new_file(argv[1], size, &fd);

	t = now();
	for (i = 0; i < pages; i++)
		map[i * PAGE] = 1;
	figure("first_touch", (now() - t) * 1e3, "ms");

	/* Sattolo's shuffle: one cycle through all pages. */
	perm = malloc(pages * sizeof(*perm));
	if (!perm)
		die("malloc");
	for (i = 0; i < pages; i++)
		perm[i] = i;
	for (i = pages - 1; i > 0; i--) {
		size_t j = rnd(&seed) % i;
		uint32_t x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	/* Page perm[i] points to perm[i+1], at a per-page cache line. */
#define SLOT(pg) ((void **)(map + (pg) * PAGE + ((pg) * 64) % PAGE))
	for (i = 0; i < pages; i++)
		*SLOT(perm[i]) = SLOT(perm[(i + 1) % pages]);
	free(perm);

	steps = 2 * pages;
	p = SLOT(0);
	t = now();
	for (i = 0; i < steps; i++)
		p = *p;
	figure("chase", (now() - t) * 1e9 / steps, "ns");
	if (p != SLOT(0)) {	/* two whole laps of the cycle */
		errno = EIO;
		die("pointer chase did not close its cycle");
	}

	t = now();
	for (i = 0; i < size; i += 8)
		sum += *(uint64_t *)(map + i);
	figure("scan", size / (now() - t) / 1e6, "MB/s");
	if (!sum) {
		errno = EIO;
		die("scan read only zeroes");
	}
	munmap(map, size);
	close(fd);
	if (unlink(argv[1]))
		die("unlink %s", argv[1]);
	return 0;
}
