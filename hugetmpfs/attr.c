// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs file attributes: the chattr(1) flags that tmpfs keeps
 * (immutable, append-only, nodump, noatime), through FS_IOC_GETFLAGS /
 * FS_IOC_SETFLAGS and FS_IOC_FSGETXATTR / FS_IOC_FSSETXATTR, which the VFS
 * turns into ->fileattr_get and ->fileattr_set. The flags live in the inode
 * for its lifetime. The VFS enforces them on every path (open, write,
 * truncate, fallocate, mmap, link, rename, unlink, xattrs, ACLs, times) once
 * they are mirrored into i_flags here.
 */
#include <linux/fs.h>
#include <linux/fileattr.h>
#include <linux/iversion.h>
#include <linux/stat.h>

#include "internal.h"

/* What chattr may change here, as in tmpfs */
#define HTMPFS_FL_MODIFIABLE \
	(FS_IMMUTABLE_FL | FS_APPEND_FL | FS_NODUMP_FL | FS_NOATIME_FL)
/* What a new inode takes from its directory, as in tmpfs */
#define HTMPFS_FL_INHERITED	(FS_NODUMP_FL | FS_NOATIME_FL)

/* Mirror the flags the VFS acts on into i_flags. */
static void htmpfs_apply_flags(struct inode *inode, unsigned int fsflags)
{
	unsigned int flags = 0;

	if (fsflags & FS_IMMUTABLE_FL)
		flags |= S_IMMUTABLE;
	if (fsflags & FS_APPEND_FL)
		flags |= S_APPEND;
	if (fsflags & FS_NOATIME_FL)
		flags |= S_NOATIME;
	inode_set_flags(inode, flags, S_IMMUTABLE | S_APPEND | S_NOATIME);
}

/**
 * htmpfs_inherit_flags - give a new inode the flags its directory passes on
 * @inode: the new inode, not yet visible
 * @dir: its directory, or NULL for the root
 */
void htmpfs_inherit_flags(struct inode *inode, const struct inode *dir)
{
	const struct htmpfs_inode_info *pinfo;

	if (!dir)
		return;
	pinfo = container_of(dir, struct htmpfs_inode_info, vfs_inode);
	HTMPFS_I(inode)->fsflags = pinfo->fsflags & HTMPFS_FL_INHERITED;
	htmpfs_apply_flags(inode, HTMPFS_I(inode)->fsflags);
}

/**
 * htmpfs_fileattr_get - inode_operations.fileattr_get
 * @dentry: the file
 * @fa: filled in
 *
 * Return: 0.
 */
int htmpfs_fileattr_get(struct dentry *dentry, struct fileattr *fa)
{
	fileattr_fill_flags(fa, READ_ONCE(HTMPFS_I(d_inode(dentry))->fsflags) &
				FS_FL_USER_VISIBLE);
	return 0;
}

/**
 * htmpfs_fileattr_set - inode_operations.fileattr_set
 * @idmap: idmap of the mount
 * @dentry: the file
 * @fa: the new flags
 *
 * The VFS has checked ownership, CAP_LINUX_IMMUTABLE for the immutable and
 * append-only flags, and holds the inode lock.
 *
 * Return: 0, or -EOPNOTSUPP for a flag or an xfs attribute hugetmpfs has
 * not got.
 */
int htmpfs_fileattr_set(struct mnt_idmap *idmap, struct dentry *dentry,
			struct fileattr *fa)
{
	struct inode *inode = d_inode(dentry);
	struct htmpfs_inode_info *info = HTMPFS_I(inode);

	if (fileattr_has_fsx(fa) || (fa->flags & ~HTMPFS_FL_MODIFIABLE))
		return -EOPNOTSUPP;
	WRITE_ONCE(info->fsflags, (info->fsflags & ~HTMPFS_FL_MODIFIABLE) |
				  fa->flags);
	htmpfs_apply_flags(inode, info->fsflags);
	inode_set_ctime_current(inode);
	inode_inc_iversion(inode);
	return 0;
}

/**
 * htmpfs_fill_statx_attrs - the flags statx(2) reports, and birth time
 * @inode: the file
 * @stat: filled in
 */
void htmpfs_fill_statx_attrs(struct inode *inode, struct kstat *stat)
{
	struct htmpfs_inode_info *info = HTMPFS_I(inode);
	unsigned int fsflags = READ_ONCE(info->fsflags);

	if (fsflags & FS_APPEND_FL)
		stat->attributes |= STATX_ATTR_APPEND;
	if (fsflags & FS_IMMUTABLE_FL)
		stat->attributes |= STATX_ATTR_IMMUTABLE;
	if (fsflags & FS_NODUMP_FL)
		stat->attributes |= STATX_ATTR_NODUMP;
	stat->attributes_mask |= STATX_ATTR_APPEND | STATX_ATTR_IMMUTABLE |
				 STATX_ATTR_NODUMP;
	stat->result_mask |= STATX_BTIME;
	stat->btime = info->crtime;
}
