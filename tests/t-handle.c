// SPDX-License-Identifier: GPL-2.0
/*
 * File handles, as tmpfs has them: name_to_handle_at(2) on files and
 * directories, open_by_handle_at(2) back to the same inode and data, also
 * after caches are dropped; a handle of a removed file, of another mount of
 * the same type, or made up, is stale (ESTALE) and opens nothing else. On
 * hugetmpfs, then on tmpfs in the same boot.
 */
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"

static const char *fs;

static struct file_handle *handle_of(const char *path)
{
	struct file_handle *h = calloc(1, sizeof(*h) + MAX_HANDLE_SZ);
	int mnt;

	h->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, path, h, &mnt, 0)) {
		CHECK(0, "%s: name_to_handle_at %s: %s", fs, path,
		      strerror(errno));
		free(h);
		return NULL;
	}
	return h;
}

/* Open @h through @mount_fd; the inode number, or -errno. */
static long open_ino(int mount_fd, struct file_handle *h, int flags)
{
	struct stat st;
	int fd;

	fd = open_by_handle_at(mount_fd, h, flags);
	if (fd < 0)
		return -errno;
	MUST(fstat(fd, &st));
	close(fd);
	return st.st_ino;
}

static void one_fs(const char *dir, const char *other)
{
	struct file_handle *hf, *hd, *hgone, *hother, *h;
	char f[128], d[128], gone[128], o[128], buf[8];
	int mfd, ofd, fd;
	struct stat st, dst;

	snprintf(f, sizeof(f), "%s/file", dir);
	snprintf(d, sizeof(d), "%s/dir", dir);
	snprintf(gone, sizeof(gone), "%s/gone", dir);
	snprintf(o, sizeof(o), "%s/file", other);
	fd = MUST(open(f, O_RDWR | O_CREAT, 0644));
	MUST(pwrite(fd, "handle", 6, 3 << 20));
	close(fd);
	MUST(mkdir(d, 0755));
	close(MUST(open(gone, O_RDWR | O_CREAT, 0644)));
	close(MUST(open(o, O_RDWR | O_CREAT, 0644)));
	MUST(stat(f, &st));
	MUST(stat(d, &dst));

	hf = handle_of(f);
	hd = handle_of(d);
	hgone = handle_of(gone);
	hother = handle_of(o);
	if (!hf || !hd || !hgone || !hother)
		return;
	mfd = MUST(open(dir, O_RDONLY | O_DIRECTORY));
	ofd = MUST(open(other, O_RDONLY | O_DIRECTORY));

	CHECK(open_ino(mfd, hf, O_RDONLY) == (long)st.st_ino,
	      "%s: file by handle: %ld", fs, open_ino(mfd, hf, O_RDONLY));
	fd = open_by_handle_at(mfd, hf, O_RDWR);
	CHECK(fd >= 0 && pread(fd, buf, 6, 3 << 20) == 6 &&
	      !memcmp(buf, "handle", 6), "%s: data through the handle", fs);
	if (fd >= 0)
		close(fd);
	CHECK(open_ino(mfd, hd, O_RDONLY | O_DIRECTORY) == (long)dst.st_ino,
	      "%s: directory by handle", fs);

	/* Still found when caches are dropped. */
	sync();
	fd = MUST(open("/proc/sys/vm/drop_caches", O_WRONLY));
	MUST(write(fd, "3", 1));
	close(fd);
	CHECK(open_ino(mfd, hf, O_RDONLY) == (long)st.st_ino,
	      "%s: file by handle after drop_caches: %ld", fs,
	      open_ino(mfd, hf, O_RDONLY));

	/* Removed but still open: found, as on tmpfs; stale once closed. */
	fd = MUST(open(gone, O_RDONLY));
	MUST(unlink(gone));
	CHECK(open_ino(mfd, hgone, O_RDONLY) > 0,
	      "%s: unlinked open file: %ld", fs, open_ino(mfd, hgone, O_RDONLY));
	close(fd);

	/* Stale: removed, on another mount, made up. */
	CHECK(open_ino(mfd, hgone, O_RDONLY) == -ESTALE,
	      "%s: removed file: %ld", fs, open_ino(mfd, hgone, O_RDONLY));
	CHECK(open_ino(mfd, hother, O_RDONLY) == -ESTALE,
	      "%s: other mount's handle: %ld", fs,
	      open_ino(mfd, hother, O_RDONLY));
	CHECK(open_ino(ofd, hf, O_RDONLY) == -ESTALE,
	      "%s: handle used on another mount: %ld", fs,
	      open_ino(ofd, hf, O_RDONLY));
	h = calloc(1, sizeof(*h) + MAX_HANDLE_SZ);
	memcpy(h, hf, sizeof(*h) + hf->handle_bytes);
	h->f_handle[0] ^= 0x5a;	/* the generation, on both */
	CHECK(open_ino(mfd, h, O_RDONLY) == -ESTALE,
	      "%s: wrong generation: %ld", fs, open_ino(mfd, h, O_RDONLY));
	h->handle_bytes = 4;
	CHECK(open_ino(mfd, h, O_RDONLY) < 0, "%s: short handle", fs);
	free(h);
	close(mfd);
	close(ofd);
	free(hf);
	free(hd);
	free(hgone);
	free(hother);
}

int main(void)
{
	static const char * const types[] = { "hugetmpfs", "tmpfs" };
	char a[64], b[64];

	for (int i = 0; i < 2; i++) {
		fs = tap_fs = types[i];
		snprintf(a, sizeof(a), "/mnt/t-handle-%s-a", fs);
		snprintf(b, sizeof(b), "/mnt/t-handle-%s-b", fs);
		mkdir(a, 0755);
		mkdir(b, 0755);
		MUST(mount("none", a, fs, 0, "huge=always"));
		MUST(mount("none", b, fs, 0, "huge=always"));
		one_fs(a, b);
		MUST(umount(a));
		MUST(umount(b));
	}
	return tap_done("t-handle");
}
