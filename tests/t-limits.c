// SPDX-License-Identifier: GPL-2.0
/*
 * Space limits, the same on hugetmpfs and on tmpfs in this boot: size= and
 * nr_blocks= in statfs, ENOSPC from write, fallocate and (as SIGBUS) from a
 * page fault, with the file left consistent; a 2 MiB folio costs 512 blocks;
 * space comes back on truncate and unlink; remount below use is refused;
 * EFBIG past the file size limit and RLIMIT_FSIZE.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "tap.h"
#include "stats.h"

#define MB (1024L * 1024)
#define LIMIT (8 * MB)
#define BLOCKS (LIMIT / 4096)

static const char *fs;
static sigjmp_buf jump;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(jump, 1);
}

static long used_blocks(void)
{
	struct statfs s;

	MUST(statfs(".", &s));
	return s.f_blocks - s.f_bfree;
}

static unsigned char pattern(long off)
{
	return (off * 2654435761u) >> 13;
}

/* Fill "f" by write(2) until ENOSPC; it must hold exactly what fitted. */
static void fill_by_write(void)
{
	unsigned char *buf = malloc(MB), *back = malloc(MB);
	long total = 0, n = 0;
	struct stat st;
	int fd, err = 0;

	fd = MUST(open("f", O_RDWR | O_CREAT | O_TRUNC, 0644));
	for (int i = 0; i < 16; i++) {
		for (long j = 0; j < MB; j++)
			buf[j] = pattern(total + j);
		n = write(fd, buf, MB);
		if (n < 0) {
			err = errno;
			break;
		}
		total += n;
		if (n < MB)	/* short: the next one must fail */
			continue;
	}
	CHECK(err == ENOSPC, "%s: write past size= fails with ENOSPC (%s)",
	      fs, strerror(err));
	CHECK(total == LIMIT, "%s: %ld bytes written, size= is %ld", fs, total,
	      LIMIT);
	MUST(fstat(fd, &st));
	CHECK(st.st_size == total, "%s: size %ld after ENOSPC, wrote %ld", fs,
	      (long)st.st_size, total);
	CHECK(used_blocks() == BLOCKS, "%s: statfs used %ld, expected %ld", fs,
	      used_blocks(), BLOCKS);
	for (long off = 0; off < total; off += MB) {
		CHECK(pread(fd, back, MB, off) == MB, "%s: read back", fs);
		for (long j = 0; j < MB; j++)
			if (back[j] != pattern(off + j)) {
				CHECK(0, "%s: data differs at %ld", fs, off + j);
				break;
			}
	}
	/* Truncating gives space back, at once. */
	MUST(ftruncate(fd, MB));
	CHECK(used_blocks() == MB / 4096, "%s: used %ld after truncate to 1M",
	      fs, used_blocks());
	close(fd);
	MUST(unlink("f"));
	CHECK(used_blocks() == 0, "%s: used %ld after unlink", fs,
	      used_blocks());
	free(buf);
	free(back);
}

/* Touch a sparse mapping until the space runs out: SIGBUS, nothing lost. */
static void fill_by_fault(void)
{
	volatile long touched = 0;
	struct sigaction sa = { .sa_handler = on_sigbus };
	volatile char *p;
	int fd;

	sigaction(SIGBUS, &sa, NULL);
	fd = MUST(open("g", O_RDWR | O_CREAT | O_TRUNC, 0644));
	MUST(ftruncate(fd, 4 * LIMIT));
	p = mmap(NULL, 4 * LIMIT, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "%s: mmap", fs);
	if (p == MAP_FAILED)
		return;
	if (!sigsetjmp(jump, 1)) {
		for (long off = 0; off < 4 * LIMIT; off += 4096) {
			p[off] = 1;
			touched++;
		}
	}
	CHECK(touched < 4 * LIMIT / 4096, "%s: SIGBUS when space ran out", fs);
	CHECK(used_blocks() == BLOCKS, "%s: used %ld after SIGBUS, expected %ld",
	      fs, used_blocks(), BLOCKS);
	for (long off = 0; off < touched * 4096; off += 4096)
		if (p[off] != 1) {
			CHECK(0, "%s: page at %ld lost its data", fs, off);
			break;
		}
	munmap((void *)p, 4 * LIMIT);
	close(fd);
	MUST(unlink("g"));
	signal(SIGBUS, SIG_DFL);
}

static void remount(const char *opts)
{
	MUST(mount("none", ".", NULL, MS_REMOUNT, opts));
}

