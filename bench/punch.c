// SPDX-License-Identifier: GPL-2.0
/*
 * Hole punching in sparsely used huge folios, and writing into the holes
 * afterwards: the trade a filesystem makes between memory and time.
 *
 * A file of SIZE gets 64 KiB of data at the start of each 2 MiB range (a
 * huge folio, mostly holes, under huge=always). Then, range by range:
 *   punch	4 KiB punched out of that data (the folio is split);
 *		time per punch, and memory per byte of data after it (Shmem)
 *   refill	64 KiB written 1 MiB into the range, where there was never
 *		data; time per write
 * Everything is read back and checked.
 *
 *	punch FILE SIZE
 */
#include <stdint.h>
#include "bench.h"

#define RANGE	(2UL << 20)
#define DATA	(64UL << 10)
#define HOLE_AT	(16UL << 10)
#define HOLE	4096UL
#define REFILL	(1UL << 20)

/* The data written at byte @off: never 0, and different in every page. */
static uint8_t pattern(size_t off)
{
	return (uint8_t)(off / 4096 * 31 + off % 251) | 1;
}

/* What byte @off of the file holds at the end: 0 where nothing was written. */
static uint8_t expected(size_t off)
{
	size_t in = off % RANGE;

	if (in >= HOLE_AT && in < HOLE_AT + HOLE)
		return 0;
	if (in < DATA || (in >= REFILL && in < REFILL + DATA))
		return pattern(off);
	return 0;
}

static void fill(uint8_t *buf, size_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = pattern(off + i);
}

static void put(int fd, uint8_t *buf, size_t off, size_t len)
{
	fill(buf, off, len);
	if (pwrite(fd, buf, len, off) != (ssize_t)len)
		die("write %zu at %zu", len, off);
}

int main(int argc, char **argv)
{
	size_t size, ranges, r, i;
	double t, punch = 0, refill = 0;
	uint8_t *buf;
	long shmem0;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: punch FILE SIZE\n");
		return 2;
	}
	size = parse_size(argv[2]);
	ranges = size / RANGE;
	if (!ranges) {
		errno = EINVAL;
		die("SIZE '%s' is less than 2 MiB", argv[2]);
	}
	buf = malloc(RANGE);
	if (!buf)
		die("malloc");

	stat_refresh();
	shmem0 = meminfo_kb("Shmem");
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	/* i_size first, so that huge=within_size gives huge folios too. */
	if (fd < 0 || ftruncate(fd, ranges * RANGE))
		die("%s", argv[1]);
	for (r = 0; r < ranges; r++)
		put(fd, buf, r * RANGE, DATA);

	for (r = 0; r < ranges; r++) {
		t = now();
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      r * RANGE + HOLE_AT, HOLE))
			die("punch at %zu", r * RANGE + HOLE_AT);
		punch += now() - t;
	}
	figure("punch", punch / ranges * 1e9, "ns");
	stat_refresh();
	figure("shmem_per_byte_punched",
	       (meminfo_kb("Shmem") - shmem0) * 1024.0 /
	       (ranges * (DATA - HOLE)), "B/B");

	for (r = 0; r < ranges; r++) {
		fill(buf, r * RANGE + REFILL, DATA);
		t = now();
		if (pwrite(fd, buf, DATA, r * RANGE + REFILL) != (ssize_t)DATA)
			die("write at %zu", r * RANGE + REFILL);
		refill += now() - t;
	}
	figure("refill", refill / ranges * 1e9, "ns");

	for (r = 0; r < ranges; r++) {
		if (pread(fd, buf, RANGE, r * RANGE) != (ssize_t)RANGE)
			die("read at %zu", r * RANGE);
		for (i = 0; i < RANGE; i++)
			if (buf[i] != expected(r * RANGE + i)) {
				errno = EIO;
				die("byte %zu reads %u, not %u", r * RANGE + i,
				    buf[i], expected(r * RANGE + i));
			}
	}
	close(fd);
	if (unlink(argv[1]))
		die("unlink %s", argv[1]);
	free(buf);
	return 0;
}
