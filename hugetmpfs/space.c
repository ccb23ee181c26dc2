// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs space accounting: the levels that size= and nr_inodes= limit.
 *
 * A level is exact per mount. A charge checks the limit and adds under the
 * mount's limit_lock, which a remount changing the limit takes too, so that
 * no charge slips past a limit being lowered; giving back needs no lock.
 * Module-wide totals are per-CPU, summed when read.
 *
 * File data is charged before its folio is made, so size= fails cleanly
 * with ENOSPC, and recorded per inode once the folio is in the page cache.
 * It is given back lazily: the page cache frees folios on truncate and hole
 * punch without telling us, so htmpfs_recalc() compares what an inode was
 * charged with what its page cache still holds.
 */
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/quotaops.h>

#include "internal.h"

struct htmpfs_levels {
	long n[HTMPFS_NR_LEVELS];
};

static DEFINE_PER_CPU(struct htmpfs_levels, htmpfs_level_totals);

/**
 * htmpfs_level_add - change a level without checking its limit
 * @sbi: the mount
 * @level: which level
 * @delta: how much (negative to give back)
 */
void htmpfs_level_add(struct htmpfs_sb_info *sbi, enum htmpfs_level level,
		      long delta)
{
	atomic_long_add(delta, &sbi->levels[level]);
	this_cpu_add(htmpfs_level_totals.n[level], delta);
}

/**
 * htmpfs_level_total - a level summed over all mounts
 * @level: which level
 *
 * Return: the sum, which racing changes make approximate (never below 0:
 * a page charged on one CPU and freed on another may be summed half-way).
 */
long htmpfs_level_total(enum htmpfs_level level)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(htmpfs_level_totals, cpu).n[level];
	return max(sum, 0L);
}

/* The limit on @level in its own units, or 0; under limit_lock. */
static long htmpfs_level_limit(struct htmpfs_sb_info *sbi,
			       enum htmpfs_level level)
{
	switch (level) {
	case HTMPFS_LEVEL_BLOCKS:
		return sbi->opts.max_blocks;
	case HTMPFS_LEVEL_ISPACE:
		return sbi->opts.max_inodes * HTMPFS_BOGO_INODE_SIZE;
	default:
		return 0;
	}
}

/**
 * htmpfs_space_charge - add to a level, unless that takes it past its limit
 * @sbi: the mount
 * @level: which level
 * @delta: how much to add
 *
 * Return: true if added, false if the limit would be passed.
 */
bool htmpfs_space_charge(struct htmpfs_sb_info *sbi, enum htmpfs_level level,
			 long delta)
{
	long limit;
	bool ok;

	spin_lock(&sbi->limit_lock);
	limit = htmpfs_level_limit(sbi, level);
	ok = !limit || htmpfs_level(sbi, level) + delta <= limit;
	if (ok)
		htmpfs_level_add(sbi, level, delta);
	spin_unlock(&sbi->limit_lock);
	return ok;
}

/**
 * htmpfs_recalc - give back the space of folios the page cache let go of
 * @inode: a regular file, or an inode being evicted
 */
void htmpfs_recalc(struct inode *inode)
{
	struct htmpfs_inode_info *info = HTMPFS_I(inode);
	long freed;

	spin_lock(&info->lock);
	/* Pages in swap stay charged, as in tmpfs. */
	freed = info->alloced - info->swapped -
		READ_ONCE(inode->i_mapping->nrpages);
	if (freed > 0)
		info->alloced -= freed;
	spin_unlock(&info->lock);
	if (freed > 0)
		htmpfs_uncharge_blocks(inode, freed);
}

/* A file holding less than it was charged for */
static bool htmpfs_recalc_want(struct inode *inode)
{
	return S_ISREG(inode->i_mode) &&
	       READ_ONCE(HTMPFS_I(inode)->alloced) -
	       READ_ONCE(HTMPFS_I(inode)->swapped) >
	       READ_ONCE(inode->i_mapping->nrpages);
}

