// SPDX-License-Identifier: GPL-2.0
/*
 * Containers, as tmpfs serves them: a mount made inside a user namespace by
 * its root (FS_USERNS_MOUNT; allowed by default, as on tmpfs, and refused
 * with EPERM once the administrator sets userns_mount=N), with uid=/gid= limited to
 * ids that namespace maps; and idmapped mounts (FS_ALLOW_IDMAP), where ownership is translated
 * both ways on create, stat, chown and ACLs, and a creator the idmap cannot
 * represent gets EOVERFLOW. Each on hugetmpfs, then on tmpfs in the same
 * boot.
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/fsuid.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "tap.h"

#define OUTER	100000	/* where a namespace's ids start outside */

static const char *fs;

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/* Map ids 0..999 of @pid's user namespace to OUTER.. outside. */
static int map_ids(pid_t pid)
{
	char path[64], map[64];

	snprintf(map, sizeof(map), "0 %d 1000\n", OUTER);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	if (write_file(path, map))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	return write_file(path, map);
}

/*
 * A child in a new user namespace, paused until killed: its namespace,
 * mapped by the parent, serves both tests.
 */
static pid_t userns_child(void)
{
	int p[2];
	pid_t pid;
	char c;

	MUST(pipe(p));
	pid = MUST(fork());
	if (!pid) {
		close(p[0]);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
			_exit(1);
		MUST(write(p[1], "x", 1));
		pause();
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		pid = -1;
	close(p[0]);
	return pid;
}

/* Body of the process that joined the namespace: exit status is failures. */
static int inside(const char *dir)
{
	char path[128], opts[64];
	struct stat st;
	int fails = 0, fd;

	if (setresgid(0, 0, 0) || setresuid(0, 0, 0))
		return 100;
	if (mount("none", dir, fs, 0, "huge=always,size=64m,uid=5,gid=6")) {
		printf("%s: mount in a user namespace: %s\n", fs,
		       strerror(errno));
		return 101;
	}
	if (stat(dir, &st) || st.st_uid != 5 || st.st_gid != 6) {
		printf("%s: root owned by %d:%d inside\n", fs, st.st_uid,
		       st.st_gid);
		fails++;
	}
	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0 || ftruncate(fd, 4 << 20) ||
	    pwrite(fd, "data", 4, 3 << 20) != 4) {
		printf("%s: file in the namespace's mount: %s\n", fs,
		       strerror(errno));
		fails++;
	}
	if (fd >= 0)
		close(fd);
	if (stat(path, &st) || st.st_uid != 0) {
		printf("%s: new file owned by %d inside\n", fs, st.st_uid);
		fails++;
	}
	/* Device nodes stay refused in a namespace's mount. */
	snprintf(path, sizeof(path), "%s/null", dir);
	if (!mknod(path, S_IFCHR | 0666, makedev(1, 3))) {
		printf("%s: mknod allowed\n", fs);
		fails++;
	}
	if (umount(dir))
		fails++;
	/* An owner the namespace cannot map. */
	snprintf(opts, sizeof(opts), "uid=%d", 5000);
	if (!mount("none", dir, fs, 0, opts)) {
		printf("%s: uid=5000 accepted in a namespace mapping 0-999\n",
		       fs);
		umount(dir);
		fails++;
	} else if (errno != EINVAL) {
		printf("%s: uid=5000: %s, not EINVAL\n", fs, strerror(errno));
		fails++;
	}
	return fails;
}

#define USERNS_PARAM "/sys/module/hugetmpfs/parameters/userns_mount"

/* Does boolean module parameter @path say Y? */
static int read_param_y(const char *path)
{
	char c = 0;
	int fd = MUST(open(path, O_RDONLY));

	MUST(read(fd, &c, 1));
	close(fd);
	return c == 'Y';
}

