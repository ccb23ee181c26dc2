// SPDX-License-Identifier: GPL-2.0
/*
 * readdir goes on correctly while entries are removed and added: every
 * entry that exists throughout is returned exactly once, none twice, and
 * a directory offset from telldir() can be returned to with seekdir().
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tap.h"

#define N 3000

struct linux_dirent64 {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static int seen[N], removed[N];

static void readdir_under_unlink(void)
{
	char name[64], dbuf[512];
	int fd, nread, batches = 0, dup = 0, missing = 0;

	memset(seen, 0, sizeof(seen));
	memset(removed, 0, sizeof(removed));
	MUST(mkdir("d", 0755));
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "d/f%05d", i);
		close(MUST(open(name, O_CREAT | O_WRONLY, 0644)));
	}

	fd = MUST(open("d", O_RDONLY | O_DIRECTORY));
	/* Small getdents64 batches, changing the directory between them. */
	while ((nread = syscall(SYS_getdents64, fd, dbuf, sizeof(dbuf))) > 0) {
		for (int off = 0; off < nread; ) {
			struct linux_dirent64 *d = (void *)(dbuf + off);
			int i;

			off += d->d_reclen;
			if (sscanf(d->d_name, "f%d", &i) != 1 || i < 0 || i >= N)
				continue;
			if (seen[i]++)
				dup++;
		}
		/* Remove a few entries ahead of us and a few behind. */
		for (int k = 0; k < 3; k++) {
			int i = (batches * 7919 + k * 104729) % N;

			if (!removed[i]) {
				snprintf(name, sizeof(name), "d/f%05d", i);
				MUST(unlink(name));
				removed[i] = 1;
			}
		}
		snprintf(name, sizeof(name), "d/new%05d", batches);
		close(MUST(open(name, O_CREAT | O_WRONLY, 0644)));
		batches++;
	}
	CHECK(nread == 0, "getdents64: %s", strerror(errno));
	close(fd);
	for (int i = 0; i < N; i++)
		if (!removed[i] && !seen[i])
			missing++;
	CHECK(dup == 0, "%d entries returned twice", dup);
	CHECK(missing == 0, "%d entries that were never removed were not returned",
	      missing);
	printf("%d batches, %d duplicates, %d missing\n", batches, dup, missing);

	/* telldir/seekdir come back to the same entry. */
	{
		DIR *dir = opendir("d");
		struct dirent *e;
		char first[256] = "";
		long pos;

		for (int k = 0; k < 100 && (e = readdir(dir)); k++)
			;
		pos = telldir(dir);
		e = readdir(dir);
		CHECK(e != NULL, "readdir after 100 entries");
		if (e)
			snprintf(first, sizeof(first), "%s", e->d_name);
		for (int k = 0; k < 50 && readdir(dir); k++)
			;
		seekdir(dir, pos);
		e = readdir(dir);
		CHECK(e && !strcmp(e->d_name, first), "seekdir back to '%s'",
		      first);
		closedir(dir);
	}
}

int main(void)
{
	on_hugetmpfs_and_tmpfs(readdir_under_unlink, "huge=never");
	return tap_done("t-readdir");
}
