// SPDX-License-Identifier: GPL-2.0
/*
 * File attributes as tmpfs has them: chattr flags (immutable, append-only,
 * nodump, noatime) set through FS_IOC_SETFLAGS and FS_IOC_FSSETXATTR and
 * enforced on every path, inherited from directories, refused for flags
 * that do not exist here and for users without the capability; statx birth
 * time and attributes; and the filesystem identity ioctls
 * (FS_IOC_GETFSUUID, FS_IOC_GETFSSYSFSPATH); a write, fallocate or truncate
 * by a user without CAP_FSETID drops suid and sgid, and any write drops
 * security.capability, also after earlier writes found nothing to drop
 * (the VFS then caches that in S_NOSEC). Each on hugetmpfs, then on tmpfs
 * in the same boot.
 */
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "stats.h"

/* Newer than the host's headers */
#ifndef FS_IOC_GETFSUUID
struct fsuuid2 {
	__u8 len;
	__u8 uuid[16];
};
#define FS_IOC_GETFSUUID	_IOR(0x15, 0, struct fsuuid2)
#endif
#ifndef FS_IOC_GETFSSYSFSPATH
struct fs_sysfs_path {
	__u8 len;
	__u8 name[128];
};
#define FS_IOC_GETFSSYSFSPATH	_IOR(0x15, 1, struct fs_sysfs_path)
#endif

static int getflags(const char *path)
{
	int fd = open(path, O_RDONLY), flags = -1;

	if (fd >= 0) {
		if (ioctl(fd, FS_IOC_GETFLAGS, &flags))
			flags = -1;
		close(fd);
	}
	return flags;
}

/* chattr: 0 or the errno */
static int setflags(const char *path, int flags)
{
	int fd = open(path, O_RDONLY), err = 0;

	if (fd < 0)
		return errno;
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags))
		err = errno;
	close(fd);
	return err;
}

/* The errno of a call that returned -1, or 0 */
#define ERR(call) ((call) == -1 ? errno : 0)

static void make(const char *path, const char *data)
{
	int fd = MUST(open(path, O_RDWR | O_CREAT | O_TRUNC, 0644));

	MUST(write(fd, data, strlen(data)));
	close(fd);
}

static void immutable(void)
{
	struct timespec ts[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	int fd, before;
	char buf[16];
	void *p;

	make("imm", "immutable");
	before = MUST(open("imm", O_RDWR));
	CHECK(setflags("imm", FS_IMMUTABLE_FL) == 0, "chattr +i");
	CHECK(getflags("imm") == FS_IMMUTABLE_FL, "lsattr: %#x",
	      getflags("imm"));

	CHECK(ERR(open("imm", O_WRONLY)) == EPERM, "open for write");
	CHECK(ERR(open("imm", O_RDONLY | O_TRUNC)) == EPERM, "O_TRUNC");
	CHECK(ERR(truncate("imm", 0)) == EPERM, "truncate");
	/* ext4 and xfs refuse these too; tmpfs lets them through. */
	if (strcmp(tap_fs, "tmpfs")) {
		CHECK(ERR(ftruncate(before, 0)) == EPERM, "ftruncate, old fd");
		CHECK(ERR(pwrite(before, "X", 1, 0)) == EPERM, "write, old fd");
	}
	CHECK(ERR(fallocate(before, 0, 0, 4096)) == EPERM, "fallocate");
	CHECK(ERR(fallocate(before, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			    0, 4096)) == EPERM, "punch");
	CHECK(ERR(unlink("imm")) == EPERM, "unlink");
	CHECK(ERR(rename("imm", "imm2")) == EPERM, "rename");
	CHECK(ERR(link("imm", "imm2")) == EPERM, "link");
	CHECK(ERR(chmod("imm", 0600)) == EPERM, "chmod");
	CHECK(ERR(chown("imm", 1, 1)) == EPERM, "chown");
	CHECK(ERR(utimensat(AT_FDCWD, "imm", ts, 0)) == EPERM, "utimes");
	CHECK(ERR(setxattr("imm", "user.a", "1", 1, 0)) == EPERM, "setxattr");
	CHECK(ERR(setxattr("imm", "trusted.a", "1", 1, 0)) == EPERM,
	      "setxattr trusted");
	fd = MUST(open("imm", O_RDONLY));
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p == MAP_FAILED && errno == EACCES, "shared writable mmap");
	CHECK(pread(fd, buf, 9, 0) == 9 && !memcmp(buf, "immutable", 9),
	      "read");
	close(fd);

	CHECK(setflags("imm", 0) == 0, "chattr -i");
	CHECK(pwrite(before, "I", 1, 0) == 1, "write after chattr -i");
	close(before);
	CHECK(unlink("imm") == 0, "unlink after chattr -i");

	/* An immutable directory takes no new names. */
	MUST(mkdir("idir", 0755));
	make("idir/old", "x");
	CHECK(setflags("idir", FS_IMMUTABLE_FL) == 0, "chattr +i dir");
	CHECK(ERR(open("idir/new", O_RDWR | O_CREAT, 0644)) == EPERM,
	      "create in an immutable dir");
	CHECK(ERR(mkdir("idir/sub", 0755)) == EPERM, "mkdir in it");
	CHECK(ERR(unlink("idir/old")) == EPERM, "unlink in it");
	CHECK(setflags("idir", 0) == 0, "chattr -i dir");
	MUST(unlink("idir/old"));
	MUST(rmdir("idir"));
}

