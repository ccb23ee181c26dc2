// SPDX-License-Identifier: GPL-2.0
/*
 * Quotas, kept in memory, as tmpfs has them (usrquota, grpquota and the
 * default hard limits), through quotactl_fd(2): usage is counted per owner
 * (a huge folio counts all it holds until the hole shrinker gives the rest
 * back), limits set by Q_SETQUOTA or by mount option stop writes and
 * creates with EDQUOT without touching the data already there, chown moves
 * the usage, limits outlive the dquot, Q_GETNEXTQUOTA finds them, and bad
 * options fail with EINVAL. hugetmpfs and tmpfs (the reference) in one boot.
 */
#include <fcntl.h>
#include <linux/quota.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/hugetmpfs.h>

#include "stats.h"
#include "tap.h"

#ifndef SYS_quotactl_fd
#define SYS_quotactl_fd 443
#endif

#define KB 1024L
#define MB (1024 * KB)
#define QFMT_SHMEM_ 5

static const char *fs;
static const char *dir = "/mnt/t-quota";

static long qctl(int cmd, int type, int id, void *addr)
{
	int fd = MUST(open(dir, O_RDONLY | O_DIRECTORY));
	long r = syscall(SYS_quotactl_fd, fd, QCMD(cmd, type), id, addr);
	int e = errno;

	close(fd);
	errno = e;
	return r;
}

static struct if_dqblk getq(int type, int id)
{
	struct if_dqblk q = {};

	CHECK(!qctl(Q_GETQUOTA, type, id, &q), "Q_GETQUOTA %d/%d: %s", type,
	      id, strerror(errno));
	return q;
}

static void setlimits(int type, int id, long bhard_kb, long ihard)
{
	struct if_dqblk q = {
		.dqb_bhardlimit = bhard_kb,
		.dqb_ihardlimit = ihard,
		.dqb_valid = QIF_LIMITS,
	};

	CHECK(!qctl(Q_SETQUOTA, type, id, &q), "Q_SETQUOTA %d/%d: %s", type,
	      id, strerror(errno));
}

static void do_mount(const char *opts)
{
	umount(dir);
	mkdir(dir, 0755);
	MUST(mount("none", dir, fs, 0, opts));
	MUST(chmod(dir, 0777));
}

/*
 * As uid and gid @id, write @len bytes of 0x11 * @n to file "f@n";
 * return 0 or the errno of the create or of the write.
 */
static int write_as(int id, int n, long len)
{
	int pfd[2], err = 0;
	pid_t pid;

	MUST(pipe(pfd));
	pid = MUST(fork());
	if (!pid) {
		char path[128], *buf = malloc(len ? len : 1);
		int fd, e = 0;

		close(pfd[0]);
		if (setresgid(id, id, id) || setresuid(id, id, id))
			_exit(2);
		memset(buf, 0x11 * n, len);
		snprintf(path, sizeof(path), "%s/f%d", dir, n);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			e = errno;
		/* Up to the limit, then the error past it. */
		for (long done = 0, r; fd >= 0 && !e && done < len;
		     done += r) {
			r = write(fd, buf + done, len - done);
			if (r <= 0)
				e = r ? errno : EIO;
		}
		if (write(pfd[1], &e, sizeof(e)) != sizeof(e))
			_exit(3);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &err, sizeof(err)) != sizeof(err))
		err = -1;
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	return err;
}

/* File "f@n" holds @len bytes of 0x11 * @n */
static int intact(int n, long len)
{
	char path[128], *buf = malloc(len + 1);
	int fd, ok;
	long got;

	snprintf(path, sizeof(path), "%s/f%d", dir, n);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	got = read(fd, buf, len + 1);
	ok = got == len;
	for (long i = 0; ok && i < len; i++)
		ok = buf[i] == (char)(0x11 * n);
	close(fd);
	free(buf);
	return ok;
}