static void one_fs(void)
{
	struct statfs s;
	struct rlimit rl = { MB, MB };
	char c = 'x';
	int fd;

	MUST(statfs(".", &s));
	CHECK(s.f_blocks == BLOCKS && s.f_bfree == BLOCKS &&
	      s.f_bavail == BLOCKS, "%s: statfs %ld/%ld/%ld blocks", fs,
	      (long)s.f_blocks, (long)s.f_bfree, (long)s.f_bavail);

	fill_by_write();
	fill_by_fault();

	/* A huge folio costs 512 blocks; giving it back returns them all. */
	remount("huge=always");
	fd = MUST(open("h", O_RDWR | O_CREAT | O_TRUNC, 0644));
	CHECK(write(fd, &c, 1) == 1, "%s: write 1 byte", fs);
	CHECK(used_blocks() == 512, "%s huge=always: 1 byte uses %ld blocks",
	      fs, used_blocks());
	MUST(ftruncate(fd, 0));
	CHECK(used_blocks() == 0, "%s: %ld blocks used after truncate to 0",
	      fs, used_blocks());

	/* fallocate bigger than the mount fails and allocates nothing. */
	errno = 0;
	CHECK(fallocate(fd, 0, 0, 2 * LIMIT) < 0 && errno == ENOSPC,
	      "%s: fallocate past size=: %s", fs, strerror(errno));
	CHECK(used_blocks() == 0, "%s: %ld blocks used after failed fallocate",
	      fs, used_blocks());
	CHECK(fallocate(fd, 0, 0, LIMIT) == 0, "%s: fallocate all of it", fs);
	CHECK(used_blocks() == BLOCKS, "%s: %ld blocks after fallocate", fs,
	      used_blocks());
	errno = 0;
	CHECK(pwrite(fd, &c, 1, LIMIT + 4096) < 0 && errno == ENOSPC,
	      "%s: write into a full mount: %s", fs, strerror(errno));

	/* Remount: not below what is in use; larger is fine. */
	CHECK(mount("none", ".", NULL, MS_REMOUNT, "size=4m") < 0 &&
	      errno == EINVAL, "%s: remount size=4m below use refused", fs);
	remount("size=16m");
	MUST(statfs(".", &s));
	CHECK(s.f_blocks == 2 * BLOCKS, "%s: %ld blocks after size=16m", fs,
	      (long)s.f_blocks);
	remount("nr_blocks=3000");
	MUST(statfs(".", &s));
	CHECK(s.f_blocks == 3000, "%s: %ld blocks after nr_blocks=3000", fs,
	      (long)s.f_blocks);
	remount("size=" "8m");
	close(fd);
	MUST(unlink("h"));

	/* File size limits. */
	fd = MUST(open("e", O_RDWR | O_CREAT | O_TRUNC, 0644));
	/* The last byte of the largest file (s_maxbytes) can be written. */
	CHECK(pwrite(fd, &c, 1, 0x7ffffffffffffffeL) == 1,
	      "%s: write the last possible byte: %s", fs, strerror(errno));
	CHECK(lseek(fd, 0, SEEK_END) == 0x7fffffffffffffffL,
	      "%s: size after writing the last byte", fs);
	MUST(ftruncate(fd, 0));
	signal(SIGXFSZ, SIG_IGN);
	MUST(setrlimit(RLIMIT_FSIZE, &rl));
	errno = 0;
	CHECK(pwrite(fd, &c, 1, MB) < 0 && errno == EFBIG,
	      "%s: write past RLIMIT_FSIZE: %s", fs, strerror(errno));
	errno = 0;
	CHECK(ftruncate(fd, 2 * MB) < 0 && errno == EFBIG,
	      "%s: truncate past RLIMIT_FSIZE: %s", fs, strerror(errno));
	rl.rlim_cur = rl.rlim_max = RLIM_INFINITY;
	MUST(setrlimit(RLIMIT_FSIZE, &rl));
	close(fd);
	MUST(unlink("e"));
}

static void percent_matches(void)
{
	struct statfs a, b;

	for (int pct = 1; pct <= 100; pct += 33) {
		char opts[32];

		snprintf(opts, sizeof(opts), "size=%d%%", pct);
		MUST(mount("none", "/mnt/t-limits-ht", "hugetmpfs", 0, opts));
		MUST(mount("none", "/mnt/t-limits-tmp", "tmpfs", 0, opts));
		MUST(statfs("/mnt/t-limits-ht", &a));
		MUST(statfs("/mnt/t-limits-tmp", &b));
		CHECK(a.f_blocks == b.f_blocks,
		      "%s: %ld blocks on hugetmpfs, %ld on tmpfs", opts,
		      (long)a.f_blocks, (long)b.f_blocks);
		MUST(umount("/mnt/t-limits-ht"));
		MUST(umount("/mnt/t-limits-tmp"));
	}
}