static void append_only(void)
{
	char buf[32] = "";
	struct stat st;
	int fd;
	void *p;

	make("app", "0123");
	CHECK(setflags("app", FS_APPEND_FL) == 0, "chattr +a");
	CHECK(ERR(open("app", O_WRONLY)) == EPERM, "open without O_APPEND");
	CHECK(ERR(truncate("app", 1)) == EPERM, "truncate");
	fd = open("app", O_RDWR | O_APPEND);
	CHECK(fd >= 0, "open O_APPEND: %s", strerror(errno));
	if (fd < 0)
		return;
	CHECK(pwrite(fd, "45", 2, 0) == 2, "pwrite");
	CHECK(pread(fd, buf, sizeof(buf), 0) == 6 && !memcmp(buf, "012345", 6),
	      "pwrite at 0 appended: '%s'", buf);
	CHECK(ERR(ftruncate(fd, 0)) == EPERM, "ftruncate");
	CHECK(ERR(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			    0, 4096)) == EPERM, "punch");
	CHECK(ERR(fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 8192)) == 0,
	      "preallocation");
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p == MAP_FAILED && errno == EACCES, "shared writable mmap");
	CHECK(ERR(unlink("app")) == EPERM, "unlink");
	CHECK(ERR(rename("app", "app2")) == EPERM, "rename");
	CHECK(ERR(setxattr("app", "user.a", "1", 1, 0)) == EPERM, "setxattr");
	close(fd);
	MUST(stat("app", &st));
	CHECK(st.st_size == 6, "size %ld", (long)st.st_size);
	CHECK(setflags("app", 0) == 0, "chattr -a");
	MUST(unlink("app"));

	/* An append-only directory: names come, never go. */
	MUST(mkdir("adir", 0755));
	CHECK(setflags("adir", FS_APPEND_FL) == 0, "chattr +a dir");
	fd = open("adir/f", O_RDWR | O_CREAT, 0644);
	CHECK(fd >= 0, "create in an append-only dir: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	CHECK(ERR(unlink("adir/f")) == EPERM, "unlink in it");
	CHECK(setflags("adir", 0) == 0, "chattr -a dir");
	unlink("adir/f");
	MUST(rmdir("adir"));
}