static void counting(void)
{
	struct if_dqblk q;
	char path[128];
	uint32_t fmt = 0;

	do_mount("usrquota,grpquota,huge=never");
	CHECK(mount_shows(dir, "usrquota") && mount_shows(dir, "grpquota"),
	      "/proc/mounts shows the quotas");
	CHECK(!qctl(Q_GETFMT, USRQUOTA, 0, &fmt), "Q_GETFMT: %s",
	      strerror(errno));
	CHECK(fmt == (strcmp(fs, "tmpfs") ? HUGETMPFS_QFMT : QFMT_SHMEM_),
	      "format %#x", fmt);

	CHECK(write_as(1000, 1, MB) == 0, "uid 1000 writes 1 MiB");
	q = getq(USRQUOTA, 1000);
	CHECK(q.dqb_curspace == (uint64_t)MB && q.dqb_curinodes == 1,
	      "user 1000: %llu bytes, %llu inodes",
	      (unsigned long long)q.dqb_curspace,
	      (unsigned long long)q.dqb_curinodes);
	q = getq(GRPQUOTA, 1000);
	CHECK(q.dqb_curspace == (uint64_t)MB, "group 1000: %llu bytes",
	      (unsigned long long)q.dqb_curspace);

	/* Limits: 2 MiB and 3 inodes. */
	setlimits(USRQUOTA, 1000, 2 * MB / KB, 3);
	q = getq(USRQUOTA, 1000);
	CHECK(q.dqb_bhardlimit == 2 * MB / KB && q.dqb_ihardlimit == 3,
	      "limits read back: %llu KiB, %llu inodes",
	      (unsigned long long)q.dqb_bhardlimit,
	      (unsigned long long)q.dqb_ihardlimit);
	CHECK(write_as(1000, 2, MB) == 0, "a second MiB fits");
	CHECK(write_as(1000, 3, MB) == EDQUOT, "a third MiB: EDQUOT");
	CHECK(write_as(1000, 4, 0) == EDQUOT, "a fourth inode: EDQUOT");
	CHECK(intact(1, MB) && intact(2, MB), "data under the limit intact");
	q = getq(USRQUOTA, 1000);
	CHECK(q.dqb_curspace <= (uint64_t)2 * MB && q.dqb_curinodes == 3,
	      "at the limit: %llu bytes, %llu inodes",
	      (unsigned long long)q.dqb_curspace,
	      (unsigned long long)q.dqb_curinodes);

	/* chown moves the usage to the new owner. */
	snprintf(path, sizeof(path), "%s/f1", dir);
	MUST(chown(path, 1001, 1001));
	q = getq(USRQUOTA, 1001);
	CHECK(q.dqb_curspace == (uint64_t)MB && q.dqb_curinodes == 1,
	      "chown: user 1001 has %llu bytes",
	      (unsigned long long)q.dqb_curspace);
	q = getq(USRQUOTA, 1000);
	CHECK(q.dqb_curinodes == 2, "chown: user 1000 has %llu inodes",
	      (unsigned long long)q.dqb_curinodes);

	/* Limits of an id with no files outlive its dquot. */
	setlimits(USRQUOTA, 2000, 5 * MB / KB, 7);
	{
		struct if_nextdqblk n = {};

		CHECK(!qctl(Q_GETNEXTQUOTA, USRQUOTA, 1500, &n) &&
		      n.dqb_id == 2000 && n.dqb_ihardlimit == 7,
		      "Q_GETNEXTQUOTA from 1500: id %u, %s", n.dqb_id,
		      strerror(errno));
	}
	q = getq(USRQUOTA, 2000);
	CHECK(q.dqb_bhardlimit == 5 * MB / KB, "id 2000 keeps its limit");

	/* Everything removed: no usage left. */
	for (int n = 1; n <= 4; n++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, n);
		unlink(path);
	}
	q = getq(USRQUOTA, 1000);
	CHECK(!q.dqb_curspace && !q.dqb_curinodes,
	      "after unlink: %llu bytes, %llu inodes",
	      (unsigned long long)q.dqb_curspace,
	      (unsigned long long)q.dqb_curinodes);
	MUST(umount(dir));
}

