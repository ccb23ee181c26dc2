// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs: walking the inodes of a mount, as drop_caches does, for what
 * has to look at every file (statistics, space given back, swapoff).
 */
#include <linux/fs.h>
#include <linux/sched.h>

#include "internal.h"

/**
 * htmpfs_walk_inodes - call @fn on the inodes of a mount that @want
 * @sb: the mount
 * @want: a cheap test, under the mount's inode list lock (no sleeping)
 * @fn: called with a reference to the inode and no lock held (it may
 *	sleep); a non-zero return ends the walk
 * @arg: for @fn
 *
 * Inodes being made or freed are skipped: eviction settles a file itself.
 *
 * Return: the non-zero value that ended the walk, or 0.
 */
int htmpfs_walk_inodes(struct super_block *sb, bool (*want)(struct inode *),
		       int (*fn)(struct inode *, void *), void *arg)
{
	struct inode *inode, *done = NULL;
	int ret = 0;

	spin_lock(&sb->s_inode_list_lock);
	list_for_each_entry(inode, &sb->s_inodes, i_sb_list) {
		if (!want(inode))
			continue;
		spin_lock(&inode->i_lock);
		if (inode->i_state & (I_FREEING | I_WILL_FREE | I_NEW)) {
			spin_unlock(&inode->i_lock);
			continue;
		}
		__iget(inode);
		spin_unlock(&inode->i_lock);
		spin_unlock(&sb->s_inode_list_lock);
		ret = fn(inode, arg);
		/* Not under the list lock: the last reference evicts. */
		iput(done);
		done = inode;
		cond_resched();
		spin_lock(&sb->s_inode_list_lock);
		if (ret)
			break;
	}
	spin_unlock(&sb->s_inode_list_lock);
	iput(done);
	return ret;
}
