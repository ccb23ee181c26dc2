/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * hugetmpfs user interface: what user space can rely on.
 */
#ifndef _UAPI_LINUX_HUGETMPFS_H
#define _UAPI_LINUX_HUGETMPFS_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* statfs(2) f_type of a hugetmpfs mount ("HTMP") */
#define HUGETMPFS_MAGIC		0x48544d50
/* The quota format quotactl(Q_GETFMT) reports: in memory, as tmpfs's */
#define HUGETMPFS_QFMT		0x48544d51

/**
 * struct hugetmpfs_collapse - argument of HUGETMPFS_IOC_COLLAPSE
 * @offset: in: first byte of the file to look at
 * @length: in: bytes to look at; 0: to the end of the file
 * @flags: in: 0 (none are defined yet)
 * @collapsed: out: 2 MiB ranges made into one huge folio
 * @huge: out: ranges that already were one
 *
 * Every whole, 2 MiB-aligned range of the file inside [@offset, @offset +
 * @length) and inside its size is collapsed into one PMD-sized folio: its
 * data copied over, its holes filled with zeroes (and so charged to size=).
 * Processes that map the range get a PMD mapping at their next access.
 */
struct hugetmpfs_collapse {
	__u64 offset;
	__u64 length;
	__u64 flags;
	__u64 collapsed;
	__u64 huge;
};

/*
 * Collapse a file's ranges into huge folios at once, on a file open for
 * writing. Returns the number of ranges collapsed; fails with EINVAL for a
 * bad range (none whole inside the file) or flags, EAGAIN if a range was
 * busy (pinned pages, say), ENOMEM if no huge page could be had, ENOSPC past
 * size= or a quota, EPERM under the module's huge_override=deny; the counts
 * are filled in either way.
 */
#define HUGETMPFS_IOC_COLLAPSE	_IOWR('H', 0xa0, struct hugetmpfs_collapse)

/*
 * A file's own huge-folio policy, HUGETMPFS_IOC_SET_HUGE and _GET_HUGE (a
 * __u32): the mount's huge= option's values, or INHERIT, the mount's (the
 * default). It decides for new folios and, later, for the collapse thread,
 * like huge= but for this file only, as long as the file exists.
 */
#define HUGETMPFS_HUGE_INHERIT		0
#define HUGETMPFS_HUGE_NEVER		1
#define HUGETMPFS_HUGE_ALWAYS		2
#define HUGETMPFS_HUGE_WITHIN_SIZE	3
#define HUGETMPFS_HUGE_ADVISE		4

/* Set by the file's owner (or CAP_FOWNER); other values fail with EINVAL. */
#define HUGETMPFS_IOC_SET_HUGE	_IOW('H', 0xa1, __u32)
#define HUGETMPFS_IOC_GET_HUGE	_IOR('H', 0xa2, __u32)

/**
 * struct hugetmpfs_stat - what HUGETMPFS_IOC_STAT says of a file
 * @size: its size in bytes
 * @huge_folios: PMD-sized folios in its page cache
 * @small_pages: single pages (4 KiB folios) in its page cache
 * @pmd_mapped: huge folios mapped by a PMD entry somewhere
 * @hole_pages: pages of its huge folios that hold no data (the hole
 *	shrinker's to give back)
 * @huge: the policy in force for it, a HUGETMPFS_HUGE_* value other than
 *	INHERIT (its own, or its mount's)
 * @huge_own: its own policy (HUGETMPFS_HUGE_INHERIT if none)
 * @large_folios: folios larger than a page and smaller than PMD size (made
 *	where a huge folio could not be)
 * @large_pages: pages in those
 */
struct hugetmpfs_stat {
	__u64 size;
	__u64 huge_folios;
	__u64 small_pages;
	__u64 pmd_mapped;
	__u64 hole_pages;
	__u32 huge;
	__u32 huge_own;
	__u64 large_folios;
	__u64 large_pages;
};

#define HUGETMPFS_IOC_STAT	_IOR('H', 0xa3, struct hugetmpfs_stat)

#endif /* _UAPI_LINUX_HUGETMPFS_H */
