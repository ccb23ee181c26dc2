// SPDX-License-Identifier: GPL-2.0
/*
 * Many small files: how fast they are created, and how much memory they
 * really take per byte of data, as the kernel counts it (Shmem in
 * /proc/meminfo) and as the mount's statfs does, before and after the
 * kernel is asked to drop its caches (which runs the hole shrinker), and
 * how long that takes. Every byte of every file is checked after that.
 *
 *	smallfiles DIR COUNT SIZE	e.g. smallfiles /mnt/b 1000 64k
 */
#include <sys/statfs.h>
#include "bench.h"

static double statfs_used(const char *dir)
{
	struct statfs st;

	if (statfs(dir, &st))
		die("statfs %s", dir);
	return (double)(st.f_blocks - st.f_bfree) * st.f_bsize;
}

static void memory(const char *when, const char *dir, long shmem0,
		   double used0, double data)
{
	char name[64];

	stat_refresh();
	snprintf(name, sizeof(name), "shmem_per_byte_%s", when);
	figure(name, (meminfo_kb("Shmem") - shmem0) * 1024.0 / data, "B/B");
	snprintf(name, sizeof(name), "statfs_per_byte_%s", when);
	figure(name, (statfs_used(dir) - used0) / data, "B/B");
}

int main(int argc, char **argv)
{
	char path[4096], *buf, *got;
	size_t size, done;
	long count, i, shmem0;
	double used0, t;
	ssize_t n;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: smallfiles DIR COUNT SIZE\n");
		return 2;
	}
	count = atol(argv[2]);
	size = parse_size(argv[3]);
	if (count <= 0) {
		errno = EINVAL;
		die("COUNT '%s'", argv[2]);
	}
	buf = malloc(1 << 20);
	got = malloc(1 << 20);
	if (!buf || !got)
		die("malloc");
	memset(buf, 'x', 1 << 20);

	stat_refresh();
	shmem0 = meminfo_kb("Shmem");
	used0 = statfs_used(argv[1]);
	t = now();
	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "%s/sf%ld", argv[1], i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd < 0)
			die("create %s", path);
		/* Each file's own first bytes, so a mixed-up file is caught. */
		memcpy(buf, &i, sizeof(i));
		for (done = 0; done < size; done += n) {
			n = size - done < (1 << 20) ? size - done : (1 << 20);
			n = write(fd, buf, n);
			if (n <= 0)
				die("write %s", path);
		}
		close(fd);
	}
	figure("create", count / (now() - t), "files/s");
	memory("written", argv[1], shmem0, used0, (double)count * size);
	/* Under huge=always, a pass of the hole shrinker over every file. */
	t = now();
	drop_caches("2");
	figure("shrink_pass", now() - t, "s");
	memory("dropped", argv[1], shmem0, used0, (double)count * size);

	/* After the shrink, every byte of every file as written. */
	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "%s/sf%ld", argv[1], i);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			die("open %s", path);
		memcpy(buf, &i, sizeof(i));
		for (done = 0; done < size; done += n) {
			n = size - done < (1 << 20) ? size - done : (1 << 20);
			if (pread(fd, got, n, done) != n)
				die("read %s at %zu", path, (size_t)done);
			/* Each write began at buf, with its stamp. */
			if (memcmp(got, buf, n)) {
				errno = EIO;
				die("%s: wrong data in the MiB at %zu", path,
				    (size_t)done);
			}
		}
		close(fd);
		if (unlink(path))
			die("unlink %s", path);
	}
	free(got);
	free(buf);
	return 0;
}
