// SPDX-License-Identifier: GPL-2.0
/*
 * For the collapse thread's test: hold the page of FILE at OFFSET in a pipe
 * (vmsplice takes a reference to it, as I/O in flight would), print "held",
 * and let go once a line can be read from FIFO.
 *
 *     hold-page FILE OFFSET FIFO
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char line[16], *p;
	struct iovec iov;
	int fd, pipefd[2];
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: hold-page FILE OFFSET FIFO\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || pipe(pipefd)) {
		perror("hold-page");
		return 2;
	}
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
		 strtoll(argv[2], NULL, 0));
	if (p == MAP_FAILED) {
		perror("hold-page: mmap");
		return 2;
	}
	iov.iov_base = p;
	iov.iov_len = 4096;
	if (vmsplice(pipefd[1], &iov, 1, 0) != 4096) {
		perror("hold-page: vmsplice");
		return 2;
	}
	/* Unmapped, the page is held by the pipe alone. */
	munmap(p, 4096);
	printf("held\n");
	fflush(stdout);
	f = fopen(argv[3], "r");
	if (!f || !fgets(line, sizeof(line), f))
		return 2;
	/* Exit closes the pipe, which lets go of the page. */
	return 0;
}
