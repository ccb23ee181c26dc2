// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming write(2) then read(2) of a file in fixed blocks (every byte
 * read is checked against what was written, outside the timing), or with
 * --memcpy the same copies between a block buffer and anonymous memory:
 * the ceiling that a page-cache copy cannot beat.
 *
 *	stream FILE SIZE BLOCK		e.g. stream /mnt/b/f 1g 1m
 *	stream --memcpy SIZE BLOCK
 */
#include <sys/mman.h>
#include "bench.h"

static void fill(char *buf, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i += 8)
		*(uint64_t *)(buf + i) = seed + i;
}

static void memcpy_ceiling(size_t size, size_t block)
{
	char *buf = malloc(block), *mem;
	volatile uint64_t sink = 0;
	double t;

	mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (!buf || mem == MAP_FAILED)
		die("memory for %zu bytes", size);
	fill(buf, block, 1);
	t = now();
	for (size_t off = 0; off < size; off += block)
		memcpy(mem + off, buf, block);
	figure("memcpy_write", size / (now() - t) / 1e6, "MB/s");
	t = now();
	for (size_t off = 0; off < size; off += block) {
		memcpy(buf, mem + off, block);
		sink += *(uint64_t *)buf;
	}
	figure("memcpy_read", size / (now() - t) / 1e6, "MB/s");
	munmap(mem, size);
	free(buf);
}

int main(int argc, char **argv)
{
	size_t size, block, off;
	char *buf, *want;
	double t;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: stream FILE|--memcpy SIZE BLOCK\n");
		return 2;
	}
	size = parse_size(argv[2]);
	block = parse_size(argv[3]);
	if (size % block || block % 8) {
		errno = EINVAL;
		die("SIZE must be a multiple of BLOCK, BLOCK of 8");
	}
	if (!strcmp(argv[1], "--memcpy")) {
		memcpy_ceiling(size, block);
		return 0;
	}

	buf = malloc(block);
	if (!buf)
		die("malloc");
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("%s", argv[1]);

	/* Every byte known: the block's offset in its first 8, then fill(). */
	fill(buf, block, 0x9e3779b97f4a7c15ULL);
	t = now();
	for (off = 0; off < size; off += block) {
		/* Distinct data per block, so a misplaced block is caught. */
		*(uint64_t *)buf = off;
		if (pwrite(fd, buf, block, off) != (ssize_t)block)
			die("write at %zu", off);
	}
	figure("write", size / (now() - t) / 1e6, "MB/s");

	/* Every byte checked, outside the time: only the reads are timed. */
	want = malloc(block);
	if (!want)
		die("malloc");
	fill(want, block, 0x9e3779b97f4a7c15ULL);
	t = 0;
	for (off = 0; off < size; off += block) {
		double t0 = now();

		if (pread(fd, buf, block, off) != (ssize_t)block)
			die("read at %zu", off);
		t += now() - t0;
		*(uint64_t *)want = off;
		if (memcmp(buf, want, block)) {
			errno = EIO;
			die("wrong data in the block at %zu", off);
		}
	}
	figure("read", size / t / 1e6, "MB/s");
	free(want);
	close(fd);
	if (unlink(argv[1]))
		die("unlink %s", argv[1]);
	free(buf);
	return 0;
}