static int htmpfs_recalc_one(struct inode *inode, void *unused)
{
	htmpfs_recalc(inode);
	return 0;
}

/* Settle every file of the mount (giving back quota may sleep). */
static void htmpfs_recalc_all(struct super_block *sb)
{
	htmpfs_walk_inodes(sb, htmpfs_recalc_want, htmpfs_recalc_one, NULL);
}

/**
 * htmpfs_charge_blocks - charge pages about to be made to the mount's size=
 * @inode: the file they are for
 * @pages: how many
 *
 * Before failing, give back what the page cache freed without telling us
 * and try once more.
 *
 * The owner's block quota, if quotas are on, is charged too.
 *
 * Return: 0, -ENOSPC past size=, or -EDQUOT past the quota.
 */
int htmpfs_charge_blocks(struct inode *inode, long pages)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(inode->i_sb);
	int err;

	if (!htmpfs_space_charge(sbi, HTMPFS_LEVEL_BLOCKS, pages)) {
		htmpfs_recalc_all(inode->i_sb);
		if (!htmpfs_space_charge(sbi, HTMPFS_LEVEL_BLOCKS, pages))
			return -ENOSPC;
	}
	err = dquot_alloc_block_nodirty(inode, pages);
	if (err)
		htmpfs_level_add(sbi, HTMPFS_LEVEL_BLOCKS, -pages);
	return err;
}

/**
 * htmpfs_uncharge_blocks - give back pages charged by htmpfs_charge_blocks()
 * @inode: the file they were for
 * @pages: how many
 */
void htmpfs_uncharge_blocks(struct inode *inode, long pages)
{
	htmpfs_level_add(HTMPFS_SB(inode->i_sb), HTMPFS_LEVEL_BLOCKS, -pages);
	dquot_free_block_nodirty(inode, pages);
}

/**
 * htmpfs_record - count charged pages as held by an inode
 * @inode: the inode
 * @pages: how many; for file data, only once they are in the page cache,
 *	so that a racing htmpfs_recalc() never gives back too much
 */
void htmpfs_record(struct inode *inode, long pages)
{
	struct htmpfs_inode_info *info = HTMPFS_I(inode);

	spin_lock(&info->lock);
	info->alloced += pages;
	spin_unlock(&info->lock);
}

/**
 * htmpfs_space_set_limits - change a mount's size= and nr_inodes= at once
 * @sbi: the mount
 * @fc: the remount's context, for its error messages
 * @max_blocks: the new size= in pages (0: none), or -1 to keep it
 * @max_inodes: the new nr_inodes= (0: none), or -1 to keep it
 *
 * Return: 0, or -EINVAL if more than a new limit is in use.
 */
int htmpfs_space_set_limits(struct htmpfs_sb_info *sbi, struct fs_context *fc,
			    long max_blocks, long max_inodes)
{
	long blocks, inodes;

	spin_lock(&sbi->limit_lock);
	blocks = htmpfs_level(sbi, HTMPFS_LEVEL_BLOCKS);
	inodes = DIV_ROUND_UP(htmpfs_level(sbi, HTMPFS_LEVEL_ISPACE),
			      HTMPFS_BOGO_INODE_SIZE);
	if (max_inodes > 0 && max_inodes < inodes) {
		spin_unlock(&sbi->limit_lock);
		return invalfc(fc, "nr_inodes=%ld is below the %ld in use",
			       max_inodes, inodes);
	}
	if (max_blocks > 0 && max_blocks < blocks) {
		spin_unlock(&sbi->limit_lock);
		return invalfc(fc, "size is below the %ld pages in use",
			       blocks);
	}
	if (max_blocks >= 0)
		WRITE_ONCE(sbi->opts.max_blocks, max_blocks);
	if (max_inodes >= 0)
		WRITE_ONCE(sbi->opts.max_inodes, max_inodes);
	spin_unlock(&sbi->limit_lock);
	return 0;
}
