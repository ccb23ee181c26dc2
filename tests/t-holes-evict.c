// SPDX-License-Identifier: GPL-2.0
/*
 * Reclaim inside a fault must never evict an inode (issue 37, defect 4):
 * a fault holds its file's invalidate lock, and eviction takes another
 * file's, which lockdep reports as recursive locking.
 *
 * With THP defrag "never" a huge folio's charge does not reclaim (which
 * would run the hole shrinker, whose iputs are deferred already). In a
 * memory cgroup held just above what it uses, files x0..x31 each hold
 * 4 KiB in a huge folio, open but unlinked. A child faults 2 MiB ranges of
 * another file: each huge folio's charge fails, so the fault gives back
 * the cgroup's holes, taking references to x files as it goes. As the
 * child starts faulting, the parent closes all the x files at once, after
 * a delay that grows from round to round, so that closes land while a
 * fault holds references, which are then the last. The
 * runner fails the test on any lockdep report in the kernel log; the test
 * itself checks that the faults did give holes back and that the data of
 * both files reads back. A race, with a bounded number of rounds: it cannot
 * fail by chance once fixed, and showed the defect before the fix.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/hugetmpfs.h>

#include "stats.h"
#include "tap.h"

#define MB (1024L * 1024)
#define NX 32
#define ROUNDS 10
#define CG "/sys/fs/cgroup/t-holes-evict"

static int huge_file(const char *name)
{
	__u32 always = HUGETMPFS_HUGE_ALWAYS;
	int fd = MUST(open(name, O_CREAT | O_RDWR | O_TRUNC, 0644));

	MUST(ioctl(fd, HUGETMPFS_IOC_SET_HUGE, &always));
	return fd;
}

/*
 * The child: fault NX huge ranges of y, each marked with its number,
 * telling the parent through @go just before the first.
 */
static void faulter(int y, int go, const int *x)
{
	char *map = mmap(NULL, NX * 2 * MB, PROT_READ | PROT_WRITE,
			 MAP_SHARED, y, 0);

	/* The parent's are the last references */
	for (int i = 0; i < NX; i++)
		close(x[i]);
	if (map == MAP_FAILED || write(go, "g", 1) != 1)
		_exit(2);
	for (long i = 0; i < NX; i++)
		map[i * 2 * MB + 4096] = 'a' + i % 26;
	_exit(0);
}

int main(void)
{
	char sysdir[128], name[32], buf[4096], c;
	double start, t;
	long blocks0, current;
	int x[NX], go[2], y, round, i, status;
	pid_t pid;

	mount_sysdir(".", sysdir, sizeof(sysdir));
	/* The runner sets it back to "always" after the test */
	put_file("/sys/kernel/mm/transparent_hugepage/defrag", "never");
	put_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	mkdir(CG, 0755);
	snprintf(buf, sizeof(buf), "%d", getpid());
	put_file(CG "/cgroup.procs", buf);
	blocks0 = mount_stat(sysdir, "holes_blocks_returned") +
		  mount_stat(sysdir, "holes_freed");

	for (round = 0; round < ROUNDS; round++) {
		memset(buf, 'x', sizeof(buf));
		for (i = 0; i < NX; i++) {
			snprintf(name, sizeof(name), "x%d", i);
			x[i] = huge_file(name);
			MUST(pwrite(x[i], buf, sizeof(buf), 0));
			MUST(unlink(name));
		}
		y = huge_file("y");
		MUST(ftruncate(y, NX * 2 * MB));
		/* Small pages fit, a huge folio does not */
		current = read_long(CG "/memory.current");
		snprintf(buf, sizeof(buf), "%ld", current + MB);
		put_file(CG "/memory.max", buf);
		MUST(pipe(go));
		start = now_s();
		pid = MUST(fork());
		if (!pid)
			faulter(y, go[1], x);
		MUST(read(go[0], &c, 1));
		close(go[0]);
		close(go[1]);
		/* All at once, a little later in each round */
		t = now_s();
		while (now_s() < t + 0.002 * round)
			;
		for (i = 0; i < NX; i++)
			close(x[i]);
		MUST(waitpid(pid, &status, 0));
		printf("round %d: child %.3f s; blocks returned %ld\n", round,
		       now_s() - start,
		       mount_stat(sysdir, "holes_blocks_returned"));
		put_file(CG "/memory.max", "max");
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "round %d: the faulting child: status %#x", round, status);
		for (i = 0; i < NX; i++) {
			CHECK(pread(y, &c, 1, i * 2 * MB + 4096) == 1 &&
			      c == 'a' + i % 26, "round %d: y's range %d",
			      round, i);
		}
		close(y);
		unlink("y");
	}
	CHECK(mount_stat(sysdir, "holes_blocks_returned") +
	      mount_stat(sysdir, "holes_freed") > blocks0,
	      "the faults gave holes back");
	put_file("/sys/fs/cgroup/cgroup.procs", "0");	/* this process */
	rmdir(CG);
	return tap_done("t-holes-evict");
}
