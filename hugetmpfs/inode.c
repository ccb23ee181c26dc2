// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs inodes: allocation, attributes and eviction.
 */
#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/iversion.h>
#include <linux/pagemap.h>
#include <linux/posix_acl.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <linux/quotaops.h>

#include "internal.h"

static struct kmem_cache *htmpfs_inode_cachep;

/*
 * Per mount, as tmpfs does: inode64 never repeats a number; inode32 wraps
 * (skipping 0), for old 32-bit binaries that fail stat() with EOVERFLOW.
 */
static ino_t htmpfs_next_ino(struct htmpfs_sb_info *sbi)
{
	u64 ino;

	do {
		ino = atomic64_inc_return(&sbi->next_ino);
		if (!READ_ONCE(sbi->opts.inode64))
			ino = (u32)ino;
	} while (!ino);
	return ino;
}

/**
 * htmpfs_alloc_inode - super_operations.alloc_inode
 * @sb: superblock the inode belongs to
 *
 * Return: a new, uninitialised VFS inode or NULL.
 */
struct inode *htmpfs_alloc_inode(struct super_block *sb)
{
	struct htmpfs_inode_info *info;

	info = alloc_inode_sb(sb, htmpfs_inode_cachep, GFP_KERNEL);
	if (!info)
		return NULL;
	spin_lock_init(&info->lock);
	info->alloced = 0;
	info->swapped = 0;
	info->swap_errors = 0;
	info->xattr_space = 0;
	htmpfs_mpol_inode_init(&info->vfs_inode, false);
#ifdef CONFIG_QUOTA
	/* The VFS leaves them to us since 6.8. */
	memset(info->dquot, 0, sizeof(info->dquot));
#endif
	xa_init(&info->holes);
	info->holes_gen = 0;
	info->holes_mapped_w = false;
	info->fsflags = 0;
	info->huge = HTMPFS_HUGE_INHERIT;
	INIT_LIST_HEAD(&info->scan_entry);
	info->huge_advised = false;
	simple_xattrs_init(&info->xattrs);
	return &info->vfs_inode;
}

/**
 * htmpfs_free_inode - super_operations.free_inode, after an RCU grace period
 * @inode: inode to free
 *
 * Long symlink bodies are freed here, since RCU path walk may still read them
 * until now.
 */
void htmpfs_free_inode(struct inode *inode)
{
	if (S_ISLNK(inode->i_mode))
		kfree(inode->i_link);
	kmem_cache_free(htmpfs_inode_cachep, HTMPFS_I(inode));
}

/**
 * htmpfs_evict_inode - super_operations.evict_inode
 * @inode: inode whose last link and reference are gone
 *
 * The page cache is the file's only copy of its data: drop it all.
 */
void htmpfs_evict_inode(struct inode *inode)
{
	htmpfs_scan_forget(inode);
	/* Swap-out waits; truncation would leave the swap entries in use. */
	filemap_invalidate_lock(&inode->i_data);
	htmpfs_swap_free(inode, 0, ULONG_MAX);
	truncate_inode_pages_final(&inode->i_data);
	filemap_invalidate_unlock(&inode->i_data);
	WARN_ON_ONCE(HTMPFS_I(inode)->swapped);
	WARN_ON_ONCE(HTMPFS_I(inode)->swap_errors);
	htmpfs_holes_evict(inode);
	htmpfs_mpol_evict(inode);
	htmpfs_recalc(inode);
	simple_xattrs_free(&HTMPFS_I(inode)->xattrs, NULL);
	if (S_ISDIR(inode->i_mode))
		simple_offset_destroy(&HTMPFS_I(inode)->dir_offsets);
	clear_inode(inode);
	dquot_free_inode(inode);
	dquot_drop(inode);
	htmpfs_level_add(HTMPFS_SB(inode->i_sb), HTMPFS_LEVEL_ISPACE,
			 -(HTMPFS_BOGO_INODE_SIZE + HTMPFS_I(inode)->xattr_space));
	htmpfs_level_add(HTMPFS_SB(inode->i_sb), HTMPFS_LEVEL_INODES, -1);
}

