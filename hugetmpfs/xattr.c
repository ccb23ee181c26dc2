// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs extended attributes (security., trusted., user.) and POSIX
 * ACLs, kept in memory with the inode like everything else.
 */
#include <linux/iversion.h>
#include <linux/xattr.h>

#include "internal.h"

static int htmpfs_xattr_get(const struct xattr_handler *handler,
			    struct dentry *unused, struct inode *inode,
			    const char *name, void *buffer, size_t size)
{
	return simple_xattr_get(&HTMPFS_I(inode)->xattrs,
				xattr_full_name(handler, name), buffer, size);
}

static int htmpfs_xattr_set(const struct xattr_handler *handler,
			    struct mnt_idmap *idmap, struct dentry *unused,
			    struct inode *inode, const char *name,
			    const void *value, size_t size, int flags)
{
	struct simple_xattr *old;

	old = simple_xattr_set(&HTMPFS_I(inode)->xattrs,
			       xattr_full_name(handler, name), value, size,
			       flags);
	if (IS_ERR(old))
		return PTR_ERR(old);
	simple_xattr_free(old);
	inode_set_ctime_current(inode);
	inode_inc_iversion(inode);
	return 0;
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
