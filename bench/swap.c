// SPDX-License-Identifier: GPL-2.0
/*
 * Through swap: from inside a memory cgroup whose memory.max is half of
 * SIZE (the driver sets it up, with a swap device), write a file of SIZE in
 * 1 MiB writes, so that half of it has to go to swap as it is written, and
 * read it back (every byte checked), which swaps in what went out and out
 * what came in. Then memory.reclaim pushes the whole file out (how much of
 * it went is reported: the cgroup's swap use) and it is read again: the
 * time to swap a file in. Data differs in every 8 bytes, so that zram
 * cannot store it for nothing.
 *
 *	swap FILE SIZE CGROUP		e.g. swap /mnt/b/f 1g /sys/fs/cgroup/b
 */
#include "bench.h"

#define BLOCK	(1 << 20)

static void fill(uint64_t *buf, size_t off)
{
	for (size_t i = 0; i < BLOCK / 8; i++)
		buf[i] = (off / 8 + i) * 0x9e3779b97f4a7c15ULL;
}

/* The number in a cgroup file, such as memory.swap.current. */
static double read_num(const char *cgroup, const char *name)
{
	char path[4096], num[32];

	snprintf(path, sizeof(path), "%s/%s", cgroup, name);
	get_line(path, num, sizeof(num));
	return strtod(num, NULL);
}

/* Read the file back; every byte must be what was written. */
static double read_back(int fd, size_t size, uint64_t *buf, uint64_t *want)
{
	double t = now();

	for (size_t off = 0; off < size; off += BLOCK) {
		if (pread(fd, buf, BLOCK, off) != BLOCK)
			die("read at %zu", off);
		fill(want, off);
		if (memcmp(buf, want, BLOCK)) {
			errno = EIO;
			die("data differs at %zu", off);
		}
	}
	return now() - t;
}

int main(int argc, char **argv)
{
	char path[4096], num[32];
	uint64_t *buf, *want;
	size_t size;
	double t;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: swap FILE SIZE CGROUP\n");
		return 2;
	}
	size = parse_size(argv[2]) / BLOCK * BLOCK;
	buf = malloc(BLOCK);
	want = malloc(BLOCK);
	if (!buf || !want)
		die("memory");
	snprintf(path, sizeof(path), "%s/cgroup.procs", argv[3]);
	snprintf(num, sizeof(num), "%d", getpid());
	put_file(path, num);

	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("%s", argv[1]);
	t = now();
	for (size_t off = 0; off < size; off += BLOCK) {
		fill(buf, off);
		if (pwrite(fd, buf, BLOCK, off) != BLOCK)
			die("write at %zu", off);
	}
	figure("write", size / (now() - t) / 1e6, "MB/s");
	figure("read", size / read_back(fd, size, buf, want) / 1e6, "MB/s");
	close(fd);

	/* All of it out, then all of it back in. */
	snprintf(path, sizeof(path), "%s/memory.reclaim", argv[3]);
	snprintf(num, sizeof(num), "%zu", size);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		die("%s", path);
	/* EAGAIN: not all of it could go; what did is what is read in. */
	if (write(fd, num, strlen(num)) < 0 && errno != EAGAIN)
		die("%s", path);
	close(fd);
	figure("swapped", read_num(argv[3], "memory.swap.current") / 1e6, "MB");
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		die("%s", argv[1]);
	figure("swapin", size / read_back(fd, size, buf, want) / 1e6, "MB/s");
	close(fd);
	unlink(argv[1]);
	return 0;
}
