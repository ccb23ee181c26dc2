// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs directories: the namespace lives entirely in the dcache. Every
 * positive dentry holds an extra reference, dropped by unlink/rmdir or by
 * kill_litter_super at unmount. Each directory also maps readdir offsets to
 * its entries, so that a readdir goes on correctly while entries are removed.
 */
#include <linux/iversion.h>
#include <linux/pagemap.h>
#include <linux/posix_acl.h>
#include <linux/slab.h>

#include "internal.h"

/* Directory i_size grows by this per entry, as tmpfs does, so "ls -l" shows
 * something proportional to the number of entries.
 */
#define HTMPFS_DIRENT_SIZE	20

static void htmpfs_dir_changed(struct inode *dir, long entries)
{
	dir->i_size += entries * HTMPFS_DIRENT_SIZE;
	inode_set_mtime_to_ts(dir, inode_set_ctime_current(dir));
	inode_inc_iversion(dir);
}

/**
 * htmpfs_offset_ctx - inode_operations.get_offset_ctx
 * @dir: a directory
 *
 * Return: the directory's readdir offset map.
 */
struct offset_ctx *htmpfs_offset_ctx(struct inode *dir)
{
	return &HTMPFS_I(dir)->dir_offsets;
}

/*
 * Give a new inode its security labels and a name in @dir. On failure the
 * caller drops the inode, which nothing else has seen yet.
 */
static int htmpfs_instantiate(struct inode *dir, struct dentry *dentry,
			      struct inode *inode)
{
	int err;

	err = htmpfs_init_security(inode, dir, &dentry->d_name);
	if (!err)
		err = simple_offset_add(htmpfs_offset_ctx(dir), dentry);
	if (err)
		return err;
	htmpfs_dir_changed(dir, 1);
	if (S_ISDIR(inode->i_mode))
		inc_nlink(dir);
	d_instantiate(dentry, inode);
	dget(dentry);		/* pinned until unlink */
	return 0;
}

static int htmpfs_mknod(struct mnt_idmap *idmap, struct inode *dir,
			struct dentry *dentry, umode_t mode, dev_t dev)
{
	struct inode *inode;
	int err;

	inode = htmpfs_new_inode(dir->i_sb, idmap, dir, mode, dev);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	/* Inherits default ACLs; applies the umask where there are none. */
	err = simple_acl_create(dir, inode);
	if (!err)
		err = htmpfs_instantiate(dir, dentry, inode);
	if (err)
		iput(inode);
	return err;
}

static int htmpfs_create(struct mnt_idmap *idmap, struct inode *dir,
			 struct dentry *dentry, umode_t mode, bool excl)
{
	return htmpfs_mknod(idmap, dir, dentry, mode | S_IFREG, 0);
}

static int htmpfs_mkdir(struct mnt_idmap *idmap, struct inode *dir,
			struct dentry *dentry, umode_t mode)
{
	return htmpfs_mknod(idmap, dir, dentry, mode | S_IFDIR, 0);
}

static int htmpfs_tmpfile(struct mnt_idmap *idmap, struct inode *dir,
			  struct file *file, umode_t mode)
{
	struct inode *inode;
	int err;

	inode = htmpfs_new_inode(dir->i_sb, idmap, dir, mode, 0);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	err = simple_acl_create(dir, inode);
	if (!err)
		err = htmpfs_init_security(inode, dir, NULL);
	if (err) {
		iput(inode);
		return err;
	}
	d_tmpfile(file, inode);
	return finish_open_simple(file, 0);
}

static int htmpfs_symlink(struct mnt_idmap *idmap, struct inode *dir,
			  struct dentry *dentry, const char *symname)
{
	size_t len = strlen(symname) + 1;
	struct inode *inode;
	int err;

	if (len > PAGE_SIZE)
		return -ENAMETOOLONG;

	inode = htmpfs_new_inode(dir->i_sb, idmap, dir, S_IFLNK | 0777, 0);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	/* A long body costs a page of size=, as tmpfs keeps it in one. */
	err = 0;
	if (len > HTMPFS_SHORT_SYMLINK_LEN) {
		err = htmpfs_charge_blocks(inode, 1);
		/* Outside the page cache: given back at eviction. */
		if (!err)
			htmpfs_record(inode, 1);
	}
	if (!err) {
		inode->i_link = kmemdup(symname, len, GFP_KERNEL_ACCOUNT);
		inode->i_size = len - 1;
		err = inode->i_link ? 0 : -ENOMEM;
	}
	if (!err)
		err = htmpfs_instantiate(dir, dentry, inode);
	if (err)
		iput(inode);
	return err;
}

static int htmpfs_link(struct dentry *old_dentry, struct inode *dir,
		       struct dentry *dentry)
{
	struct inode *inode = d_inode(old_dentry);
	int err;

	/* An O_TMPFILE's first link reuses the share its inode took. */
	if (inode->i_nlink) {
		err = htmpfs_reserve_inode(inode->i_sb);
		if (err)
			return err;
	}
	err = simple_offset_add(htmpfs_offset_ctx(dir), dentry);
	if (err) {
		if (inode->i_nlink)
			htmpfs_unreserve_inode(inode->i_sb);
		return err;
	}
	htmpfs_dir_changed(dir, 1);
	inode_set_ctime_current(inode);
	inc_nlink(inode);
	ihold(inode);
	d_instantiate(dentry, inode);
	dget(dentry);
	return 0;
}

