// SPDX-License-Identifier: GPL-2.0
/*
 * NUMA placement (the guest has two nodes): the mpol= mount option and
 * mbind() on a shared mapping put a file's pages, huge and small, where the
 * policy says, asked page by page with move_pages(2). mpol= shows in
 * /proc/mounts; a remount changes it for new files only; a policy set by
 * mbind() belongs to the file, so write(2) from a process that never mapped
 * it follows it too. Bad policies fail with EINVAL and change nothing.
 * hugetmpfs and tmpfs (the reference) in the same boot.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stats.h"
#include "tap.h"

#define MB (1024L * 1024)
#define PAGE 4096L
#define MPOL_BIND_ 2		/* linux/mempolicy.h, without libnuma */

static const char *fs;
static const char *dir = "/mnt/t-mpol";

static void do_mount(const char *opts)
{
	umount(dir);
	mkdir(dir, 0755);
	MUST(mount("none", dir, fs, 0, opts));
}

/*
 * Count on which node each page of [@p, @p + @len) is (faulted in first),
 * into @on[0] and @on[1]; pages elsewhere or not present into @on[2].
 */
static void where(char *p, long len, long on[3])
{
	long n = len / PAGE;
	void **pages = calloc(n, sizeof(*pages));
	int *status = calloc(n, sizeof(*status));
	volatile char c;

	on[0] = on[1] = on[2] = 0;
	for (long i = 0; i < n; i++) {
		c = p[i * PAGE];
		(void)c;
		pages[i] = p + i * PAGE;
	}
	MUST(syscall(SYS_move_pages, 0, n, pages, NULL, status, 0));
	for (long i = 0; i < n; i++)
		on[status[i] == 0 || status[i] == 1 ? status[i] : 2]++;
	free(pages);
	free(status);
}

/* Write @len bytes to a new file @name, map it, and count its nodes. */
static void file_on(const char *name, long len, long on[3])
{
	char path[128], *buf = malloc(len), *p;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(buf, 0x5a, len);
	fd = MUST(open(path, O_RDWR | O_CREAT | O_TRUNC, 0644));
	CHECK(pwrite(fd, buf, len, 0) == len, "%s: write", name);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "%s: mmap", name);
	if (p != MAP_FAILED) {
		where(p, len, on);
		CHECK(!memcmp(p, buf, len), "%s: data", name);
		munmap(p, len);
	}
	close(fd);
	free(buf);
}

static void placement(const char *huge)
{
	char opts[128];
	long on[3];

	/* bind and prefer: every page on the node named. */
	for (int node = 0; node < 2; node++) {
		snprintf(opts, sizeof(opts), "huge=%s,size=64m,mpol=bind:%d",
			 huge, node);
		do_mount(opts);
		file_on("b", 8 * MB, on);
		CHECK(on[node] == 8 * MB / PAGE,
		      "%s: bind:%d: %ld pages there, %ld and %ld elsewhere",
		      huge, node, on[node], on[!node], on[2]);
		snprintf(opts, sizeof(opts), "bind:%d", node);
		CHECK(mount_shows(dir, opts), "%s: /proc/mounts shows mpol=%s", huge,
		      opts);
		snprintf(opts, sizeof(opts), "huge=%s,mpol=prefer:%d", huge,
			 node);
		do_mount(opts);
		file_on("p", 4 * MB, on);
		CHECK(on[node] == 4 * MB / PAGE,
		      "%s: prefer:%d: %ld pages there, %ld elsewhere", huge,
		      node, on[node], on[!node] + on[2]);
	}

	/* interleave: both nodes, by page or by huge folio. */
	snprintf(opts, sizeof(opts), "huge=%s,mpol=interleave:0-1", huge);
	do_mount(opts);
	file_on("i", 16 * MB, on);
	CHECK(on[0] >= 4 * MB / PAGE && on[1] >= 4 * MB / PAGE && !on[2],
	      "%s: interleave: %ld and %ld pages", huge, on[0], on[1]);

	/* A remount: new files follow, the old one keeps its policy. */
	snprintf(opts, sizeof(opts), "huge=%s,mpol=bind:1", huge);
	do_mount(opts);
	file_on("old", 2 * MB, on);
	MUST(mount(NULL, dir, NULL, MS_REMOUNT, "mpol=bind:0"));
	CHECK(mount_shows(dir, "mpol=bind:0"), "%s: remount shows bind:0", huge);
	file_on("new", 2 * MB, on);
	CHECK(on[0] == 2 * MB / PAGE, "%s: after remount: new file on 0: %ld",
	      huge, on[0]);
	{
		char path[128], *buf = calloc(1, 2 * MB), *p;
		int fd;

		snprintf(path, sizeof(path), "%s/old", dir);
		fd = MUST(open(path, O_RDWR));
		CHECK(pwrite(fd, buf, 2 * MB, 2 * MB) == 2 * MB, "grow old");
		p = mmap(NULL, 4 * MB, PROT_READ, MAP_SHARED, fd, 0);
		if (p != MAP_FAILED) {
			where(p + 2 * MB, 2 * MB, on);
			CHECK(on[1] == 2 * MB / PAGE,
			      "%s: old file keeps bind:1: %ld on 1", huge,
			      on[1]);
			munmap(p, 4 * MB);
		}
		close(fd);
		free(buf);
	}

	/*
	 * A remount to "default" returns to it, and shows nothing; tmpfs
	 * keeps the policy it had (its remount only takes a new one).
	 */
	MUST(mount(NULL, dir, NULL, MS_REMOUNT, "mpol=default"));
	if (!strcmp(fs, "hugetmpfs"))
		CHECK(!mount_shows(dir, "mpol="), "%s: mpol=default is not shown",
		      huge);
	else
		printf("tmpfs: after remount mpol=default, mpol= %s\n",
		       mount_shows(dir, "mpol=bind:0") ? "still bind:0" : "gone");
	umount(dir);
}

