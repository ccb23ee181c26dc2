/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * hugetmpfs user interface: what user space can rely on.
 */
#ifndef _UAPI_LINUX_HUGETMPFS_H
#define _UAPI_LINUX_HUGETMPFS_H

/* statfs(2) f_type of a hugetmpfs mount ("HTMP") */
#define HUGETMPFS_MAGIC		0x48544d50
/* The quota format quotactl(Q_GETFMT) reports: in memory, as tmpfs's */
#define HUGETMPFS_QFMT		0x48544d51

#endif /* _UAPI_LINUX_HUGETMPFS_H */
