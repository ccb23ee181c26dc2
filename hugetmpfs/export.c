// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs file handles: name_to_handle_at(2) and open_by_handle_at(2),
 * and so NFS export. A handle names an inode by number and a random
 * generation, so a later inode that reuses the number (inode32 wraps) is
 * not mistaken for it. Only live inodes can be found (memory is all there
 * is): a handle of a removed file is stale once nothing holds it open.
 *
 * Inodes enter the inode hash only when a handle is first made for them,
 * which keeps creation free of the hash lock for everyone else.
 */
#include <linux/exportfs.h>
#include <linux/fs.h>

#include "internal.h"

#define HTMPFS_FH_WORDS	3	/* generation, inode number low, high */

static unsigned long htmpfs_fh_hash(u64 ino, u32 gen)
{
	return (unsigned long)(ino ^ ((u64)gen << 7));
}

static int htmpfs_fh_match(struct inode *inode, void *data)
{
	const u32 *fh = data;

	return inode->i_generation == fh[0] &&
	       inode->i_ino == (((u64)fh[2] << 32) | fh[1]);
}

static int htmpfs_encode_fh(struct inode *inode, u32 *fh, int *max_len,
			    struct inode *parent)
{
	static DEFINE_SPINLOCK(hash_lock);

	if (*max_len < HTMPFS_FH_WORDS) {
		*max_len = HTMPFS_FH_WORDS;
		return FILEID_INVALID;
	}
	/* Hashing twice would corrupt the hash chain: once, under a lock. */
	if (inode_unhashed(inode)) {
		spin_lock(&hash_lock);
		if (inode_unhashed(inode))
			__insert_inode_hash(inode,
					    htmpfs_fh_hash(inode->i_ino,
							   inode->i_generation));
		spin_unlock(&hash_lock);
	}
	fh[0] = inode->i_generation;
	fh[1] = (u32)inode->i_ino;
	fh[2] = (u32)((u64)inode->i_ino >> 32);
	*max_len = HTMPFS_FH_WORDS;
	return FILEID_INO32_GEN;
}

static struct dentry *htmpfs_fh_to_dentry(struct super_block *sb,
					  struct fid *fid, int fh_len,
					  int fh_type)
{
	struct dentry *dentry = NULL;
	struct inode *inode;
	u64 ino;

	if (fh_type != FILEID_INO32_GEN || fh_len < HTMPFS_FH_WORDS)
		return NULL;
	ino = ((u64)fid->raw[2] << 32) | fid->raw[1];
	inode = ilookup5(sb, htmpfs_fh_hash(ino, fid->raw[0]), htmpfs_fh_match,
			 fid->raw);
	if (inode) {
		/* Unlinked but open, or O_TMPFILE: still the file, as on tmpfs. */
		dentry = d_find_alias(inode) ?: d_find_any_alias(inode);
		iput(inode);
	}
	return dentry;
}

/* Directories are not looked up by handle through "..": as in tmpfs. */
static struct dentry *htmpfs_get_parent(struct dentry *child)
{
	return ERR_PTR(-ESTALE);
}

const struct export_operations htmpfs_export_ops = {
	.encode_fh	= htmpfs_encode_fh,
	.fh_to_dentry	= htmpfs_fh_to_dentry,
	.get_parent	= htmpfs_get_parent,
};
