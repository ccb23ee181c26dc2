// SPDX-License-Identifier: GPL-2.0
/*
 * Space preallocated past EOF with fallocate(FALLOC_FL_KEEP_SIZE) stays the
 * file's: growing the file with ftruncate only moves EOF (it keeps the
 * preallocation, and huge folios whole), and splitting a huge folio that
 * straddles EOF (a 4 KiB punch inside it) frees only what was punched, so
 * a later write into the reserved range cannot get ENOSPC. What the file
 * holds (st_blocks), what statfs says is used and the kernel's Shmem count
 * agree throughout. hugetmpfs and tmpfs, huge=always, in the same boot.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "stats.h"
#include "tap.h"

#define KB 1024L
#define MB (1024 * KB)

static const char *fs, *dir;

static long held_kb(int fd)
{
	struct stat st;

	MUST(fstat(fd, &st));
	return st.st_blocks / 2;
}

static long used_kb(void)
{
	struct statfs sf;

	MUST(statfs(dir, &sf));
	return (long)(sf.f_blocks - sf.f_bfree) * sf.f_bsize / KB;
}


static long splits(void)
{
	char sysdir[128];

	if (strcmp(fs, "hugetmpfs"))
		return 0;
	mount_sysdir(dir, sysdir, sizeof(sysdir));
	return mount_stat(sysdir, "splits");
}

/* Growing a file over its preallocation keeps it, and keeps it huge. */
static void grow(void)
{
	long shmem0 = meminfo_kb("Shmem"), n0;
	int fd;

	fd = MUST(open("g", O_RDWR | O_CREAT | O_TRUNC, 0644));
	CHECK(pwrite(fd, "x", 1, 3 * MB) == 1, "%s: write", fs);
	MUST(fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 64 * MB));
	CHECK(held_kb(fd) == 64 * 1024, "%s: %ld KiB held after fallocate", fs,
	      held_kb(fd));
	n0 = splits();
	MUST(ftruncate(fd, 5 * MB + 12345));
	CHECK(held_kb(fd) == 64 * 1024, "%s: %ld KiB held after growing", fs,
	      held_kb(fd));
	CHECK(used_kb() == 64 * 1024, "%s: statfs %ld KiB used after growing",
	      fs, used_kb());
	/* Shmem is machine-wide: allow 1 MiB of others' churn. */
	CHECK(labs(meminfo_kb("Shmem") - shmem0 - 64 * 1024) <= 1024,
	      "%s: Shmem grew by %ld KiB", fs, meminfo_kb("Shmem") - shmem0);
	CHECK(splits() == n0, "%s: growing split %ld folios", fs,
	      splits() - n0);
	/* Shrinking still frees everything past the new EOF. */
	MUST(ftruncate(fd, 3 * MB));
	CHECK(held_kb(fd) == 3 * 1024, "%s: %ld KiB held after shrinking", fs,
	      held_kb(fd));
	CHECK(used_kb() == 3 * 1024, "%s: statfs %ld KiB used after shrinking",
	      fs, used_kb());
	close(fd);
	MUST(unlink("g"));
	CHECK(used_kb() == 0, "%s: statfs %ld KiB used after unlink", fs,
	      used_kb());
}

/*
 * A 1 MiB file with 1 MiB reserved past EOF, in one huge folio: punching
 * 4 KiB inside it splits it and frees exactly 4 KiB. Another file then
 * takes the rest of the mount; the reserved range must still take a write.
 */
static void split(void)
{
	static char buf[MB];
	long written = 0;
	ssize_t r;
	int fd, fd2;

	memset(buf, 0x5a, sizeof(buf));
	fd = MUST(open("s", O_RDWR | O_CREAT | O_TRUNC, 0644));
	CHECK(pwrite(fd, buf, MB, 0) == MB, "%s: write", fs);
	MUST(fallocate(fd, FALLOC_FL_KEEP_SIZE, MB, MB));
	CHECK(held_kb(fd) == 2048, "%s: %ld KiB held", fs, held_kb(fd));
	MUST(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		       8 * KB, 4 * KB));
	CHECK(held_kb(fd) == 2044, "%s: %ld KiB held after a 4 KiB punch", fs,
	      held_kb(fd));
	CHECK(used_kb() == 2044, "%s: statfs %ld KiB used after the punch", fs,
	      used_kb());

	fd2 = MUST(open("filler", O_RDWR | O_CREAT | O_TRUNC, 0644));
	while ((r = write(fd2, buf, 64 * KB)) > 0)
		written += r;
	CHECK(r < 0 && errno == ENOSPC, "%s: filler ended with %s", fs,
	      strerror(errno));
	CHECK(pwrite(fd, buf, MB, MB) == MB,
	      "%s: write into the reserved range: %s", fs, strerror(errno));
	CHECK(held_kb(fd) == 2044, "%s: %ld KiB held after filling it", fs,
	      held_kb(fd));
	CHECK(used_kb() == held_kb(fd) + held_kb(fd2),
	      "%s: statfs %ld KiB used, files hold %ld KiB", fs, used_kb(),
	      held_kb(fd) + held_kb(fd2));
	close(fd2);
	close(fd);
	MUST(unlink("filler"));
	MUST(unlink("s"));
}

int main(void)
{
	static const char * const fss[] = { "hugetmpfs", "tmpfs" };
	char cwd[256];

	MUST(getcwd(cwd, sizeof(cwd)));
	for (int i = 0; i < 2; i++) {
		fs = tap_fs = fss[i];
		dir = i ? "/mnt/t-prealloc-tmp" : "/mnt/t-prealloc-ht";
		mkdir(dir, 0755);
		MUST(mount("none", dir, fs, 0, "huge=always,size=128m"));
		MUST(chdir(dir));
		grow();
		MUST(chdir(cwd));
		MUST(umount(dir));
		/* A small mount, so that the filler reaches its end quickly. */
		MUST(mount("none", dir, fs, 0, "huge=always,size=8m"));
		MUST(chdir(dir));
		split();
		MUST(chdir(cwd));
		MUST(umount(dir));
	}
	return tap_done("t-prealloc");
}
