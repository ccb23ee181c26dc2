// SPDX-License-Identifier: GPL-2.0
/*
 * The hole shrinker: memory of huge folios that holds no data goes back on
 * drop_caches (the shrinker) and when size= runs out, data stays, every byte.
 * Under huge=always:
 *  - 4 KiB files: each huge folio's one data page moves to a small page and
 *    the whole 2 MiB block goes back (Shmem ends near the data);
 *  - a 1 MiB file: the folio is split and its holes freed;
 *  - holes inside i_size (never written) go too, which tmpfs keeps;
 *  - data written through a shared mapping is found and kept; a folio still
 *    mapped is skipped;
 *  - a punch inside a huge folio frees its holes at once; SEEK_DATA and
 *    SEEK_HOLE say the same before and after a shrink;
 *  - the moved pages' frames lie outside the old block (pagemap);
 *  - size=16M fills with 64 KiB files, each first in a huge folio, to
 *    within 4 files of the limit before ENOSPC;
 *  - an 8 MiB memory.max takes 6 MiB of such files without an OOM kill;
 *  - preallocating part of a 2 MiB range makes no huge folio (no holes);
 *  - huge_holes=free frees a file's holes when its last writer closes it;
 *  - holes_migrate_max and huge_holes= refuse bad values.
 * The data checks, and those of memory past EOF, run on tmpfs too (it frees
 * the part of a huge folio past EOF under pressure, not holes inside i_size).
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stats.h"
#include "tap.h"

#define KB 1024L
#define MB (1024 * KB)
#define HUGE (2 * MB)
/*
 * Sizes, which make soak raises to the (HOLES_FILES=10000,
 * HOLES_SIZE_MB=64 HOLES_SIZE_FILE_KB=4, HOLES_MEMCG_MB=256
 * HOLES_MEMCG_FILE_KB=64): make check keeps them small for time.
 */
static long nfiles = 256;
static long size_mb = 16, size_file_kb = 64;
static long memcg_mb = 8, memcg_file_kb = 64;
#define NFILES nfiles

static void sizes_from_env(void)
{
	const char *names[] = { "HOLES_FILES", "HOLES_SIZE_MB",
				"HOLES_SIZE_FILE_KB", "HOLES_MEMCG_MB",
				"HOLES_MEMCG_FILE_KB" };
	long *vals[] = { &nfiles, &size_mb, &size_file_kb, &memcg_mb,
			 &memcg_file_kb };

	for (int i = 0; i < 5; i++)
		if (getenv(names[i]) && atol(getenv(names[i])) > 0)
			*vals[i] = atol(getenv(names[i]));
}

static char sysdir[128];	/* empty on tmpfs */