/* Default hard limits from the mount options, for every id. */
static void defaults(void)
{
	struct if_dqblk q;

	do_mount("usrquota,usrquota_block_hardlimit=1m,usrquota_inode_hardlimit=2,huge=never");
	CHECK(mount_shows(dir, "usrquota_block_hardlimit=1048576"),
	      "/proc/mounts shows the block default");
	q = getq(USRQUOTA, 1234);
	CHECK(q.dqb_bhardlimit == MB / KB && q.dqb_ihardlimit == 2,
	      "id 1234 starts with %llu KiB, %llu inodes",
	      (unsigned long long)q.dqb_bhardlimit,
	      (unsigned long long)q.dqb_ihardlimit);
	CHECK(write_as(1234, 1, 512 * KB) == 0, "512 KiB fits");
	CHECK(write_as(1234, 2, 768 * KB) == EDQUOT, "768 more: EDQUOT");
	q = getq(USRQUOTA, 1234);
	CHECK(q.dqb_curspace == (uint64_t)MB, "filled to the limit: %llu",
	      (unsigned long long)q.dqb_curspace);
	CHECK(write_as(1234, 3, 0) == EDQUOT, "a third inode: EDQUOT");
	CHECK(intact(1, 512 * KB), "data under the limit intact");

	/* Remounts may not turn quotas on or change the defaults. */
	errno = 0;
	CHECK(mount(NULL, dir, NULL, MS_REMOUNT,
		    "usrquota_block_hardlimit=2m") == -1 && errno == EINVAL,
	      "remount with a new default: %s", strerror(errno));
	CHECK(!mount(NULL, dir, NULL, MS_REMOUNT,
		     "usrquota_block_hardlimit=1m"),
	      "remount with the same default: %s", strerror(errno));
	MUST(umount(dir));

	do_mount("huge=never");
	errno = 0;
	CHECK(mount(NULL, dir, NULL, MS_REMOUNT, "usrquota") == -1 &&
	      errno == EINVAL, "remount turning quotas on: %s",
	      strerror(errno));
	MUST(umount(dir));
	errno = 0;
	CHECK(mount("none", dir, fs, 0, "usrquota_block_hardlimit=lots") ==
	      -1 && errno == EINVAL, "a bad limit: %s", strerror(errno));
}

/* A huge folio counts what it holds, until its holes go back. */
static void huge(void)
{
	struct if_dqblk q;

	do_mount("usrquota,huge=always");
	CHECK(write_as(1000, 1, 4 * KB) == 0, "4 KiB in a huge folio");
	q = getq(USRQUOTA, 1000);
	printf("%s: 4 KiB file under huge=always: %llu bytes counted\n", fs,
	       (unsigned long long)q.dqb_curspace);
	if (!strcmp(fs, "hugetmpfs"))
		CHECK(q.dqb_curspace == 2 * MB, "huge folio: %llu bytes",
		      (unsigned long long)q.dqb_curspace);
	/* The hole shrinker (drop_caches 2) gives back the rest. */
	{
		int fd = MUST(open("/proc/sys/vm/drop_caches", O_WRONLY));

		CHECK(write(fd, "2", 1) == 1, "drop_caches");
		close(fd);
	}
	q = getq(USRQUOTA, 1000);
	printf("%s: after drop_caches: %llu bytes counted\n", fs,
	       (unsigned long long)q.dqb_curspace);
	if (!strcmp(fs, "hugetmpfs"))
		CHECK(q.dqb_curspace == 4 * KB, "after the shrink: %llu bytes",
		      (unsigned long long)q.dqb_curspace);
	CHECK(intact(1, 4 * KB), "data intact");

	/* Under a limit below 2 MiB, a write falls back to small pages. */
	setlimits(USRQUOTA, 1000, MB / KB, 0);
	CHECK(write_as(1000, 2, 64 * KB) == 0, "64 KiB under a 1 MiB limit");
	CHECK(intact(2, 64 * KB), "its data");
	MUST(umount(dir));
}

int main(void)
{
	static const char *const fss[] = { "hugetmpfs", "tmpfs" };

	for (int i = 0; i < 2; i++) {
		fs = tap_fs = fss[i];
		printf("-- %s\n", fs);
		counting();
		defaults();
		huge();
	}
	return tap_done("t-quota");
}
