// SPDX-License-Identifier: GPL-2.0
/*
 * Run a command and report, after its own figures, the peak of Shmem and
 * PageTables in /proc/meminfo while it ran, above what they were before:
 * every workload's memory cost. Sampled every 20 ms, so a peak shorter than
 * that can be missed; the counters are not folded between samples.
 *
 *	peak COMMAND [ARG...]
 */
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include "bench.h"

int main(int argc, char **argv)
{
	long shmem0, pt0, shmem_max = 0, pt_max = 0, v;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: peak COMMAND [ARG...]\n");
		return 2;
	}
	stat_refresh();
	shmem0 = meminfo_kb("Shmem");
	pt0 = meminfo_kb("PageTables");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		execvp(argv[1], argv + 1);
		die("exec %s", argv[1]);
	}
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r < 0)
			die("waitpid");
		v = meminfo_kb("Shmem") - shmem0;
		shmem_max = v > shmem_max ? v : shmem_max;
		v = meminfo_kb("PageTables") - pt0;
		pt_max = v > pt_max ? v : pt_max;
		if (r == pid)
			break;
		poll(NULL, 0, 20);
	}
	figure("peak_shmem", shmem_max, "kB");
	figure("peak_page_tables", pt_max, "kB");
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "peak: %s killed by signal %d\n", argv[1],
			WTERMSIG(status));
		return 2;
	}
	return WEXITSTATUS(status);
}
