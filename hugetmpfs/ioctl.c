// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs ioctls: one dispatch for every command of <linux/hugetmpfs.h>
 * on a regular file: the per-file huge-folio policy (SET/GET_HUGE), how a
 * file is held in memory (STAT), and collapsing its ranges now (COLLAPSE).
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/mount.h>
#include <linux/swap.h>
#include <linux/uaccess.h>

#include <uapi/linux/hugetmpfs.h>

#include "internal.h"

/*
 * htmpfs_huge_ioctl - HUGETMPFS_IOC_SET_HUGE and HUGETMPFS_IOC_GET_HUGE
 * @file: a regular file of the mount
 * @cmd: which
 * @arg: the __u32 policy to set, or where to put it
 *
 * Setting takes the owner or CAP_FOWNER, as chattr does; it applies to
 * folios made from now on.
 *
 * Return: 0; -EPERM not the owner, -EINVAL for a value that is no policy
 * (with a kernel log line), -EFAULT, or -EROFS.
 */
static long htmpfs_huge_ioctl(struct file *file, unsigned int cmd,
			      u32 __user *arg)
{
	struct inode *inode = file_inode(file);
	int huge;
	u32 val;
	int err;

	if (cmd == HUGETMPFS_IOC_GET_HUGE)
		return put_user(htmpfs_huge_to_user(READ_ONCE(HTMPFS_I(inode)->huge)),
				arg);
	if (get_user(val, arg))
		return -EFAULT;
	if (!htmpfs_huge_from_user(val, &huge)) {
		pr_warn_ratelimited("hugetmpfs: HUGETMPFS_IOC_SET_HUGE: %u is not a policy (0 to 4)\n",
				    val);
		return -EINVAL;
	}
	if (!inode_owner_or_capable(file_mnt_idmap(file), inode))
		return -EPERM;
	err = mnt_want_write_file(file);
	if (err)
		return err;
	WRITE_ONCE(HTMPFS_I(inode)->huge, huge);
	mnt_drop_write_file(file);
	return 0;
}

/*
 * htmpfs_stat_ioctl - HUGETMPFS_IOC_STAT: how a file is held in memory
 * @file: a regular file of the mount
 * @arg: its struct hugetmpfs_stat
 *
 * Walks the file's page cache: a snapshot, for tools and diagnosis.
 *
 * Return: 0 or -EFAULT.
 */
static long htmpfs_stat_ioctl(struct file *file, void __user *arg)
{
	struct inode *inode = file_inode(file);
	struct htmpfs_usage u = {};
	struct hugetmpfs_stat st = {};

	htmpfs_usage_inode(inode, &u);
	st.size = i_size_read(inode);
	st.huge_folios = u.huge;
	st.small_pages = u.small;
	st.large_folios = u.large;
	st.large_pages = u.large_pages;
	st.pmd_mapped = u.pmd_mapped;
	st.hole_pages = htmpfs_holes_pages(inode);
	st.huge = htmpfs_huge_to_user(htmpfs_file_huge(inode));
	st.huge_own = htmpfs_huge_to_user(READ_ONCE(HTMPFS_I(inode)->huge));
	return copy_to_user(arg, &st, sizeof(st)) ? -EFAULT : 0;
}

/*
 * htmpfs_collapse_ioctl - HUGETMPFS_IOC_COLLAPSE
 * @file: a regular file of the mount, open for writing
 * @arg: its struct hugetmpfs_collapse
 *
 * Collapses every whole, aligned 2 MiB range of [offset, offset + length)
 * inside the file at once, whatever the huge= policy (the caller asked),
 * unless huge_override=deny; holes in a range are filled, as MADV_COLLAPSE
 * fills them. A range already huge, or all hole, is left as it is.
 *
 * Return: the ranges collapsed; -EINVAL for a bad range or flags, -EBADF
 * without write access, -EPERM under huge_override=deny, -EINTR on a fatal
 * signal; else, if a range could not be collapsed, why (for the first one):
 * -EAGAIN busy (pinned, locked, in flight), -ENOMEM no huge page to be had
 * or no room for it in the memory cgroup of the data,
 * -ENOSPC past size= or the owner's quota. The counts are written back
 * either way.
 */
static long htmpfs_collapse_ioctl(struct file *file, void __user *arg)
{
	static const int errs[] = {
		[HTMPFS_COLLAPSE_BUSY]		= -EAGAIN,
		[HTMPFS_COLLAPSE_NOMEM]		= -ENOMEM,
		[HTMPFS_COLLAPSE_NOSPACE]	= -ENOSPC,
		[HTMPFS_COLLAPSE_CHARGE]	= -ENOMEM,
	};
	struct inode *inode = file_inode(file);
	struct hugetmpfs_collapse c;
	enum htmpfs_collapse ret;
	pgoff_t index, end;
	loff_t last;
	int err = 0;

	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	if (c.flags || c.offset > MAX_LFS_FILESIZE ||
	    c.length > MAX_LFS_FILESIZE - c.offset)
		return -EINVAL;
	if (htmpfs_huge_denied())
		return -EPERM;
	last = c.length ? c.offset + c.length : MAX_LFS_FILESIZE;
	last = min(last, i_size_read(inode));
	index = round_up(c.offset >> PAGE_SHIFT, HPAGE_PMD_NR);
	end = round_down(last >> PAGE_SHIFT, HPAGE_PMD_NR);
	if (index >= end)
		return -EINVAL;		/* no whole 2 MiB range inside */

	c.collapsed = 0;
	c.huge = 0;
	/* Folios just written are held by the per-CPU LRU batches. */
	lru_add_drain_all();
	for (; index < end; index += HPAGE_PMD_NR) {
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		ret = htmpfs_collapse(inode, index, HPAGE_PMD_NR - 1,
				      GFP_TRANSHUGE | __GFP_NOWARN);
		c.collapsed += ret == HTMPFS_COLLAPSED;
		c.huge += ret == HTMPFS_COLLAPSE_HUGE;
		if (!err && ret < ARRAY_SIZE(errs) && errs[ret])
			err = errs[ret];
		cond_resched();
	}
	if (copy_to_user(arg, &c, sizeof(c)))
		return -EFAULT;
	return err ?: min_t(u64, c.collapsed, INT_MAX);
}

/**
 * htmpfs_ioctl - the ioctls of <linux/hugetmpfs.h> on a regular file
 * @file: the file
 * @cmd: HUGETMPFS_IOC_*
 * @arg: its argument
 *
 * Return: what the command returns; -ENOTTY for one that is not ours.
 */
long htmpfs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct inode *inode = file_inode(file);
	long err;

	switch (cmd) {
	case HUGETMPFS_IOC_COLLAPSE:
		return htmpfs_collapse_ioctl(file, (void __user *)arg);
	case HUGETMPFS_IOC_SET_HUGE:
		err = htmpfs_huge_ioctl(file, cmd, (u32 __user *)arg);
		/* A policy that wants huge folios: the thread makes them. */
		if (!err && htmpfs_huge_allowed(inode, 0, 0, NULL))
			htmpfs_scan_queue(inode);
		return err;
	case HUGETMPFS_IOC_GET_HUGE:
		return htmpfs_huge_ioctl(file, cmd, (u32 __user *)arg);
	case HUGETMPFS_IOC_STAT:
		return htmpfs_stat_ioctl(file, (void __user *)arg);
	}
	return -ENOTTY;
}
