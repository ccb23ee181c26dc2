// SPDX-License-Identifier: GPL-2.0
/*
 * SEEK_DATA and SEEK_HOLE: with small pages (huge=never) data and holes are
 * reported at page granularity; in a huge folio too on hugetmpfs (its
 * never-written pages are holes) unless the file was mapped shared and
 * writable; on tmpfs a huge folio is data for all its 2 MiB.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <unistd.h>

#include "tap.h"

#define MB (1024L * 1024)

static void expect(int fd, long off, int whence, long want)
{
	long got = lseek(fd, off, whence);

	if (want < 0)
		CHECK(got == -1 && errno == ENXIO, "%s(%ld): %ld, expected ENXIO",
		      whence == SEEK_DATA ? "SEEK_DATA" : "SEEK_HOLE", off, got);
	else
		CHECK(got == want, "%s(%ld): %ld, expected %ld",
		      whence == SEEK_DATA ? "SEEK_DATA" : "SEEK_HOLE", off, got,
		      want);
}

static void seek(void)
{
	char page[4096];
	int fd;

	memset(page, 'x', sizeof(page));
	MUST(mount("none", ".", NULL, MS_REMOUNT, "huge=never"));
	fd = MUST(open("small", O_RDWR | O_CREAT | O_TRUNC, 0644));
	MUST(pwrite(fd, page, 4096, 0));
	MUST(pwrite(fd, page, 100, 1 * MB));
	MUST(ftruncate(fd, 3 * MB));
	expect(fd, 0, SEEK_DATA, 0);
	expect(fd, 0, SEEK_HOLE, 4096);
	expect(fd, 4096, SEEK_DATA, 1 * MB);
	expect(fd, 1 * MB + 10, SEEK_DATA, 1 * MB + 10);
	expect(fd, 1 * MB, SEEK_HOLE, 1 * MB + 4096);
	expect(fd, 2 * MB, SEEK_DATA, -1);
	expect(fd, 2 * MB, SEEK_HOLE, 2 * MB);
	expect(fd, 3 * MB, SEEK_HOLE, -1);
	expect(fd, 3 * MB, SEEK_DATA, -1);
	close(fd);

	MUST(mount("none", ".", NULL, MS_REMOUNT, "huge=always"));
	fd = MUST(open("huge", O_RDWR | O_CREAT | O_TRUNC, 0644));
	MUST(ftruncate(fd, 6 * MB));
	MUST(pwrite(fd, page, 100, 2 * MB + 8192));
	if (strcmp(tap_fs, "hugetmpfs") == 0) {
		/*
		 * The write got a whole 2 MiB folio, but only its third page
		 * was written: the rest are holes, as in small pages.
		 */
		expect(fd, 0, SEEK_DATA, 2 * MB + 8192);
		expect(fd, 2 * MB, SEEK_HOLE, 2 * MB);
		expect(fd, 2 * MB + 8200, SEEK_HOLE, 2 * MB + 12288);
		expect(fd, 2 * MB + 12288, SEEK_DATA, -1);
	} else {
		/* tmpfs: the whole 2 MiB folio, [2M, 4M), is data. */
		expect(fd, 0, SEEK_DATA, 2 * MB);
		expect(fd, 2 * MB, SEEK_HOLE, 4 * MB);
	}
	expect(fd, 4 * MB, SEEK_DATA, -1);
	expect(fd, 5 * MB, SEEK_HOLE, 5 * MB);
	/*
	 * Once mapped shared and writable, what the folio holds is no longer
	 * known without reading it: all of it is data again, as on tmpfs.
	 */
	if (strcmp(tap_fs, "hugetmpfs") == 0) {
		void *p = mmap(NULL, 6 * MB, PROT_READ | PROT_WRITE, MAP_SHARED,
			       fd, 0);

		CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
		expect(fd, 0, SEEK_DATA, 2 * MB);
		expect(fd, 2 * MB, SEEK_HOLE, 4 * MB);
		if (p != MAP_FAILED)
			munmap(p, 6 * MB);
	}
	close(fd);
	MUST(unlink("small"));
	MUST(unlink("huge"));
}

int main(void)
{
	on_hugetmpfs_and_tmpfs(seek, "huge=within_size");
	return tap_done("t-seek");
}
