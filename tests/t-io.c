// SPDX-License-Identifier: GPL-2.0
/*
 * File data is byte-exact through write/read, pwrite/pread, readv/writev,
 * O_APPEND, truncate up and down, and shared mmap in both directions, at
 * offsets around page and 2 MiB boundaries. Runs in the current directory.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tap.h"

#define MB (1024L * 1024)
#define FILE_SIZE (9 * MB)

static unsigned char *model;	/* what the file must contain */

static unsigned char pattern(long off, unsigned int seed)
{
	uint32_t x = (uint32_t)off * 2654435761u ^ seed * 40503u;

	return (x >> 13) ^ (x >> 5);
}

static void fill(unsigned char *buf, long off, long len, unsigned int seed)
{
	for (long i = 0; i < len; i++)
		buf[i] = pattern(off + i, seed);
}

static long first_diff(const unsigned char *a, const unsigned char *b, long n)
{
	for (long i = 0; i < n; i++)
		if (a[i] != b[i])
			return i;
	return -1;
}

/* The whole file, through read(2), must equal the model. */
static void verify_read(int fd, long size, const char *when)
{
	unsigned char *buf = malloc(size + 1);
	long got = 0, d;
	ssize_t r;

	MUST(lseek(fd, 0, SEEK_SET));
	while ((r = read(fd, buf + got, size + 1 - got)) > 0)
		got += r;
	CHECK(r == 0, "%s: read error %s", when, strerror(errno));
	CHECK(got == size, "%s: read %ld bytes, expected %ld", when, got, size);
	d = first_diff(buf, model, got < size ? got : size);
	CHECK(d < 0, "%s: read differs at offset %ld (0x%02x, expected 0x%02x)",
	      when, d, d < 0 ? 0 : buf[d], d < 0 ? 0 : model[d]);
	free(buf);
}

static void verify_mmap(int fd, long size, const char *when)
{
	unsigned char *p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	long d;

	CHECK(p != MAP_FAILED, "%s: mmap: %s", when, strerror(errno));
	if (p == MAP_FAILED)
		return;
	d = first_diff(p, model, size);
	CHECK(d < 0, "%s: mmap differs at offset %ld", when, d);
	munmap(p, size);
}

static void do_pwrite(int fd, long off, long len, unsigned int seed)
{
	fill(model + off, off, len, seed);
	CHECK(pwrite(fd, model + off, len, off) == len, "pwrite %ld@%ld", len, off);
}

/* Bytes of the file in pages that hold data, as SEEK_DATA/SEEK_HOLE see it */
static long data_bytes(int fd, long size)
{
	long total = 0, data, hole = 0;

	while (hole < size) {
		data = lseek(fd, hole, SEEK_DATA);
		if (data < 0)
			break;
		hole = lseek(fd, data, SEEK_HOLE);
		total += ((hole + 4095) & ~4095L) - (data & ~4095L);
	}
	return total;
}

static void io(void)
{
	static const long offs[] = { 0, 1, 4095, 4096, 2 * MB - 1, 2 * MB,
				     2 * MB + 4095, 4 * MB - 3, 6 * MB + 17 };
	unsigned char *buf, *p;
	struct iovec iov[3];
	struct stat st;
	long size;
	int fd;

	model = calloc(FILE_SIZE + 4 * MB, 1);
	buf = malloc(FILE_SIZE);
	fd = MUST(open("data", O_RDWR | O_CREAT | O_TRUNC, 0644));

	/* Sequential writes of odd sizes, then writes across boundaries. */
	fill(model, 0, FILE_SIZE, 1);
	for (long off = 0; off < FILE_SIZE; ) {
		long len = off % 3 ? 123457 : 65536;

		if (off + len > FILE_SIZE)
			len = FILE_SIZE - off;
		CHECK(write(fd, model + off, len) == len, "write at %ld", off);
		off += len;
	}
	size = FILE_SIZE;
	verify_read(fd, size, "sequential write");
	for (unsigned int i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		do_pwrite(fd, offs[i], 3 * 4096 + 5, 2 + i);
	verify_read(fd, size, "pwrite");
	verify_mmap(fd, size, "pwrite");

	/* pread at the same odd places */
	for (unsigned int i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		CHECK(pread(fd, buf, 8192, offs[i]) == 8192, "pread %ld", offs[i]);
		CHECK(!memcmp(buf, model + offs[i], 8192), "pread data at %ld",
		      offs[i]);
	}

	/* writev/readv */
	fill(model + 3 * MB - 100, 3 * MB - 100, 300, 77);
	iov[0] = (struct iovec){ model + 3 * MB - 100, 50 };
	iov[1] = (struct iovec){ model + 3 * MB - 50, 150 };
	iov[2] = (struct iovec){ model + 3 * MB + 100, 100 };
	CHECK(pwritev(fd, iov, 3, 3 * MB - 100) == 300, "pwritev");
	memset(buf, 0, 300);
	iov[0] = (struct iovec){ buf, 7 };
	iov[1] = (struct iovec){ buf + 7, 293 };
	CHECK(preadv(fd, iov, 2, 3 * MB - 100) == 300, "preadv");
	CHECK(!memcmp(buf, model + 3 * MB - 100, 300), "readv data");

	/* Writes through a shared mapping are seen by read(). */
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "mmap rw: %s", strerror(errno));
	if (p != MAP_FAILED) {
		for (long off = 4096 - 10; off < size; off += 1 * MB + 4093) {
			fill(model + off, off, 20, 99);
			memcpy(p + off, model + off, 20);
		}
		CHECK(msync(p, size, MS_SYNC) == 0, "msync");
		munmap(p, size);
	}
	verify_read(fd, size, "mmap write");

	/* Truncate down mid-page, then up: the old tail reads as zeros. */
	size = 5 * MB + 1000;
	MUST(ftruncate(fd, size));
	memset(model + size, 0, FILE_SIZE - size);
	MUST(fstat(fd, &st));
	CHECK(st.st_size == size, "size after truncate down %ld", (long)st.st_size);
	verify_read(fd, size, "truncate down");
	size = 7 * MB;
	MUST(ftruncate(fd, size));
	verify_read(fd, size, "truncate up");
	verify_mmap(fd, size, "truncate up");

	/* Writing far past EOF leaves a hole of zeros. */
	do_pwrite(fd, 10 * MB, 5000, 5);
	size = 10 * MB + 5000;
	verify_read(fd, size, "write past EOF");

	/* O_APPEND always writes at the end. */
	close(fd);
	fd = MUST(open("data", O_RDWR | O_APPEND));
	fill(model + size, size, 9999, 6);
	MUST(lseek(fd, 0, SEEK_SET));
	CHECK(write(fd, model + size, 9999) == 9999, "append");
	size += 9999;
	verify_read(fd, size, "O_APPEND");
	MUST(fstat(fd, &st));
	CHECK(st.st_size == size, "size after append %ld", (long)st.st_size);
	CHECK(st.st_blocks * 512 == data_bytes(fd, size),
	      "st_blocks %ld, but SEEK_DATA finds %ld bytes of data",
	      (long)st.st_blocks, data_bytes(fd, size));
	close(fd);

	/* The data survives close and reopen. */
	fd = MUST(open("data", O_RDONLY));
	verify_read(fd, size, "reopen");
	close(fd);
	MUST(unlink("data"));
	free(model);
	free(buf);
}

int main(void)
{
	on_hugetmpfs_and_tmpfs(io, "huge=within_size");
	return tap_done("t-io");
}