/* Seconds since the last call, to see where the time goes. */
static double lap(void)
{
	static struct timespec t0;
	struct timespec t;
	double d;

	clock_gettime(CLOCK_MONOTONIC, &t);
	d = t0.tv_sec ? (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 : 0;
	t0 = t;
	return d;
}

static int is_htmpfs(void)
{
	return strcmp(tap_fs, "hugetmpfs") == 0;
}

static long st(const char *name)
{
	return is_htmpfs() ? mount_stat(sysdir, name) : 0;
}

static void write_str(const char *path, const char *s)
{
	int fd = MUST(open(path, O_WRONLY));

	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		fprintf(stderr, "write %s to %s: %s\n", s, path,
			strerror(errno));
	close(fd);
}

/* Run the shrinkers, as under pressure, until this mount has no holes. */
static void shrink(void)
{
	for (int i = 0; i < 5; i++) {
		write_str("/proc/sys/vm/drop_caches", "2");
		if (!is_htmpfs() || st("free_hole_bytes") == 0)
			break;
	}
}

static unsigned char byte_at(int file, long off)
{
	return (unsigned char)((off * 2654435761u) >> 11) + file * 7 + 1;
}

static void fill(unsigned char *buf, int file, long off, long len)
{
	for (long i = 0; i < len; i++)
		buf[i] = byte_at(file, off + i);
}

static int same(int fd, int file, long off, long len)
{
	unsigned char *buf = malloc(len), *want = malloc(len);
	int ok;

	fill(want, file, off, len);
	ok = pread(fd, buf, len, off) == len && !memcmp(buf, want, len);
	free(buf);
	free(want);
	return ok;
}

static void put(int fd, int file, long off, long len)
{
	unsigned char *buf = malloc(len);

	fill(buf, file, off, len);
	CHECK(pwrite(fd, buf, len, off) == len, "pwrite %ld at %ld", len, off);
	free(buf);
}

static long blocks_kb(int fd)
{
	struct stat s;

	MUST(fstat(fd, &s));
	return s.st_blocks / 2;
}

/* 4 KiB files: after a shrink, memory near the data, all of it intact. */
static void small_files(void)
{
	long shmem0 = meminfo_kb("Shmem"), holes0 = st("free_hole_bytes");
	long blocks0 = st("holes_blocks_returned"), moved0 = st("holes_moved");
	long freed0 = st("holes_freed"), huge0 = st("huge_alloc");
	long grown, left, made, huge;
	/* More than fits at once: pressure frees holes as they are made. */
	int exact = NFILES <= 1024;
	char name[32];
	int fd, bad = 0;

	MUST(mkdir("small", 0755));
	for (long i = 0; i < NFILES; i++) {
		snprintf(name, sizeof(name), "small/%ld", i);
		fd = MUST(open(name, O_RDWR | O_CREAT, 0644));
		put(fd, i, 0, 4 * KB);
		close(fd);
	}
	grown = meminfo_kb("Shmem") - shmem0;
	/*
	 * Holes made: those still there and those already freed, 511 pages
	 * per huge folio made (under pressure some files get small pages).
	 */
	made = st("free_hole_bytes") - holes0 +
	       (st("holes_freed") - freed0) * 4 * KB;
	huge = st("huge_alloc") - huge0;
	if (is_htmpfs())
		CHECK(made == huge * (HUGE - 4 * KB) &&
		      (!exact || huge == NFILES),
		      "%ld bytes of holes for %ld huge folios, %ld files", made,
		      huge, NFILES);
	shrink();
	left = meminfo_kb("Shmem") - shmem0;
	printf("%s: %ld files of 4 KiB: Shmem +%ld kB, after the shrink +%ld kB (%.2f x the data)\n",
	       tap_fs, NFILES, grown, left, left / (NFILES * 4.0));
	CHECK(left <= NFILES * 4 * 105 / 100 + 256,
	      "Shmem +%ld kB for %ld kB of data after the shrink", left,
	      NFILES * 4);
	if (is_htmpfs()) {
		CHECK(st("free_hole_bytes") == 0, "free_hole_bytes %ld",
		      st("free_hole_bytes"));
		/* A sweep that met a busy page leaves a second to finish. */
		CHECK(exact ? st("holes_blocks_returned") - blocks0 == huge :
		      st("holes_blocks_returned") - blocks0 >= huge * 99 / 100,
		      "%ld blocks returned of %ld", st("holes_blocks_returned") -
		      blocks0, huge);
		CHECK(st("holes_moved") - moved0 == huge, "%ld pages moved of %ld",
		      st("holes_moved") - moved0, huge);
		CHECK(st("used_bytes") == NFILES * 4 * KB, "used_bytes %ld",
		      st("used_bytes"));
	}
	for (long i = 0; i < NFILES; i++) {
		snprintf(name, sizeof(name), "small/%ld", i);
		fd = MUST(open(name, O_RDONLY));
		bad += !same(fd, i, 0, 4 * KB) || blocks_kb(fd) != 4;
		close(fd);
	}
	CHECK(bad == 0, "%d of %ld files changed or hold more than 4 KiB", bad,
	      NFILES);
	for (long i = 0; i < NFILES; i++) {
		snprintf(name, sizeof(name), "small/%ld", i);
		MUST(unlink(name));
	}
	MUST(rmdir("small"));
}

/* 1 MiB of data: more than holes_migrate_max pages, so split in place. */
static void split_in_place(void)
{
	long split0 = st("holes_split");
	int fd = MUST(open("half", O_RDWR | O_CREAT | O_TRUNC, 0644));

	put(fd, 1, 0, MB);
	CHECK(blocks_kb(fd) == 2048, "a huge folio: %ld kB", blocks_kb(fd));
	if (is_htmpfs())
		CHECK(st("free_hole_bytes") == MB, "free_hole_bytes %ld",
		      st("free_hole_bytes"));
	shrink();
	CHECK(blocks_kb(fd) == 1024, "%ld kB held after the shrink",
	      blocks_kb(fd));
	CHECK(same(fd, 1, 0, MB), "data changed");
	if (is_htmpfs())
		CHECK(st("holes_split") - split0 == 1, "holes_split +%ld",
		      st("holes_split") - split0);
	close(fd);
	MUST(unlink("half"));
}

/* Never-written pages inside i_size: holes to hugetmpfs, data to tmpfs. */
static void inside_size(void)
{
	int fd = MUST(open("sparse", O_RDWR | O_CREAT | O_TRUNC, 0644));

	put(fd, 2, 0, 4 * KB);
	put(fd, 2, MB, 4 * KB);
	put(fd, 2, HUGE - 4 * KB, 4 * KB);
	shrink();
	printf("%s: 12 KiB written over 2 MiB: %ld kB held after the shrink\n",
	       tap_fs, blocks_kb(fd));
	if (is_htmpfs())
		CHECK(blocks_kb(fd) == 12, "%ld kB held", blocks_kb(fd));
	CHECK(same(fd, 2, 0, 4 * KB) && same(fd, 2, MB, 4 * KB) &&
	      same(fd, 2, HUGE - 4 * KB, 4 * KB), "data changed");
	close(fd);
	MUST(unlink("sparse"));
}

/* Data written through a shared mapping is data, though no write(2) said so. */
static void mapped(void)
{
	long skipped0 = st("holes_skipped_mapped");
	int fd = MUST(open("map", O_RDWR | O_CREAT | O_TRUNC, 0644));
	char *p;
	char c = 0;

	put(fd, 3, 0, 4 * KB);
	MUST(ftruncate(fd, HUGE));
	p = mmap(NULL, HUGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	if (p == MAP_FAILED)
		goto out;
	p[100 * 4 * KB + 5] = 'Z';
	/* Still mapped: left alone. */
	shrink();
	if (is_htmpfs()) {
		CHECK(st("holes_skipped_mapped") > skipped0,
		      "a mapped folio was not skipped");
		CHECK(st("free_hole_bytes") > 0, "holes of a mapped folio gone");
	}
	CHECK(blocks_kb(fd) == 2048, "%ld kB held while mapped",
	      blocks_kb(fd));
	MUST(munmap(p, HUGE));
	shrink();
	CHECK(pread(fd, &c, 1, 100 * 4 * KB + 5) == 1 && c == 'Z',
	      "the byte written through the mapping reads %d", c);
	CHECK(same(fd, 3, 0, 4 * KB), "data changed");
	if (is_htmpfs())
		CHECK(blocks_kb(fd) == 8, "%ld kB held after the shrink",
		      blocks_kb(fd));
out:
	close(fd);
	MUST(unlink("map"));
}

/* A punch inside a huge folio frees its holes; SEEK_* agree throughout. */
static void punch(void)
{
	int fd = MUST(open("punch", O_RDWR | O_CREAT | O_TRUNC, 0644));
	off_t hole, data;

	put(fd, 4, 0, 4 * KB);
	put(fd, 4, MB, 4 * KB);
	MUST(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, MB,
		       4 * KB));
	hole = lseek(fd, 0, SEEK_HOLE);
	data = lseek(fd, 4 * KB, SEEK_DATA);
	if (is_htmpfs()) {
		CHECK(blocks_kb(fd) == 4, "%ld kB held after the punch",
		      blocks_kb(fd));
		CHECK(st("free_hole_bytes") == 0, "free_hole_bytes %ld",
		      st("free_hole_bytes"));
		CHECK(hole == 4 * KB && data == -1 && errno == ENXIO,
		      "SEEK_HOLE %ld, SEEK_DATA %ld", (long)hole, (long)data);
	}
	shrink();
	CHECK(lseek(fd, 0, SEEK_HOLE) == hole &&
	      lseek(fd, 4 * KB, SEEK_DATA) == data,
	      "SEEK_HOLE/SEEK_DATA changed with the shrink");
	CHECK(same(fd, 4, 0, 4 * KB), "data changed");
	close(fd);
	MUST(unlink("punch"));
}

/*
 * Preallocating part of a 2 MiB range gets small pages (a huge folio would
 * pad the reservation with holes); a whole range gets a huge folio.
 */
static void prealloc(void)
{
	int fd = MUST(open("pre", O_RDWR | O_CREAT | O_TRUNC, 0644));
	long huge0 = st("huge_alloc");

	MUST(fallocate(fd, 0, 0, 512 * KB));
	printf("%s: 512 KiB preallocated: %ld kB held\n", tap_fs, blocks_kb(fd));
	if (is_htmpfs()) {
		CHECK(blocks_kb(fd) == 512 && st("huge_alloc") == huge0 &&
		      st("free_hole_bytes") == 0,
		      "%ld kB held, %ld huge folios made, %ld bytes of holes",
		      blocks_kb(fd), st("huge_alloc") - huge0,
		      st("free_hole_bytes"));
		MUST(fallocate(fd, 0, HUGE, 2 * HUGE));
		CHECK(blocks_kb(fd) == 512 + 4096 && st("huge_alloc") == huge0 + 2,
		      "%ld kB held, %ld huge folios made for 4 MiB aligned",
		      blocks_kb(fd), st("huge_alloc") - huge0);
	}
	close(fd);
	MUST(unlink("pre"));
}

static void body(void)
{
	if (is_htmpfs())
		mount_sysdir(".", sysdir, sizeof(sysdir));
	lap();
	small_files();
	printf("%s: small files %.1f s\n", tap_fs, lap());
	split_in_place();
	inside_size();
	mapped();
	punch();
	prealloc();
	printf("%s: the rest %.1f s\n", tap_fs, lap());
	if (is_htmpfs())
		CHECK(st("used_bytes") == 0 && st("free_hole_bytes") == 0,
		      "used_bytes %ld, free_hole_bytes %ld at the end",
		      st("used_bytes"), st("free_hole_bytes"));
}

/* The frames of a file's first two pages, from pagemap (root sees them). */
static void frames(int fd, uint64_t pfn[2])
{
	volatile char *p = mmap(NULL, 8 * KB, PROT_READ, MAP_SHARED, fd, 0);
	int pm = MUST(open("/proc/self/pagemap", O_RDONLY));
	uint64_t e;

	MUST(p == MAP_FAILED ? -1 : 0);
	for (int i = 0; i < 2; i++) {
		(void)p[i * 4096];	/* fault it in */
		if (pread(pm, &e, 8, ((uintptr_t)p / 4096 + i) * 8) != 8)
			e = 0;
		pfn[i] = e & (1ULL << 63) ? e & ((1ULL << 55) - 1) : 0;
	}
	close(pm);
	MUST(munmap((void *)p, 8 * KB));
}

/* The data pages of a block given back now live outside it. */
static void block_returned(void)
{
	long blocks0 = st("holes_blocks_returned");
	int fd = MUST(open("block", O_RDWR | O_CREAT | O_TRUNC, 0644));
	uint64_t old[2], new[2];

	put(fd, 5, 0, 8 * KB);
	frames(fd, old);
	CHECK(old[0] && old[0] % 512 == 0 && old[1] == old[0] + 1,
	      "frames %#lx %#lx: not one huge folio", (long)old[0],
	      (long)old[1]);
	shrink();
	CHECK(st("holes_blocks_returned") - blocks0 == 1, "blocks returned +%ld",
	      st("holes_blocks_returned") - blocks0);
	frames(fd, new);
	for (int i = 0; i < 2; i++)
		CHECK(new[i] && (new[i] < old[0] || new[i] >= old[0] + 512),
		      "page %d still at frame %#lx in the old block %#lx", i,
		      (long)new[i], (long)old[0]);
	CHECK(same(fd, 5, 0, 8 * KB), "data changed");
	close(fd);
	MUST(unlink("block"));
}

/* Create files of @size bytes in @dir until @max files or an error. */
static long fill_files(const char *dir, long size, long max, int *err)
{
	unsigned char *buf = malloc(size);
	char name[96];
	long n;
	int fd;

	fill(buf, 6, 0, size);
	*err = 0;
	for (n = 0; n < max; n++) {
		snprintf(name, sizeof(name), "%s/%ld", dir, n);
		fd = open(name, O_RDWR | O_CREAT, 0644);
		if (fd < 0 || pwrite(fd, buf, size, 0) != size) {
			*err = errno;
			if (fd >= 0)
				close(fd);
			break;
		}
		close(fd);
	}
	free(buf);
	return n;
}

/* Files that fill_files() made read back, a sample of them. */
static int files_same(const char *dir, long size, long n)
{
	char name[96];
	int bad = 0, fd;

	for (long i = 0; i < n; i += n / 32 + 1) {
		snprintf(name, sizeof(name), "%s/%ld", dir, i);
		fd = MUST(open(name, O_RDONLY));
		bad += !same(fd, 6, 0, size);
		close(fd);
	}
	return !bad;
}

/*
 * size= full of holes: small files, each first given a huge folio, fill it
 * with data before ENOSPC (without the shrinker: one file per 2 MiB).
 */
static void size_limit(void)
{
	const char *dir = "/mnt/t-holes-size";
	long limit = size_mb * MB, size = size_file_kb * KB, n;
	char opts[64];
	int err;

	mkdir(dir, 0755);
	snprintf(opts, sizeof(opts), "size=%ldm,huge=always", size_mb);
	MUST(mount("none", dir, "hugetmpfs", 0, opts));
	n = fill_files(dir, size, 2 * limit / size, &err);
	printf("size=%ldm: %ld files of %ld KiB before %s\n", size_mb, n,
	       size_file_kb, strerror(err));
	CHECK(err == ENOSPC, "stopped by %s", strerror(err));
	CHECK(n * size >= limit * 15 / 16, "only %ld KiB of data in %ld MiB",
	      n * size / KB, size_mb);
	CHECK(files_same(dir, size, n), "data changed");
	MUST(umount(dir));
}

/*
 * A memory cgroup whose limit is full of holes reclaims them, not the
 * writer: small files fill 3/4 of memory.max (8 MiB: the rest is the
 * writer's own; 15/16 from 256 MiB), where without the shrinker it is
 * OOM-killed after one file per 2 MiB.
 */
static void memcg(void)
{
	const char *cg = "/sys/fs/cgroup/t-holes", *dir = "/mnt/t-holes-memcg";
	long limit = memcg_mb * MB, size = memcg_file_kb * KB, n = 0;
	long want = limit * (memcg_mb >= 64 ? 15 : 12) / 16;
	char path[128], buf[32];
	int pfd[2], status, err;
	pid_t pid;

	write_str("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	rmdir(cg);
	MUST(mkdir(cg, 0755));
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	snprintf(buf, sizeof(buf), "%ld", limit);
	write_str(path, buf);
	mkdir(dir, 0755);
	MUST(mount("none", dir, "hugetmpfs", 0, "huge=always"));
	MUST(pipe(pfd));
	pid = MUST(fork());
	if (!pid) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
		write_str(path, "0");
		n = fill_files(dir, size, want / size, &err);
		if (write(pfd[1], &n, sizeof(n)) != sizeof(n))
			_exit(3);
		_exit(err ? 1 : 0);
	}
	close(pfd[1]);
	if (read(pfd[0], &n, sizeof(n)) != sizeof(n))
		n = -1;
	close(pfd[0]);
	MUST(waitpid(pid, &status, 0));
	snprintf(path, sizeof(path), "%s/memory.peak", cg);
	printf("memory.max=%ldM: %ld files of %ld KiB, memory.peak %ld, writer %s %d\n",
	       memcg_mb, n, memcg_file_kb, read_long(path),
	       WIFSIGNALED(status) ? "killed by signal" :
	       "exit", WIFSIGNALED(status) ? WTERMSIG(status) :
	       WEXITSTATUS(status));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	      n * size >= want, "%ld KiB written in %ld MiB", n * size / KB,
	      memcg_mb);
	CHECK(files_same(dir, size, n > 0 ? n : 0), "data changed");
	MUST(umount(dir));
	MUST(rmdir(cg));
}

