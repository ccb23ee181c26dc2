// SPDX-License-Identifier: GPL-2.0
/*
 * MADV_COLLAPSE on a read-only mapping of a file that nobody has open for
 * write: with CONFIG_READ_ONLY_THP_FOR_FS the kernel treats it as a read-only
 * file, and the next open for write would drop its page cache if a collapse
 * had made a clean copy. The data must survive, holes included, and the
 * mount's space accounting must stay exact. tmpfs in the same boot is the
 * reference.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "stats.h"
#include "tap.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define MB (1024L * 1024)
#define SIZE (8 * MB)
#define DATA (3 * MB)	/* the rest is a hole */

static const char *fs;

static unsigned char pattern(long off)
{
	return off < DATA ? ((off * 2654435761u) >> 9) | 1 : 0;
}

static long used_bytes(const char *dir)
{
	char sysdir[128];

	mount_sysdir(dir, sysdir, sizeof(sysdir));
	return mount_stat(sysdir, "used_bytes");
}

static void one_fs(const char *dir)
{
	unsigned char *buf = malloc(SIZE), *p;
	char path[128];
	long bad = -1;
	int fd, r;

	snprintf(path, sizeof(path), "%s/c", dir);
	for (long i = 0; i < SIZE; i++)
		buf[i] = pattern(i);
	fd = MUST(open(path, O_RDWR | O_CREAT | O_TRUNC, 0644));
	CHECK(write(fd, buf, DATA) == DATA, "%s: write", fs);
	MUST(ftruncate(fd, SIZE));
	close(fd);

	/* Nobody has it open for write now. */
	fd = MUST(open(path, O_RDONLY));
	p = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "%s: mmap", fs);
	if (p == MAP_FAILED)
		return;
	for (long i = 0; i < SIZE; i += 4096)
		(void)*(volatile unsigned char *)(p + i);
	r = madvise(p, SIZE, MADV_COLLAPSE);
	printf("%s: MADV_COLLAPSE %s\n", fs, r ? strerror(errno) : "done");
	/*
	 * hugetmpfs: core mm either collapses (read-only file THP) or refuses
	 * the mapping outright; anything else (EAGAIN, ENOMEM, EFAULT) means
	 * it got part way and found something it did not expect.
	 */
	if (!strcmp(fs, "hugetmpfs"))
		CHECK(!r || errno == EINVAL, "%s: MADV_COLLAPSE failed with %s",
		      fs, strerror(errno));
	munmap(p, SIZE);
	close(fd);

	/* Opening for write drops a read-only file's collapsed page cache. */
	fd = MUST(open(path, O_RDWR));
	memset(buf, 0xaa, SIZE);
	CHECK(pread(fd, buf, SIZE, 0) == SIZE, "%s: read back", fs);
	for (long i = 0; i < SIZE; i++)
		if (buf[i] != pattern(i)) {
			bad = i;
			break;
		}
	CHECK(bad < 0, "%s: data differs at %ld after collapse and reopen", fs,
	      bad);
	close(fd);
	if (!strcmp(fs, "hugetmpfs")) {
		printf("%s: used_bytes %ld after collapse\n", fs,
		       used_bytes(dir));
		CHECK(used_bytes(dir) >= DATA && used_bytes(dir) <= SIZE,
		      "%s: used_bytes %ld", fs, used_bytes(dir));
		MUST(unlink(path));
		CHECK(used_bytes(dir) == 0, "%s: used_bytes %ld after unlink",
		      fs, used_bytes(dir));
	} else {
		MUST(unlink(path));
	}
	free(buf);
}


static long statfs_used(const char *dir)
{
	struct statfs sf;

	MUST(statfs(dir, &sf));
	return (long)(sf.f_blocks - sf.f_bfree) * sf.f_bsize;
}

/*
 * A sparse file on a size=2m mount, 1 MiB of data then 7 MiB of hole,
 * mapped read-only by a reader while nobody has it open for write: a
 * collapse attempt must not read the holes in. Nothing it holds, and
 * nothing the mount or the kernel counts, may change.
 */
static void holes_stay_holes(const char *dir)
{
	long used, sfused, shmem, blocks;
	char path[128];
	struct stat st;
	char *p;
	int fd;

	snprintf(path, sizeof(path), "%s/sparse", dir);
	fd = MUST(open(path, O_RDWR | O_CREAT | O_TRUNC, 0644));
	/*
	 * Holes first: a collapse meets them before the (dirty) data and
	 * would read them in, if the page cache could read.
	 */
	for (long off = MB; off < 2 * MB; off += 4096)
		CHECK(pwrite(fd, "data", 4, off) == 4, "%s: write", fs);
	MUST(ftruncate(fd, SIZE));
	close(fd);

	fd = MUST(open(path, O_RDONLY));
	p = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "%s: mmap", fs);
	if (p == MAP_FAILED)
		goto out;
	for (long off = MB; off < 2 * MB; off += 4096)
		CHECK(p[off] == 'd', "%s: data at %ld", fs, off);
	used = strcmp(fs, "tmpfs") ? used_bytes(dir) : 0;
	sfused = statfs_used(dir);
	shmem = meminfo_kb("Shmem");
	MUST(fstat(fd, &st));
	blocks = st.st_blocks;
	CHECK(blocks * 512 == MB, "%s: %ld KiB held before", fs, blocks / 2);

	errno = 0;
	madvise(p, SIZE, MADV_COLLAPSE);
	printf("%s: MADV_COLLAPSE on a sparse file: %s\n", fs,
	       strerror(errno));
	MUST(fstat(fd, &st));
	CHECK(st.st_blocks == blocks, "%s: %ld KiB held after collapse, %ld before",
	      fs, (long)st.st_blocks / 2, blocks / 2);
	CHECK(statfs_used(dir) == sfused && sfused <= 2 * MB,
	      "%s: statfs used %ld after collapse, %ld before", fs,
	      statfs_used(dir), sfused);
	CHECK(!strcmp(fs, "tmpfs") || used_bytes(dir) == used,
	      "%s: used_bytes %ld after collapse, %ld before", fs,
	      used_bytes(dir), used);
	/* Shmem is machine-wide: a collapse reading 7 MiB in would show. */
	CHECK(labs(meminfo_kb("Shmem") - shmem) < 1024,
	      "%s: Shmem %ld kB after collapse, %ld kB before", fs,
	      meminfo_kb("Shmem"), shmem);
	munmap(p, SIZE);
out:
	close(fd);
	MUST(unlink(path));
}

int main(void)
{
	static const char * const types[] = { "hugetmpfs", "tmpfs" };

	for (int i = 0; i < 2; i++) {
		const char *dir = i ? "/mnt/t-collapse-tmp" : "/mnt/t-collapse-ht";

		fs = types[i];
		mkdir(dir, 0755);
		/* Small pages, so that there is something to collapse. */
		MUST(mount("none", dir, fs, 0, "huge=never"));
		one_fs(dir);
		MUST(umount(dir));
		MUST(mount("none", dir, fs, 0, "huge=never,size=2m"));
		holes_stay_holes(dir);
		MUST(umount(dir));
	}
	return tap_done("t-collapse");
}