static void others(void)
{
	struct timespec old[2] = { { 1000, 0 }, { 0, UTIME_OMIT } };
	struct fsxattr fsx;
	struct statx stx;
	struct stat st;
	char buf[8];
	int fd, status;
	pid_t pid;

	/* noatime: a read leaves an old atime alone; without it, relatime. */
	make("na", "data");
	CHECK(setflags("na", FS_NOATIME_FL) == 0, "chattr +A");
	MUST(utimensat(AT_FDCWD, "na", old, 0));
	fd = MUST(open("na", O_RDONLY));
	MUST(read(fd, buf, 4));
	close(fd);
	MUST(stat("na", &st));
	CHECK(st.st_atime == 1000, "noatime: atime %ld", (long)st.st_atime);
	CHECK(setflags("na", 0) == 0, "chattr -A");
	fd = MUST(open("na", O_RDONLY));
	MUST(read(fd, buf, 4));
	close(fd);
	MUST(stat("na", &st));
	CHECK(st.st_atime > 1000, "atime not updated without noatime");

	/* nodump, seen by statx too; through the xfs-style ioctl as well. */
	CHECK(setflags("na", FS_NODUMP_FL) == 0, "chattr +d");
	CHECK(statx(AT_FDCWD, "na", 0, STATX_BASIC_STATS, &stx) == 0 &&
	      (stx.stx_attributes & STATX_ATTR_NODUMP) &&
	      (stx.stx_attributes_mask & STATX_ATTR_IMMUTABLE),
	      "statx attributes %#llx mask %#llx",
	      (unsigned long long)stx.stx_attributes,
	      (unsigned long long)stx.stx_attributes_mask);
	fd = MUST(open("na", O_RDONLY));
	CHECK(ioctl(fd, FS_IOC_FSGETXATTR, &fsx) == 0 &&
	      fsx.fsx_xflags == FS_XFLAG_NODUMP, "FSGETXATTR %#x",
	      fsx.fsx_xflags);
	fsx.fsx_xflags = FS_XFLAG_NOATIME;
	CHECK(ioctl(fd, FS_IOC_FSSETXATTR, &fsx) == 0, "FSSETXATTR: %s",
	      strerror(errno));
	CHECK(getflags("na") == FS_NOATIME_FL, "flags after FSSETXATTR %#x",
	      getflags("na"));
	fsx.fsx_extsize = 1 << 20;
	CHECK(ioctl(fd, FS_IOC_FSSETXATTR, &fsx) == -1 &&
	      errno == EOPNOTSUPP, "FSSETXATTR extsize: %s", strerror(errno));
	close(fd);

	/* Flags this filesystem has not got, whole and in part. */
	CHECK(setflags("na", FS_COMPR_FL) == EOPNOTSUPP, "chattr +c");
	CHECK(setflags("na", FS_NODUMP_FL | FS_SYNC_FL) == EOPNOTSUPP,
	      "chattr +dS");
	CHECK(getflags("na") == FS_NOATIME_FL, "refused change half done: %#x",
	      getflags("na"));

	/* On a FIFO the ioctl is the pipe's business, not the filesystem's. */
	MUST(mkfifo("fifo", 0644));
	fd = MUST(open("fifo", O_RDONLY | O_NONBLOCK));
	CHECK(ioctl(fd, FS_IOC_GETFLAGS, &status) == -1 && errno == ENOTTY,
	      "FS_IOC_GETFLAGS on a FIFO: %s", strerror(errno));
	close(fd);
	MUST(unlink("fifo"));

	/* A directory passes nodump and noatime on, not the rest. */
	MUST(mkdir("inh", 0755));
	CHECK(setflags("inh", FS_NODUMP_FL | FS_NOATIME_FL | FS_APPEND_FL) == 0,
	      "chattr +dAa dir");
	make("inh/f", "x");
	MUST(mkdir("inh/d", 0755));
	CHECK(getflags("inh/f") == (FS_NODUMP_FL | FS_NOATIME_FL),
	      "new file's flags %#x", getflags("inh/f"));
	CHECK(getflags("inh/d") == (FS_NODUMP_FL | FS_NOATIME_FL),
	      "new dir's flags %#x", getflags("inh/d"));
	CHECK(setflags("inh", 0) == 0, "chattr = dir");
	MUST(unlink("inh/f"));
	MUST(rmdir("inh/d"));
	MUST(rmdir("inh"));

	/* The owner may set nodump, only CAP_LINUX_IMMUTABLE +i and +a. */
	MUST(chown("na", 1000, 1000));
	pid = MUST(fork());
	if (!pid) {
		if (setgid(1000) || setuid(1000))
			_exit(2);
		_exit((setflags("na", FS_NODUMP_FL) == 0 ? 0 : 4) |
		      (setflags("na", FS_IMMUTABLE_FL) == EPERM ? 0 : 8) |
		      (setflags("na", FS_APPEND_FL) == EPERM ? 0 : 16));
	}
	MUST(waitpid(pid, &status, 0));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "unprivileged chattr: status %#x", status);
	MUST(unlink("na"));
}

static void birth_time(void)
{
	struct timespec t0, t1;
	struct statx stx, stx2;
	int fd;

	clock_gettime(CLOCK_REALTIME_COARSE, &t0);
	make("bt", "x");
	clock_gettime(CLOCK_REALTIME, &t1);
	CHECK(statx(AT_FDCWD, "bt", 0, STATX_BTIME, &stx) == 0 &&
	      (stx.stx_mask & STATX_BTIME), "statx btime: mask %#x",
	      stx.stx_mask);
	/* Coarse clocks may lag by a tick: a second either side. */
	CHECK(stx.stx_btime.tv_sec >= t0.tv_sec - 1 &&
	      stx.stx_btime.tv_sec <= t1.tv_sec + 1,
	      "btime %lld outside [%ld, %ld]",
	      (long long)stx.stx_btime.tv_sec, (long)t0.tv_sec,
	      (long)t1.tv_sec);
	fd = MUST(open("bt", O_RDWR));
	MUST(pwrite(fd, "y", 1, 100));
	MUST(fchmod(fd, 0600));
	close(fd);
	MUST(rename("bt", "bt2"));
	CHECK(statx(AT_FDCWD, "bt2", 0, STATX_BTIME, &stx2) == 0 &&
	      stx2.stx_btime.tv_sec == stx.stx_btime.tv_sec &&
	      stx2.stx_btime.tv_nsec == stx.stx_btime.tv_nsec,
	      "btime changed by write, chmod or rename");
	MUST(unlink("bt2"));
}

