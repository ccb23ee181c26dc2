// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfsctl: look at and steer how hugetmpfs holds a file in memory,
 * through the ioctls of <linux/hugetmpfs.h>.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/hugetmpfs.h>

static const char usage[] =
"NAME\n"
"       hugetmpfsctl - look at and steer how hugetmpfs holds files in memory\n"
"\n"
"SYNOPSIS\n"
"       hugetmpfsctl stat FILE...\n"
"       hugetmpfsctl collapse FILE [OFFSET [LENGTH]]\n"
"       hugetmpfsctl policy FILE [always|within_size|advise|never|inherit]\n"
"       hugetmpfsctl --help\n"
"\n"
"DESCRIPTION\n"
"       stat     For each FILE on a hugetmpfs mount: its size, its huge\n"
"                (PMD-sized) folios, its large folios (16 KiB to 1 MiB,\n"
"                made where no huge page could be had) and their pages, its\n"
"                single pages, the huge folios mapped by a PMD somewhere,\n"
"                the pages of huge folios\n"
"                that hold no data (holes), and its huge-folio policy: the\n"
"                one in force and the file's own (inherit: the mount's).\n"
"\n"
"       collapse Make every whole, aligned 2 MiB range of FILE inside\n"
"                [OFFSET, OFFSET + LENGTH) one huge folio now, holes filled\n"
"                with zeroes (HUGETMPFS_IOC_COLLAPSE). OFFSET defaults to 0,\n"
"                LENGTH to the end of the file; both take K, M, G suffixes.\n"
"                Needs write access to FILE.\n"
"\n"
"       policy   Show FILE's own huge-folio policy, or set it (its owner or\n"
"                CAP_FOWNER): the values of the huge= mount option, or\n"
"                inherit to follow the mount again.\n"
"\n"
"EXIT STATUS\n"
"       0 on success; 1 if an operation failed (the reason is printed:\n"
"       EAGAIN a range was busy, ENOMEM no huge page or the data's memory\n"
"       cgroup full, ENOSPC size= or quota reached, EINVAL no whole 2 MiB\n"
"       range inside); 2 for bad usage.\n"
"\n"
"SEE ALSO\n"
"       hugetmpfs(5)\n";

static const char *const policies[] = {
	[HUGETMPFS_HUGE_INHERIT]	= "inherit",
	[HUGETMPFS_HUGE_NEVER]		= "never",
	[HUGETMPFS_HUGE_ALWAYS]		= "always",
	[HUGETMPFS_HUGE_WITHIN_SIZE]	= "within_size",
	[HUGETMPFS_HUGE_ADVISE]		= "advise",
};

static const char *policy_name(__u32 v)
{
	return v < sizeof(policies) / sizeof(policies[0]) ? policies[v] : "?";
}

static int bad_usage(const char *why)
{
	fprintf(stderr, "hugetmpfsctl: %s\nTry 'hugetmpfsctl --help'.\n", why);
	return 2;
}

/* A size with an optional K, M or G suffix; -1 if it is none. */
static long long parse_size(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	return *end || v > (unsigned long long)INT64_MAX ? -1 : (long long)v;
}

static int open_file(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0)
		fprintf(stderr, "hugetmpfsctl: %s: %s\n", path, strerror(errno));
	return fd;
}

static int fail(const char *path, const char *what)
{
	int e = errno;

	fprintf(stderr, "hugetmpfsctl: %s: %s: %s%s\n", path, what, strerror(e),
		e == ENOTTY ? " (not on a hugetmpfs mount?)" : "");
	return 1;
}

static int cmd_stat(int argc, char **argv)
{
	struct hugetmpfs_stat st;
	int i, fd, ret = 0;

	if (argc < 1)
		return bad_usage("stat: which file?");
	for (i = 0; i < argc; i++) {
		fd = open_file(argv[i], O_RDONLY);
		if (fd < 0) {
			ret = 1;
			continue;
		}
		if (ioctl(fd, HUGETMPFS_IOC_STAT, &st)) {
			ret = fail(argv[i], "stat");
		} else {
			printf("%s: size %llu, huge folios %llu, "
			       "large folios %llu (pages %llu), small pages %llu, "
			       "PMD-mapped %llu, hole pages %llu, policy %s (own: %s)\n",
			       argv[i], (unsigned long long)st.size,
			       (unsigned long long)st.huge_folios,
			       (unsigned long long)st.large_folios,
			       (unsigned long long)st.large_pages,
			       (unsigned long long)st.small_pages,
			       (unsigned long long)st.pmd_mapped,
			       (unsigned long long)st.hole_pages,
			       policy_name(st.huge), policy_name(st.huge_own));
		}
		close(fd);
	}
	return ret;
}

static int cmd_collapse(int argc, char **argv)
{
	struct hugetmpfs_collapse c = {};
	long long off = 0, len = 0;
	int fd, n, ret = 0;

	if (argc < 1 || argc > 3)
		return bad_usage("collapse: FILE [OFFSET [LENGTH]]");
	if (argc > 1 && (off = parse_size(argv[1])) < 0)
		return bad_usage("collapse: OFFSET is not a size");
	if (argc > 2 && (len = parse_size(argv[2])) < 0)
		return bad_usage("collapse: LENGTH is not a size");
	fd = open_file(argv[0], O_RDWR);
	if (fd < 0)
		return 1;
	c.offset = off;
	c.length = len;
	n = ioctl(fd, HUGETMPFS_IOC_COLLAPSE, &c);
	if (n < 0)
		ret = fail(argv[0], "collapse");
	printf("%s: %llu ranges collapsed, %llu already huge\n", argv[0],
	       (unsigned long long)c.collapsed, (unsigned long long)c.huge);
	close(fd);
	return ret;
}

static int cmd_policy(int argc, char **argv)
{
	__u32 v;
	int fd, ret = 0;

	if (argc < 1 || argc > 2)
		return bad_usage("policy: FILE [POLICY]");
	if (argc == 2) {
		for (v = 0; v < sizeof(policies) / sizeof(policies[0]); v++)
			if (!strcmp(argv[1], policies[v]))
				break;
		if (v == sizeof(policies) / sizeof(policies[0]))
			return bad_usage("policy: always, within_size, advise, never or inherit");
	}
	fd = open_file(argv[0], O_RDONLY);
	if (fd < 0)
		return 1;
	if (argc == 2 && ioctl(fd, HUGETMPFS_IOC_SET_HUGE, &v))
		ret = fail(argv[0], "set policy");
	else if (ioctl(fd, HUGETMPFS_IOC_GET_HUGE, &v))
		ret = fail(argv[0], "policy");
	else
		printf("%s: %s\n", argv[0], policy_name(v));
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return bad_usage("what to do?");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "stat"))
		return cmd_stat(argc - 2, argv + 2);
	if (!strcmp(argv[1], "collapse"))
		return cmd_collapse(argc - 2, argv + 2);
	if (!strcmp(argv[1], "policy"))
		return cmd_policy(argc - 2, argv + 2);
	return bad_usage("unknown command");
}
