// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs extended attributes (security., trusted., user.) and POSIX
 * ACLs, kept in memory with the inode like everything else.
 */
#include <linux/iversion.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/xattr.h>

#include "internal.h"

static int htmpfs_xattr_get(const struct xattr_handler *handler,
			    struct dentry *unused, struct inode *inode,
			    const char *name, void *buffer, size_t size)
{
	return simple_xattr_get(&HTMPFS_I(inode)->xattrs,
				xattr_full_name(handler, name), buffer, size);
}

/**
 * htmpfs_xattr_space - what an extended attribute costs of nr_inodes
 * @name: its full name
 * @size: the size of its value
 *
 * The estimate tmpfs uses (simple_xattr_space()), so that the same
 * attributes fit in the same nr_inodes.
 *
 * Return: bytes.
 */
long htmpfs_xattr_space(const char *name, size_t size)
{
	return 40 + size + strlen(name);
}

static int htmpfs_xattr_set(const struct xattr_handler *handler,
			    struct mnt_idmap *idmap, struct dentry *unused,
			    struct inode *inode, const char *name,
			    const void *value, size_t size, int flags)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(inode->i_sb);
	struct htmpfs_inode_info *info = HTMPFS_I(inode);
	struct simple_xattr *old;
	long space = 0;

	name = xattr_full_name(handler, name);
	if (value) {
		space = htmpfs_xattr_space(name, size);
		if (!htmpfs_space_charge(sbi, HTMPFS_LEVEL_ISPACE, space))
			return -ENOSPC;
	}
	old = simple_xattr_set(&info->xattrs, name, value, size, flags);
	if (IS_ERR(old)) {
		htmpfs_level_add(sbi, HTMPFS_LEVEL_ISPACE, -space);
		return PTR_ERR(old);
	}
	/* i_rwsem is held: nobody else changes this inode's attributes. */
	if (old) {
		long old_space = htmpfs_xattr_space(old->name, old->size);

		htmpfs_level_add(sbi, HTMPFS_LEVEL_ISPACE, -old_space);
		space -= old_space;
	}
	info->xattr_space += space;
	simple_xattr_free(old);
	inode_set_ctime_current(inode);
	inode_inc_iversion(inode);
	return 0;
}

static int htmpfs_initxattrs(struct inode *inode,
			     const struct xattr *xattrs, void *unused)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(inode->i_sb);
	struct htmpfs_inode_info *info = HTMPFS_I(inode);
	const struct xattr *x;
	struct simple_xattr *old;
	long space;
	char *name;

	for (x = xattrs; x->name; x++) {
		name = kasprintf(GFP_KERNEL, XATTR_SECURITY_PREFIX "%s",
				 x->name);
		if (!name)
			return -ENOMEM;
		space = htmpfs_xattr_space(name, x->value_len);
		if (!htmpfs_space_charge(sbi, HTMPFS_LEVEL_ISPACE, space)) {
			kfree(name);
			return -ENOSPC;
		}
		old = simple_xattr_set(&info->xattrs, name, x->value,
				       x->value_len, XATTR_CREATE);
		kfree(name);
		if (IS_ERR(old)) {
			htmpfs_level_add(sbi, HTMPFS_LEVEL_ISPACE, -space);
			return PTR_ERR(old);
		}
		info->xattr_space += space;
	}
	return 0;
}

/**
 * htmpfs_init_security - give a new inode the labels its LSMs want
 * @inode: the new inode
 * @dir: its parent directory
 * @qstr: its name, or NULL for an O_TMPFILE
 *
 * Return: 0 or a negative errno.
 */
int htmpfs_init_security(struct inode *inode, struct inode *dir,
			 const struct qstr *qstr)
{
	return security_inode_init_security(inode, dir, qstr,
					    htmpfs_initxattrs, NULL);
}

static const struct xattr_handler htmpfs_security_xattr_handler = {
	.prefix = XATTR_SECURITY_PREFIX,
	.get = htmpfs_xattr_get,
	.set = htmpfs_xattr_set,
};

static const struct xattr_handler htmpfs_trusted_xattr_handler = {
	.prefix = XATTR_TRUSTED_PREFIX,
	.get = htmpfs_xattr_get,
	.set = htmpfs_xattr_set,
};

static const struct xattr_handler htmpfs_user_xattr_handler = {
	.prefix = XATTR_USER_PREFIX,
	.get = htmpfs_xattr_get,
	.set = htmpfs_xattr_set,
};

const struct xattr_handler * const htmpfs_xattr_handlers[] = {
	&htmpfs_security_xattr_handler,
	&htmpfs_trusted_xattr_handler,
	&htmpfs_user_xattr_handler,
	NULL
};

/**
 * htmpfs_listxattr - inode_operations.listxattr
 * @dentry: the file
 * @buffer: where the names go, or NULL to ask for the size
 * @size: size of @buffer
 *
 * Return: bytes used (or needed), or a negative errno.
 */
ssize_t htmpfs_listxattr(struct dentry *dentry, char *buffer, size_t size)
{
	struct inode *inode = d_inode(dentry);

	return simple_xattr_list(inode, &HTMPFS_I(inode)->xattrs, buffer, size);
}
