// SPDX-License-Identifier: GPL-2.0
/*
 * Fragmentation and recovery. A file written in 4 KiB pieces while huge
 * pages are unavailable (huge_override=deny on hugetmpfs, shmem_enabled=deny
 * on tmpfs), then available again, kept mapped by this process:
 *  1. the background agent at its defaults (hugetmpfs's collapse thread,
 *     khugetmpfsd; khugepaged for tmpfs) for SECONDS: the fraction in
 *     PMD-sized folios every STEP seconds, the rate it made them at (MB/s)
 *     and the CPU it used meanwhile (% of one CPU);
 *  2. a second file, the agent unthrottled (no pause between passes, passes
 *     of 1 GiB): until 99% is huge (at most 3 x SECONDS): rate, CPU;
 *  3. the agent's CPU at its defaults again, with nothing left to collapse;
 *  4. a third file, the agent paused: an explicit collapse of all of it
 *     (HUGETMPFS_IOC_COLLAPSE on hugetmpfs, MADV_COLLAPSE on tmpfs), its time
 *     and the fraction after.
 * The data of both files is checked; the agents' settings are restored.
 *
 *	frag DIR SIZE SECONDS STEP
 */
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <linux/hugetmpfs.h>
#include <linux/magic.h>
#include "bench.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#define PAGE 4096UL

/* A background agent and the knobs that pace, pause and deny it */
struct agent {
	const char *comm;	/* its thread's name */
	const char *deny, *deny_val;	/* huge pages off for the mount */
	const char *sleep, *pages;	/* pause between passes, pass size */
	const char *fast_sleep, *fast_pages, *paused_pages;
	const char *pause, *pause_val;	/* stops it working (or nearly) */
	char deny_old[64], sleep_old[64], pages_old[64], pause_old[64];
	int pid;
};

static struct agent ht_agent = {
	.comm = "khugetmpfsd",
	.deny = "/sys/module/hugetmpfs/parameters/huge_override",
	.deny_val = "deny",
	.sleep = "/sys/module/hugetmpfs/parameters/collapse_scan_sleep_ms",
	.pages = "/sys/module/hugetmpfs/parameters/collapse_pages_to_scan",
	.fast_sleep = "0", .fast_pages = "262144", .paused_pages = NULL,
	.pause = "/sys/module/hugetmpfs/parameters/collapse_thread",
	.pause_val = "N",
};

#define KHUGEPAGED "/sys/kernel/mm/transparent_hugepage/khugepaged/"
static struct agent tmpfs_agent = {
	.comm = "khugepaged",
	.deny = "/sys/kernel/mm/transparent_hugepage/shmem_enabled",
	.deny_val = "deny",
	.sleep = KHUGEPAGED "scan_sleep_millisecs",
	.pages = KHUGEPAGED "pages_to_scan",
	.fast_sleep = "0", .fast_pages = "262144", .paused_pages = "8",
	/* khugepaged cannot be stopped: a pass of 8 pages an hour. */
	.pause = KHUGEPAGED "scan_sleep_millisecs", .pause_val = "3600000",
};

static long base_kb;
static int write_timed;		/* write_4k is the first file's */

static double pmd_fraction(size_t size)
{
	stat_refresh();
	return (meminfo_kb("ShmemHugePages") - base_kb) * 1024.0 / size;
}

/* The current value of a knob, "[selected]" form (shmem_enabled) unpacked */
static void get(const char *path, char *buf, size_t len)
{
	char *b, *e;

	get_line(path, buf, len);
	b = strchr(buf, '[');
	e = b ? strchr(b, ']') : NULL;
	if (b && e) {
		*e = 0;
		memmove(buf, b + 1, strlen(b + 1) + 1);
	}
}