static int htmpfs_unlink(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = d_inode(dentry);

	/* The last link's share goes with the inode, at eviction. */
	if (inode->i_nlink > 1 && !S_ISDIR(inode->i_mode))
		htmpfs_unreserve_inode(inode->i_sb);
	simple_offset_remove(htmpfs_offset_ctx(dir), dentry);
	htmpfs_dir_changed(dir, -1);
	inode_set_ctime_current(inode);
	drop_nlink(inode);
	dput(dentry);		/* the pin taken at creation */
	return 0;
}

static int htmpfs_rmdir(struct inode *dir, struct dentry *dentry)
{
	if (!simple_empty(dentry))
		return -ENOTEMPTY;

	drop_nlink(d_inode(dentry));
	drop_nlink(dir);
	return htmpfs_unlink(dir, dentry);
}

/* Leave a whiteout (for overlayfs) where @old_dentry was. */
static int htmpfs_whiteout(struct mnt_idmap *idmap, struct inode *old_dir,
			   struct dentry *old_dentry)
{
	struct dentry *whiteout;
	int err;

	whiteout = d_alloc(old_dentry->d_parent, &old_dentry->d_name);
	if (!whiteout)
		return -ENOMEM;
	err = htmpfs_mknod(idmap, old_dir, whiteout, S_IFCHR | WHITEOUT_MODE,
			   WHITEOUT_DEV);
	dput(whiteout);
	if (err)
		return err;
	/*
	 * Hash it now, while the old dentry is still hashed too: lookups see
	 * one or the other, and the rename then moves the old one away.
	 */
	d_rehash(whiteout);
	return 0;
}

static int htmpfs_rename(struct mnt_idmap *idmap, struct inode *old_dir,
			 struct dentry *old_dentry, struct inode *new_dir,
			 struct dentry *new_dentry, unsigned int flags)
{
	struct inode *inode = d_inode(old_dentry);
	int they_are_dirs = S_ISDIR(inode->i_mode);
	bool had_offset = false;
	int err;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;

	if (flags & RENAME_EXCHANGE)
		return simple_offset_rename_exchange(old_dir, old_dentry,
						     new_dir, new_dentry);

	if (!simple_empty(new_dentry))
		return -ENOTEMPTY;

	/*
	 * The moved entry takes the target's readdir offset, or a new one:
	 * get that first, as it is the step that can fail.
	 */
	err = simple_offset_add(htmpfs_offset_ctx(new_dir), new_dentry);
	if (err == -EBUSY)
		had_offset = true;
	else if (err)
		return err;

	if (flags & RENAME_WHITEOUT) {
		err = htmpfs_whiteout(idmap, old_dir, old_dentry);
		if (err) {
			if (!had_offset)
				simple_offset_remove(htmpfs_offset_ctx(new_dir),
						     new_dentry);
			return err;
		}
	}
	simple_offset_rename(old_dir, old_dentry, new_dir, new_dentry);

	if (d_really_is_positive(new_dentry)) {
		struct inode *target = d_inode(new_dentry);

		if (they_are_dirs) {
			drop_nlink(target);
			drop_nlink(old_dir);
		}
		/* unlink also updates new_dir's size and times */
		htmpfs_unlink(new_dir, new_dentry);
	} else if (they_are_dirs) {
		drop_nlink(old_dir);
		inc_nlink(new_dir);
	}

	old_dir->i_size -= HTMPFS_DIRENT_SIZE;
	new_dir->i_size += HTMPFS_DIRENT_SIZE;
	simple_rename_timestamp(old_dir, old_dentry, new_dir, new_dentry);
	inode_inc_iversion(old_dir);
	inode_inc_iversion(new_dir);
	return 0;
}

const struct inode_operations htmpfs_dir_inode_ops = {
	.create		= htmpfs_create,
	.lookup		= simple_lookup,
	.link		= htmpfs_link,
	.unlink		= htmpfs_unlink,
	.symlink	= htmpfs_symlink,
	.mkdir		= htmpfs_mkdir,
	.rmdir		= htmpfs_rmdir,
	.mknod		= htmpfs_mknod,
	.rename		= htmpfs_rename,
	.tmpfile	= htmpfs_tmpfile,
	.setattr	= htmpfs_setattr,
	.getattr	= htmpfs_getattr,
	.listxattr	= htmpfs_listxattr,
	.set_acl	= simple_set_acl,
	.get_offset_ctx	= htmpfs_offset_ctx,
	.fileattr_get	= htmpfs_fileattr_get,
	.fileattr_set	= htmpfs_fileattr_set,
};

/* Device nodes, FIFOs, sockets: chattr ioctls go to the driver, not here. */
const struct inode_operations htmpfs_special_inode_ops = {
	.setattr	= htmpfs_setattr,
	.getattr	= htmpfs_getattr,
	.listxattr	= htmpfs_listxattr,
	.set_acl	= simple_set_acl,
};

const struct inode_operations htmpfs_symlink_inode_ops = {
	.get_link	= simple_get_link,
	.setattr	= htmpfs_setattr,
	.getattr	= htmpfs_getattr,
	.listxattr	= htmpfs_listxattr,
};