/* Try a mount from the namespace of @ns_pid: 0 or the errno. */
static int mount_from_userns(pid_t ns_pid, const char *dir)
{
	char nspath[64];
	int status, nsfd;
	pid_t pid;

	snprintf(nspath, sizeof(nspath), "/proc/%d/ns/user", ns_pid);
	nsfd = MUST(open(nspath, O_RDONLY));
	pid = MUST(fork());
	if (!pid) {
		if (setns(nsfd, CLONE_NEWUSER) || unshare(CLONE_NEWNS) ||
		    setresgid(0, 0, 0) || setresuid(0, 0, 0))
			_exit(255);
		_exit(mount("none", dir, fs, 0, "") ? errno : 0);
	}
	MUST(waitpid(pid, &status, 0));
	close(nsfd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void userns_mount(pid_t ns_pid)
{
	char nspath[64], dir[64];
	int status, nsfd;
	pid_t pid;

	snprintf(dir, sizeof(dir), "/mnt/t-userns-%s", fs);
	mkdir(dir, 0755);
	if (!strcmp(fs, "hugetmpfs")) {
		/* On by default, as tmpfs: its memory can go to swap. */
		CHECK(read_param_y(USERNS_PARAM),
		      "%s: userns_mount is Y by default", fs);
		MUST(write_file(USERNS_PARAM, "N"));
		CHECK(mount_from_userns(ns_pid, dir) == EPERM,
		      "%s: user namespace mount while userns_mount=N: %s", fs,
		      strerror(mount_from_userns(ns_pid, dir)));
		MUST(write_file(USERNS_PARAM, "Y"));
	}
	CHECK(mount_from_userns(ns_pid, dir) == 0,
	      "%s: plain mount from a user namespace: %s", fs,
	      strerror(mount_from_userns(ns_pid, dir)));
	snprintf(nspath, sizeof(nspath), "/proc/%d/ns/user", ns_pid);
	nsfd = MUST(open(nspath, O_RDONLY));
	pid = MUST(fork());
	if (!pid) {
		/* A mount namespace of our own, owned by the user namespace. */
		if (setns(nsfd, CLONE_NEWUSER) || unshare(CLONE_NEWNS))
			_exit(102);
		_exit(inside(dir));
	}
	MUST(waitpid(pid, &status, 0));
	close(nsfd);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "%s: in a user namespace: status %#x", fs, status);
	rmdir(dir);
}

static int owner(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (int)st.st_uid;
}

/* In a child with fsuid/fsgid @id and no capabilities: create @path. */
static int create_as(const char *path, int id)
{
	int status, fd;
	pid_t pid;

	pid = MUST(fork());
	if (!pid) {
		setfsgid(id);
		setfsuid(id);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
		_exit(fd < 0 ? errno : 0);
	}
	MUST(waitpid(pid, &status, 0));
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A POSIX ACL with one named user entry for @uid, in the xattr format. */
static size_t acl_for(unsigned char *buf, unsigned int uid)
{
	struct { unsigned short tag, perm; unsigned int id; } e[] = {
		{ 0x01, 6, ~0U },	/* ACL_USER_OBJ */
		{ 0x02, 4, uid },	/* ACL_USER */
		{ 0x04, 4, ~0U },	/* ACL_GROUP_OBJ */
		{ 0x10, 4, ~0U },	/* ACL_MASK */
		{ 0x20, 4, ~0U },	/* ACL_OTHER */
	};
	unsigned int version = 2;

	memcpy(buf, &version, 4);
	memcpy(buf + 4, e, sizeof(e));
	return 4 + sizeof(e);
}

static void idmapped(pid_t ns_pid)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };
	char src[64], dst[64], a[128], b[128], nspath[64];
	unsigned char acl[64], got[64];
	unsigned int id = 0;
	int tree;

	snprintf(src, sizeof(src), "/mnt/t-idmap-src-%s", fs);
	snprintf(dst, sizeof(dst), "/mnt/t-idmap-dst-%s", fs);
	mkdir(src, 0755);
	mkdir(dst, 0755);
	MUST(mount("none", src, fs, 0, "huge=always"));
	MUST(chmod(src, 0777));

	snprintf(nspath, sizeof(nspath), "/proc/%d/ns/user", ns_pid);
	attr.userns_fd = MUST(open(nspath, O_RDONLY));
	tree = open_tree(AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	CHECK(tree >= 0, "%s: open_tree: %s", fs, strerror(errno));
	if (tree < 0)
		goto out;
	CHECK(mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) == 0,
	      "%s: idmapped mount refused: %s", fs, strerror(errno));
	CHECK(move_mount(tree, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH) == 0,
	      "%s: move_mount: %s", fs, strerror(errno));
	close(tree);

	/* Made outside as 7: seen as OUTER + 7 through the idmap. */
	snprintf(a, sizeof(a), "%s/from-src", src);
	snprintf(b, sizeof(b), "%s/from-src", dst);
	CHECK(create_as(a, 7) == 0, "%s: create in src", fs);
	CHECK(owner(a) == 7 && owner(b) == OUTER + 7,
	      "%s: owner %d, through the idmap %d", fs, owner(a), owner(b));

	/* Made through the idmap as OUTER + 9: stored as 9. */
	snprintf(a, sizeof(a), "%s/from-dst", src);
	snprintf(b, sizeof(b), "%s/from-dst", dst);
	CHECK(create_as(b, OUTER + 9) == 0, "%s: create through the idmap",
	      fs);
	CHECK(owner(a) == 9 && owner(b) == OUTER + 9,
	      "%s: stored owner %d, through the idmap %d", fs, owner(a),
	      owner(b));

	/* chown through the idmap stores the inner id. */
	CHECK(chown(b, OUTER + 11, OUTER + 11) == 0, "%s: chown: %s", fs,
	      strerror(errno));
	CHECK(owner(a) == 11, "%s: chown stored %d", fs, owner(a));
	CHECK(chown(b, 5, 5) == -1 && owner(a) == 11,
	      "%s: chown to an id outside the idmap", fs);

	/* An ACL entry set through the idmap holds the inner id. */
	CHECK(setxattr(b, "system.posix_acl_access", acl,
		       acl_for(acl, OUTER + 12), 0) == 0,
	      "%s: ACL through the idmap: %s", fs, strerror(errno));
	CHECK(getxattr(a, "system.posix_acl_access", got, sizeof(got)) ==
	      (ssize_t)acl_for(acl, 12) && (memcpy(&id, got + 4 + 8 + 4, 4),
					    id == 12),
	      "%s: ACL entry stored for %u", fs, id);

	/* A creator the idmap cannot represent. */
	snprintf(b, sizeof(b), "%s/overflow", dst);
	CHECK(create_as(b, 3) == EOVERFLOW, "%s: unmapped creator: %s", fs,
	      strerror(create_as(b, 3)));
	MUST(umount(dst));
out:
	close(attr.userns_fd);
	MUST(umount(src));
	rmdir(src);
	rmdir(dst);
}

int main(void)
{
	static const char * const types[] = { "hugetmpfs", "tmpfs" };
	pid_t ns_pid;

	/* Children _exit(): nothing may wait in a buffer. */
	setvbuf(stdout, NULL, _IONBF, 0);
	if (access("/proc/self/ns/user", F_OK)) {
		printf("no user namespaces in this kernel\n");
		return 77;
	}
	ns_pid = userns_child();
	if (ns_pid < 0 || map_ids(ns_pid)) {
		printf("cannot make a user namespace: %s\n", strerror(errno));
		return 2;
	}
	for (int i = 0; i < 2; i++) {
		fs = tap_fs = types[i];
		userns_mount(ns_pid);
		idmapped(ns_pid);
	}
	kill(ns_pid, SIGKILL);
	waitpid(ns_pid, NULL, 0);
	write_file(USERNS_PARAM, "N");
	return tap_done("t-userns");
}