/* mbind() on a shared mapping sets the file's policy for that range. */
static void mbind_file(const char *huge)
{
	char opts[64], path[128], *p, *buf = malloc(4 * MB);
	unsigned long mask;
	long on[3];
	int fd;

	snprintf(opts, sizeof(opts), "huge=%s", huge);
	do_mount(opts);
	snprintf(path, sizeof(path), "%s/m", dir);
	fd = MUST(open(path, O_RDWR | O_CREAT | O_TRUNC, 0644));
	MUST(ftruncate(fd, 8 * MB));
	for (int node = 0; node < 2; node++) {
		long off = node * 4 * MB;

		p = mmap(NULL, 4 * MB, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 off);
		CHECK(p != MAP_FAILED, "mmap");
		if (p == MAP_FAILED)
			continue;
		mask = 1UL << node;
		CHECK(!syscall(SYS_mbind, p, 4 * MB, MPOL_BIND_, &mask, 64, 0),
		      "%s: mbind to node %d: %s", huge, node, strerror(errno));
		munmap(p, 4 * MB);
	}
	/* Written by a child that never mapped it: the file's policy. */
	if (!fork()) {
		memset(buf, 0xa5, 4 * MB);
		_exit(pwrite(fd, buf, 4 * MB, 0) != 4 * MB ||
		      pwrite(fd, buf, 4 * MB, 4 * MB) != 4 * MB);
	}
	{
		int st;

		wait(&st);
		CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "child's writes");
	}
	p = mmap(NULL, 8 * MB, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "mmap all");
	if (p != MAP_FAILED) {
		where(p, 4 * MB, on);
		CHECK(on[0] == 4 * MB / PAGE, "%s: first half on 0: %ld, %ld",
		      huge, on[0], on[1]);
		where(p + 4 * MB, 4 * MB, on);
		CHECK(on[1] == 4 * MB / PAGE, "%s: second half on 1: %ld, %ld",
		      huge, on[1], on[0]);
		memset(buf, 0xa5, 4 * MB);
		CHECK(!memcmp(p, buf, 4 * MB) && !memcmp(p + 4 * MB, buf, 4 * MB),
		      "%s: data", huge);
		munmap(p, 8 * MB);
	}
	close(fd);
	free(buf);
	umount(dir);
}

/* Bad policies: EINVAL, and the mount keeps what it had. */
static void bad(void)
{
	static const char *const bads[] = {
		"mpol=bind:7", "mpol=bind:", "mpol=frob", "mpol=interleave:0-9",
		"mpol=local:0", "mpol=bind:0=wobbly",
	};

	do_mount("mpol=bind:1");
	for (unsigned int i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		errno = 0;
		CHECK(mount("none", "/mnt/t-mpol-bad", fs, 0, bads[i]) == -1 &&
		      errno == EINVAL,
		      "mount -o %s: %s", bads[i], strerror(errno));
		errno = 0;
		CHECK(mount(NULL, dir, NULL, MS_REMOUNT, bads[i]) == -1 &&
		      errno == EINVAL, "remount -o %s: %s", bads[i],
		      strerror(errno));
	}
	CHECK(mount_shows(dir, "mpol=bind:1"), "bad remounts left mpol=bind:1");
	umount(dir);
}

int main(void)
{
	static const char *const fss[] = { "hugetmpfs", "tmpfs" };

	if (access("/sys/devices/system/node/node1", F_OK)) {
		printf("one NUMA node only: nothing to place\n");
		return 77;
	}
	mkdir("/mnt/t-mpol-bad", 0755);
	for (int i = 0; i < 2; i++) {
		fs = tap_fs = fss[i];
		printf("-- %s\n", fs);
		placement("always");
		placement("never");
		mbind_file("always");
		mbind_file("never");
		bad();
	}
	return tap_done("t-mpol");
}
