// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs: walking the inodes of a mount, as drop_caches does, for what
 * has to look at every file (statistics, space given back, swapoff); and
 * letting go of inode references where eviction may not run.
 *
 * The last iput() evicts, and eviction takes the file's invalidate lock and
 * its folio locks. Reclaim and the walks run inside faults and writes that
 * hold another file's invalidate lock or a folio lock: there, a reference
 * that may be the last is left to a worker.
 */
#include <linux/fs.h>
#include <linux/llist.h>
#include <linux/sched.h>
#include <linux/workqueue.h>

#include "internal.h"

static void htmpfs_iput_work(struct work_struct *work)
{
	struct htmpfs_sb_info *sbi = container_of(work, struct htmpfs_sb_info,
						  iput_work);
	struct llist_node *list = llist_del_all(&sbi->iputs);
	struct htmpfs_inode_info *info, *next;

	llist_for_each_entry_safe(info, next, list, iput_node)
		iput(&info->vfs_inode);
}

/**
 * htmpfs_iputs_init - set up a new mount's deferred iputs
 * @sbi: the mount
 */
void htmpfs_iputs_init(struct htmpfs_sb_info *sbi)
{
	init_llist_head(&sbi->iputs);
	INIT_WORK(&sbi->iput_work, htmpfs_iput_work);
}

/**
 * htmpfs_iputs_flush - wait for the deferred iputs of a mount
 * @sbi: the mount, at unmount, once nothing can defer more
 */
void htmpfs_iputs_flush(struct htmpfs_sb_info *sbi)
{
	flush_work(&sbi->iput_work);
}

/**
 * htmpfs_iput_deferred - drop an inode reference without evicting here
 * @inode: the inode; if this is its last reference, a worker drops it
 */
void htmpfs_iput_deferred(struct inode *inode)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(inode->i_sb);

	if (atomic_add_unless(&inode->i_count, -1, 1))
		return;		/* not the last: dropped */
	if (llist_add(&HTMPFS_I(inode)->iput_node, &sbi->iputs))
		queue_work(system_unbound_wq, &sbi->iput_work);
}

/**
 * htmpfs_walk_inodes - call @fn on the inodes of a mount that @want
 * @sb: the mount
 * @want: a cheap test, under the mount's inode list lock (no sleeping)
 * @fn: called with a reference to the inode and no lock held (it may
 *	sleep); a non-zero return ends the walk
 * @arg: for @fn
 *
 * Inodes being made or freed are skipped: eviction settles a file itself.
 * A reference that turns out to be the last is dropped by a worker (see
 * above): callers may hold another file's invalidate lock.
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
		/* Not under the list lock, and never evicting here */
		if (done)
			htmpfs_iput_deferred(done);
		done = inode;
		cond_resched();
		spin_lock(&sb->s_inode_list_lock);
		if (ret)
			break;
	}
	spin_unlock(&sb->s_inode_list_lock);
	if (done)
		htmpfs_iput_deferred(done);
	return ret;
}