/**
 * htmpfs_reserve_inode - take one inode's share of the nr_inodes limit
 * @sb: superblock
 *
 * Every inode takes one, and so does every hard link after an inode's
 * first, as in tmpfs: a link pins a dentry that cannot be reclaimed.
 *
 * Return: 0, or -ENOSPC past nr_inodes.
 */
int htmpfs_reserve_inode(struct super_block *sb)
{
	if (!htmpfs_space_charge(HTMPFS_SB(sb), HTMPFS_LEVEL_ISPACE,
				 HTMPFS_BOGO_INODE_SIZE))
		return -ENOSPC;
	return 0;
}

/**
 * htmpfs_unreserve_inode - give back what htmpfs_reserve_inode() took
 * @sb: superblock
 */
void htmpfs_unreserve_inode(struct super_block *sb)
{
	htmpfs_level_add(HTMPFS_SB(sb), HTMPFS_LEVEL_ISPACE,
			 -HTMPFS_BOGO_INODE_SIZE);
}

/**
 * htmpfs_new_inode - make an inode for a new file, directory or special file
 * @sb: superblock
 * @idmap: idmap of the mount the inode is created through
 * @dir: parent directory, or NULL for the root
 * @mode: file type and permissions
 * @dev: device number for character and block special files
 *
 * Return: the new inode, ERR_PTR(-ENOSPC) past nr_inodes, ERR_PTR(-EDQUOT)
 * past the owner's inode quota, or ERR_PTR(-ENOMEM).
 */
struct inode *htmpfs_new_inode(struct super_block *sb, struct mnt_idmap *idmap,
			       const struct inode *dir, umode_t mode, dev_t dev)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(sb);
	struct inode *inode;
	int err;

	err = htmpfs_reserve_inode(sb);
	if (err)
		return ERR_PTR(err);
	inode = new_inode(sb);
	if (!inode) {
		htmpfs_unreserve_inode(sb);
		return ERR_PTR(-ENOMEM);
	}
	htmpfs_level_add(sbi, HTMPFS_LEVEL_INODES, 1);

	inode->i_ino = htmpfs_next_ino(sbi);
	/* Tells a file handle's inode from a later one with its number. */
	inode->i_generation = get_random_u32();
	inode_init_owner(idmap, inode, dir, mode);
	HTMPFS_I(inode)->crtime = simple_inode_init_ts(inode);
	htmpfs_inherit_flags(inode, dir);
	inode->i_mapping->a_ops = &htmpfs_aops;
	/* See "What keeps data safe" in internal.h. Without swap, RAM only. */
	if (!IS_ENABLED(CONFIG_SWAP) || sbi->opts.noswap)
		mapping_set_unevictable(inode->i_mapping);
	mapping_set_swap_backed(inode->i_mapping);
	mapping_set_large_folios(inode->i_mapping);

	switch (mode & S_IFMT) {
	case S_IFREG:
		inode->i_op = &htmpfs_file_inode_ops;
		inode->i_fop = &htmpfs_file_ops;
		htmpfs_mpol_inode_init(inode, true);
		break;
	case S_IFDIR:
		inode->i_op = &htmpfs_dir_inode_ops;
		inode->i_fop = &simple_offset_dir_operations;
		simple_offset_init(&HTMPFS_I(inode)->dir_offsets);
		/* "." */
		inc_nlink(inode);
		break;
	case S_IFLNK:
		inode->i_op = &htmpfs_symlink_inode_ops;
		break;
	default:
		inode->i_op = &htmpfs_special_inode_ops;
		init_special_inode(inode, mode, dev);
		break;
	}
	/* The owner's inode quota, if quotas are on. */
	err = dquot_initialize(inode);
	if (!err) {
		err = dquot_alloc_inode(inode);
		if (err)
			dquot_drop(inode);
	}
	if (err) {
		/* Nothing charged: eviction must not give it back. */
		inode->i_flags |= S_NOQUOTA;
		iput(inode);
		return ERR_PTR(err);
	}
	return inode;
}

/**
 * htmpfs_setattr - inode_operations.setattr
 * @idmap: idmap of the mount
 * @dentry: file being changed
 * @attr: what to change
 *
 * Return: 0 or a negative errno.
 */