/* huge_holes=free: a file's holes go when its last writer closes it. */
static void holes_free(void)
{
	const char *dir = "/mnt/t-holes-free";
	char sys[128];
	int fd, fd2;

	mkdir(dir, 0755);
	MUST(mount("none", dir, "hugetmpfs", 0, "huge=always,huge_holes=free"));
	mount_sysdir(dir, sys, sizeof(sys));
	CHECK(mount_shows(dir, "huge_holes=free"),
	      "/proc/mounts shows huge_holes=free");
	MUST(chdir(dir));
	fd = MUST(open("f", O_RDWR | O_CREAT, 0644));
	fd2 = MUST(open("f", O_RDWR));
	put(fd, 8, 0, 4 * KB);
	close(fd);
	CHECK(mount_stat(sys, "free_hole_bytes") == HUGE - 4 * KB,
	      "holes %ld while a writer has it open",
	      mount_stat(sys, "free_hole_bytes"));
	close(fd2);
	CHECK(mount_stat(sys, "free_hole_bytes") == 0,
	      "holes %ld after the last close", mount_stat(sys, "free_hole_bytes"));
	fd = MUST(open("f", O_RDONLY));
	CHECK(blocks_kb(fd) == 4 && same(fd, 8, 0, 4 * KB),
	      "%ld kB held, or data changed", blocks_kb(fd));
	close(fd);
	/* keep: back to waiting for pressure */
	MUST(mount(NULL, dir, NULL, MS_REMOUNT, "huge_holes=keep"));
	fd = MUST(open("g", O_RDWR | O_CREAT, 0644));
	put(fd, 9, 0, 4 * KB);
	close(fd);
	CHECK(mount_stat(sys, "free_hole_bytes") == HUGE - 4 * KB,
	      "holes %ld kept", mount_stat(sys, "free_hole_bytes"));
	CHECK(mount(NULL, dir, NULL, MS_REMOUNT, "huge_holes=maybe") == -1 &&
	      errno == EINVAL, "huge_holes=maybe: %s", strerror(errno));
	MUST(chdir("/"));
	MUST(umount(dir));
}

static void bad_input(void)
{
	char path[192];
	int fd;

	snprintf(path, sizeof(path), "%s/holes_migrate_max", sysdir);
	CHECK(st("holes_migrate_max") == 64, "default %ld",
	      st("holes_migrate_max"));
	for (const char *bad = "513\0-1\0abc\0"; *bad; bad += strlen(bad) + 1) {
		fd = MUST(open(path, O_WRONLY));
		CHECK(write(fd, bad, strlen(bad)) == -1 && errno == EINVAL,
		      "holes_migrate_max took '%s'", bad);
		close(fd);
	}
	write_str(path, "0");
	CHECK(st("holes_migrate_max") == 0, "set to 0: %ld",
	      st("holes_migrate_max"));
	write_str(path, "64");
}

int main(void)
{
	sizes_from_env();
	MUST(mount(NULL, ".", NULL, MS_REMOUNT, "huge=always"));
	mount_sysdir(".", sysdir, sizeof(sysdir));
	bad_input();
	block_returned();
	on_hugetmpfs_and_tmpfs(body, "huge=always");
	lap();
	size_limit();
	printf("size limit %.1f s\n", lap());
	memcg();
	printf("memcg %.1f s\n", lap());
	holes_free();
	return tap_done("t-holes");
}