/*
 * Hard links count against nr_inodes= as tmpfs counts them (each after a
 * file's first), and long symlink bodies against size=; both come back.
 */
static void links_and_symlinks(const char *dir)
{
	char name[64], body[200];
	int n, fd;

	MUST(mount("none", dir, fs, 0, "nr_inodes=20,size=64k"));
	MUST(chdir(dir));
	fd = MUST(open("f", O_RDWR | O_CREAT, 0644));
	close(fd);
	for (n = 0; n < 100; n++) {
		snprintf(name, sizeof(name), "l%d", n);
		if (link("f", name))
			break;
	}
	/* 20 inodes: the root and "f" leave 18. */
	CHECK(n == 18 && errno == ENOSPC, "%s: %d links, then %s", fs, n,
	      strerror(errno));
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "l%d", i);
		MUST(unlink(name));
	}
	for (n = 0; n < 100; n++) {
		snprintf(name, sizeof(name), "n%d", n);
		fd = open(name, O_RDWR | O_CREAT, 0644);
		if (fd < 0)
			break;
		close(fd);
	}
	CHECK(n == 18, "%s: %d new files after removing the links", fs, n);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		MUST(unlink(name));
	}

	/* A body over 128 bytes takes a page: 16 of them fill 64k. */
	memset(body, 'b', sizeof(body) - 1);
	body[sizeof(body) - 1] = 0;
	for (n = 0; n < 17; n++) {
		snprintf(name, sizeof(name), "s%d", n);
		if (symlink(body, name))
			break;
	}
	CHECK(n == 16 && errno == ENOSPC, "%s: %d long symlinks, then %s", fs,
	      n, strerror(errno));
	CHECK(symlink("short", "short") == 0, "%s: short symlink: %s", fs,
	      strerror(errno));
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		MUST(unlink(name));
	}
	CHECK(pwrite(fd = MUST(open("f", O_RDWR)), body, 1, 60 * 1024) == 1,
	      "%s: the symlinks' space came back: %s", fs, strerror(errno));
	close(fd);
	MUST(unlink("f"));
	MUST(unlink("short"));
	MUST(chdir("/"));
	MUST(umount(dir));
}

static long cg_current(const char *cg)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/memory.current", cg);
	return read_long(path);
}

static void cg_join(const char *cg)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	f = fopen(path, "w");
	CHECK(f && fprintf(f, "%d\n", getpid()) > 0 && !fclose(f),
	      "join %s", cg);
}

/* Symlink bodies are charged to the creator's memory cgroup. */
static void symlink_memcg(const char *dir)
{
	const char *cg = "/sys/fs/cgroup/t-limits";
	FILE *ctl = fopen("/sys/fs/cgroup/cgroup.subtree_control", "w");
	char name[64], body[4000];
	long before;
	int n = 256;

	if (ctl) {
		fputs("+memory", ctl);
		fclose(ctl);
	}
	MUST(mount("none", dir, fs, 0, "size=64m"));
	MUST(chdir(dir));
	memset(body, 'm', sizeof(body) - 1);
	body[sizeof(body) - 1] = 0;
	MUST(mkdir(cg, 0755));
	cg_join(cg);
	before = cg_current(cg);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		MUST(symlink(body, name));
	}
	/* 4 KiB a body; inodes and dentries come on top. */
	CHECK(cg_current(cg) - before >= n * 4096L,
	      "%s: %d symlinks of 4000 bytes charged %ld bytes", fs, n,
	      cg_current(cg) - before);
	printf("%s: %d symlinks of 4000 bytes charged %ld bytes\n", fs, n,
	       cg_current(cg) - before);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		MUST(unlink(name));
	}
	cg_join("/sys/fs/cgroup");
	MUST(chdir("/"));
	MUST(umount(dir));
	rmdir(cg);
}

int main(void)
{
	static const char * const types[] = { "hugetmpfs", "tmpfs" };

	mkdir("/mnt/t-limits-ht", 0755);
	mkdir("/mnt/t-limits-tmp", 0755);
	for (int i = 0; i < 2; i++) {
		const char *dir = i ? "/mnt/t-limits-tmp" : "/mnt/t-limits-ht";

		fs = types[i];
		MUST(mount("none", dir, fs, 0, "size=8m,huge=within_size"));
		MUST(chdir(dir));
		one_fs();
		MUST(chdir("/"));
		MUST(umount(dir));
		links_and_symlinks(dir);
		symlink_memcg(dir);
	}
	percent_matches();
	return tap_done("t-limits");
}