int htmpfs_setattr(struct mnt_idmap *idmap, struct dentry *dentry,
		   struct iattr *attr)
{
	struct inode *inode = d_inode(dentry);
	int err;

	/* Even through a descriptor opened before chattr +i, as on ext4. */
	if (IS_IMMUTABLE(inode))
		return -EPERM;
	err = setattr_prepare(idmap, dentry, attr);
	if (err)
		return err;
	/* A new owner takes over the file's usage, within its quota. */
	if (is_quota_modification(idmap, inode, attr)) {
		err = dquot_initialize(inode);
		if (err)
			return err;
	}
	if (i_uid_needs_update(idmap, attr, inode) ||
	    i_gid_needs_update(idmap, attr, inode)) {
		err = dquot_transfer(idmap, inode, attr);
		if (err)
			return err;
	}

	if ((attr->ia_valid & ATTR_SIZE) && attr->ia_size != inode->i_size) {
		if (attr->ia_size > inode->i_size) {
			/*
			 * Growing only moves EOF: what lies past it (zeroes,
			 * or preallocation) stays, huge folios whole.
			 */
			i_size_write(inode, attr->ia_size);
		} else {
			/* New size first: faults check it under the lock. */
			filemap_invalidate_lock(inode->i_mapping);
			i_size_write(inode, attr->ia_size);
			htmpfs_truncate(inode, attr->ia_size);
			filemap_invalidate_unlock(inode->i_mapping);
		}
		if (!(attr->ia_valid & (ATTR_CTIME | ATTR_MTIME))) {
			attr->ia_ctime = inode_set_ctime_current(inode);
			attr->ia_mtime = attr->ia_ctime;
			attr->ia_valid |= ATTR_CTIME | ATTR_MTIME;
		}
	}
	setattr_copy(idmap, inode, attr);
	if (attr->ia_valid & ATTR_CTIME)
		inode_inc_iversion(inode);
	if (attr->ia_valid & ATTR_MODE)
		return posix_acl_chmod(idmap, dentry, inode->i_mode);
	return 0;
}

/**
 * htmpfs_getattr - inode_operations.getattr
 * @idmap: idmap of the mount
 * @path: file to describe
 * @stat: filled in
 * @request_mask: STATX_* fields the caller wants
 * @flags: AT_* lookup flags
 *
 * st_blocks counts the memory and swap the file holds, in 512-byte units.
 *
 * Return: 0.
 */
int htmpfs_getattr(struct mnt_idmap *idmap, const struct path *path,
		   struct kstat *stat, u32 request_mask, unsigned int flags)
{
	struct inode *inode = d_inode(path->dentry);

	generic_fillattr(idmap, request_mask, inode, stat);
	htmpfs_fill_statx_attrs(inode, stat);
	stat->blocks = (u64)(READ_ONCE(inode->i_mapping->nrpages) +
			     READ_ONCE(HTMPFS_I(inode)->swapped)) <<
		       (PAGE_SHIFT - 9);
	/* The I/O size that fills a huge folio, where one may be made. */
	stat->blksize = htmpfs_huge_allowed(inode, 0, 0, NULL) ?
			HPAGE_PMD_SIZE : PAGE_SIZE;
	return 0;
}

static void htmpfs_inode_init_once(void *p)
{
	struct htmpfs_inode_info *info = p;

	inode_init_once(&info->vfs_inode);
}

/**
 * htmpfs_inode_cache_init - create the inode slab cache at module load
 *
 * Return: 0 or -ENOMEM.
 */
int htmpfs_inode_cache_init(void)
{
	htmpfs_inode_cachep = kmem_cache_create("hugetmpfs_inode_cache",
						sizeof(struct htmpfs_inode_info),
						0,
						SLAB_RECLAIM_ACCOUNT |
						SLAB_ACCOUNT,
						htmpfs_inode_init_once);
	return htmpfs_inode_cachep ? 0 : -ENOMEM;
}

/**
 * htmpfs_inode_cache_destroy - destroy the inode slab cache at module unload
 */
void htmpfs_inode_cache_destroy(void)
{
	/* free_inode runs after a grace period: wait for the last of them. */
	rcu_barrier();
	kmem_cache_destroy(htmpfs_inode_cachep);
}