/* In a child as uid 1000 (no CAP_FSETID): @what on "kp"; its status */
static int as_user(int what)
{
	int fd, status;
	pid_t pid = MUST(fork());

	if (!pid) {
		if (setgid(1000) || setuid(1000))
			_exit(2);
		fd = open("kp", O_WRONLY);
		if (fd < 0)
			_exit(3);
		if (what == 0 && pwrite(fd, "u", 1, 1) != 1)
			_exit(4);
		if (what == 1 && fallocate(fd, 0, 0, 8192))
			_exit(5);
		if (what == 2 && ftruncate(fd, 4096))
			_exit(6);
		_exit(0);
	}
	MUST(waitpid(pid, &status, 0));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	MUST(stat(path, &st));
	return st.st_mode & 07777;
}

static void kill_privs(void)
{
	static const char *const how[] = { "write", "fallocate", "ftruncate" };
	/* VFS_CAP_REVISION_2, CAP_NET_RAW permitted */
	const __u32 cap[5] = { 0x02000000, 1 << 13, 0, 0, 0 };
	char buf[32];
	int fd;

	make("kp", "x");
	fd = MUST(open("kp", O_WRONLY));
	/* Finds nothing to drop: from now on the VFS may skip looking. */
	MUST(pwrite(fd, "r", 1, 0));
	for (int i = 0; i < 3; i++) {
		MUST(fchmod(fd, 06777));
		CHECK(as_user(i) == 0, "%s as uid 1000", how[i]);
		CHECK(mode_of("kp") == 0777, "%s kept suid/sgid: %04o",
		      how[i], mode_of("kp"));
	}
	/* As root too: a capability set is dropped by any write. */
	CHECK(fsetxattr(fd, "security.capability", cap, sizeof(cap), 0) == 0,
	      "set security.capability: %s", strerror(errno));
	MUST(pwrite(fd, "r", 1, 0));
	CHECK(fgetxattr(fd, "security.capability", buf, sizeof(buf)) < 0 &&
	      errno == ENODATA, "security.capability survived a write");
	close(fd);
	MUST(unlink("kp"));
}

static void body(void)
{
	immutable();
	append_only();
	others();
	birth_time();
	kill_privs();
}

/* Two mounts, two UUIDs; the sysfs path is the statistics directory. */
static void identity(void)
{
	struct fsuuid2 u1 = { .len = 16 }, u2 = { .len = 16 };
	struct statfs sf1, sf2;
	struct fs_sysfs_path sp;
	char dir[128], want[160];
	struct stat st;
	int fd, fd2, zero = 1;

	fd = MUST(open(".", O_RDONLY));
	CHECK(ioctl(fd, FS_IOC_GETFSUUID, &u1) == 0 && u1.len == 16,
	      "FS_IOC_GETFSUUID: %s", strerror(errno));
	for (int i = 0; i < 16; i++)
		zero &= !u1.uuid[i];
	CHECK(!zero, "UUID all zeroes");
	CHECK(ioctl(fd, FS_IOC_GETFSSYSFSPATH, &sp) == 0,
	      "FS_IOC_GETFSSYSFSPATH: %s", strerror(errno));
	mount_sysdir(".", dir, sizeof(dir));
	snprintf(want, sizeof(want), "/sys/fs/%.*s", sp.len, sp.name);
	CHECK(!strcmp(want, dir), "sysfs path %s, statistics in %s", want, dir);
	snprintf(want, sizeof(want), "%s/used_bytes", dir);
	CHECK(stat(want, &st) == 0, "no %s", want);
	close(fd);

	mkdir("/mnt/t-attr-2", 0755);
	MUST(mount("none", "/mnt/t-attr-2", "hugetmpfs", 0, ""));
	fd2 = MUST(open("/mnt/t-attr-2", O_RDONLY));
	CHECK(ioctl(fd2, FS_IOC_GETFSUUID, &u2) == 0 &&
	      memcmp(u1.uuid, u2.uuid, 16), "second mount's UUID");
	/* statfs's f_fsid comes from the UUID, for fanotify. */
	MUST(statfs(".", &sf1));
	MUST(statfs("/mnt/t-attr-2", &sf2));
	CHECK((sf1.f_fsid.__val[0] || sf1.f_fsid.__val[1]) &&
	      memcmp(&sf1.f_fsid, &sf2.f_fsid, sizeof(sf1.f_fsid)),
	      "f_fsid %x:%x and %x:%x", sf1.f_fsid.__val[0],
	      sf1.f_fsid.__val[1], sf2.f_fsid.__val[0], sf2.f_fsid.__val[1]);
	close(fd2);
	MUST(umount("/mnt/t-attr-2"));
}

int main(void)
{
	identity();
	on_hugetmpfs_and_tmpfs(body, "huge=always");
	return tap_done("t-attr");
}