static int find_pid(const char *comm)
{
	char path[300], name[64];
	struct dirent *d;
	DIR *dir = opendir("/proc");
	int pid = 0;

	while (dir && !pid && (d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (f && fgets(name, sizeof(name), f) &&
		    !strncmp(name, comm, strlen(comm)) &&
		    name[strlen(comm)] == '\n')
			pid = atoi(d->d_name);
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	if (!pid) {
		errno = ESRCH;
		die("no %s thread", comm);
	}
	return pid;
}

/* CPU seconds a thread has used */
static double cpu_s(int pid)
{
	unsigned long ut = 0, st = 0;
	char path[64], buf[1024], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f))
		die("read %s", path);
	fclose(f);
	/* After the ")" closing the name: state is field 3, utime 14. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		die("parse %s", path);
	return (double)(ut + st) / sysconf(_SC_CLK_TCK);
}

/* A file of @size written in 4 KiB pieces with huge pages unavailable */
static char *fragmented(const char *path, size_t size, struct agent *a,
			int *fdp)
{
	char piece[PAGE] = { 0 };
	size_t off;
	char *map;
	double t;
	int fd;

	put_file(a->deny, a->deny_val);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("%s", path);
	t = now();
	for (off = 0; off < size; off += PAGE) {
		*(uint64_t *)piece = off;
		if (pwrite(fd, piece, PAGE, off) != PAGE)
			die("write at %zu", off);
	}
	if (!write_timed++)
		figure("write_4k", size / (now() - t) / 1e6, "MB/s");
	/* Allowed again before mmap: the address is then 2 MiB aligned. */
	put_file(a->deny, a->deny_old);
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	/* Mapped, and every page touched, so khugepaged sees it too. */
	for (off = 0; off < size; off += PAGE)
		(void)*(volatile char *)(map + off);
	if (fdp)
		*fdp = fd;
	else
		close(fd);
	return map;
}

/* Every byte as fragmented() wrote it: the page's offset, then zeroes. */
static void verify(const char *map, size_t size)
{
	static const char zeroes[PAGE];
	size_t off;

	for (off = 0; off < size; off += PAGE)
		if (*(const uint64_t *)(map + off) != off ||
		    memcmp(map + off + 8, zeroes, PAGE - 8)) {
			errno = EIO;
			die("wrong data in the page at %zu", off);
		}
}

static void done_with(const char *path, char *map, size_t size)
{
	verify(map, size);
	munmap(map, size);
	if (unlink(path))
		die("unlink %s", path);
}

/*
 * The agent at work for at most @limit seconds, until 99% of the file is
 * huge: figures @what_mb_s and @what_cpu (its CPU use meanwhile), and the
 * fraction every @step seconds if @step.
 */
static void watch(struct agent *a, size_t size, double limit, int step,
		  const char *what)
{
	double t0 = now(), c0 = cpu_s(a->pid), f0 = pmd_fraction(size);
	double f = f0, t = t0, next = 0;
	char name[64];

	for (;;) {
		t = now();
		f = pmd_fraction(size);
		if (step && t - t0 >= next - 1e-3) {
			snprintf(name, sizeof(name), "pmd_fraction_%ds",
				 (int)(next + 0.5));
			figure(name, f, "fraction");
			next += step;
		}
		if (f >= 0.99 || t - t0 >= limit)
			break;
		usleep(100000);
	}
	t = t - t0 > 1e-3 ? t - t0 : 1e-3;
	snprintf(name, sizeof(name), "%s_mb_s", what);
	figure(name, (f - f0) * size / t / 1e6, "MB/s");
	snprintf(name, sizeof(name), "%s_cpu", what);
	figure(name, (cpu_s(a->pid) - c0) / t * 100, "%cpu");
}

int main(int argc, char **argv)
{
	int seconds, step, fd;
	struct statfs sfs;
	struct agent *a;
	char path[512];
	double t, c;
	size_t size;
	char *map;

	if (argc != 5) {
		fprintf(stderr, "usage: frag DIR SIZE SECONDS STEP\n");
		return 2;
	}
	size = parse_size(argv[2]);
	seconds = atoi(argv[3]);
	step = atoi(argv[4]);
	if (step <= 0 || seconds < 0) {
		errno = EINVAL;
		die("SECONDS/STEP");
	}
	if (statfs(argv[1], &sfs))
		die("statfs %s", argv[1]);
	a = sfs.f_type == HUGETMPFS_MAGIC ? &ht_agent : &tmpfs_agent;
	a->pid = find_pid(a->comm);
	get(a->deny, a->deny_old, sizeof(a->deny_old));
	get(a->sleep, a->sleep_old, sizeof(a->sleep_old));
	get(a->pages, a->pages_old, sizeof(a->pages_old));
	get(a->pause, a->pause_old, sizeof(a->pause_old));

	stat_refresh();
	base_kb = meminfo_kb("ShmemHugePages");

	/* 1: the agent at its defaults. */
	snprintf(path, sizeof(path), "%s/frag", argv[1]);
	map = fragmented(path, size, a, NULL);
	watch(a, size, seconds, step, "background");
	done_with(path, map, size);

	/* 2: a second file, the agent unthrottled. */
	base_kb = meminfo_kb("ShmemHugePages");
	put_file(a->sleep, a->fast_sleep);
	put_file(a->pages, a->fast_pages);
	map = fragmented(path, size, a, NULL);
	watch(a, size, 3.0 * seconds, 0, "unthrottled");
	figure("pmd_fraction_unthrottled", pmd_fraction(size), "fraction");
	put_file(a->sleep, a->sleep_old);
	put_file(a->pages, a->pages_old);

	/* 3: at its defaults again, with nothing left to do. */
	t = now();
	c = cpu_s(a->pid);
	sleep(step);
	figure("idle_cpu", (cpu_s(a->pid) - c) / (now() - t) * 100, "%cpu");
	done_with(path, map, size);

	/* 4: the explicit collapse, the agent paused. */
	if (a->paused_pages)
		put_file(a->pages, a->paused_pages);
	put_file(a->pause, a->pause_val);
	base_kb = meminfo_kb("ShmemHugePages");
	map = fragmented(path, size, a, &fd);
	t = now();
	if (a == &ht_agent) {
		struct hugetmpfs_collapse col = { .offset = 0, .length = 0 };

		if (ioctl(fd, HUGETMPFS_IOC_COLLAPSE, &col) < 0)
			fprintf(stderr, "frag: HUGETMPFS_IOC_COLLAPSE: %s\n",
				strerror(errno));
	} else if (madvise(map, size, MADV_COLLAPSE)) {
		fprintf(stderr, "frag: MADV_COLLAPSE: %s\n", strerror(errno));
	}
	figure("collapse", (now() - t) * 1e3, "ms");
	figure("pmd_fraction_collapsed", pmd_fraction(size), "fraction");
	put_file(a->pause, a->pause_old);
	put_file(a->pages, a->pages_old);
	close(fd);
	done_with(path, map, size);
	return 0;
}
