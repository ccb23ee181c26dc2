// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs huge-folio policy: which file ranges get a PMD-sized folio, and
 * making one. The mount's huge= option decides, as tmpfs's does, under a
 * module-wide override for emergencies and tests.
 */
#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mount.h>
#include <linux/pagemap.h>
#include <linux/uaccess.h>

#include <uapi/linux/hugetmpfs.h>

#include "internal.h"
#include "trace.h"

enum htmpfs_override {
	HTMPFS_OVERRIDE_NONE,	/* each mount's huge= decides */
	HTMPFS_OVERRIDE_DENY,	/* no new huge folios anywhere */
	HTMPFS_OVERRIDE_FORCE,	/* huge folios wherever a mapping allows */
};

static const char * const htmpfs_override_names[] = {
	[HTMPFS_OVERRIDE_NONE]	= "none",
	[HTMPFS_OVERRIDE_DENY]	= "deny",
	[HTMPFS_OVERRIDE_FORCE]	= "force",
};

static int htmpfs_override;

static int htmpfs_override_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(htmpfs_override_names, val);

	if (i < 0) {
		pr_warn("hugetmpfs: huge_override must be none, deny or force\n");
		return -EINVAL;
	}
	/* Huge folios allowed again: what got small pages meanwhile may go. */
	if (xchg(&htmpfs_override, i) == HTMPFS_OVERRIDE_DENY &&
	    i != HTMPFS_OVERRIDE_DENY)
		htmpfs_queue_all_mounts();
	return 0;
}

static int htmpfs_override_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  htmpfs_override_names[READ_ONCE(htmpfs_override)]);
}

static const struct kernel_param_ops htmpfs_override_ops = {
	.set = htmpfs_override_set,
	.get = htmpfs_override_get,
};

module_param_cb(huge_override, &htmpfs_override_ops, NULL, 0644);
MODULE_PARM_DESC(huge_override,
		 "none (mounts' huge= decides), deny (never huge) or force (always huge)");

/**
 * htmpfs_huge_denied - is making huge folios off, module-wide?
 *
 * Return: true under huge_override=deny.
 */
bool htmpfs_huge_denied(void)
{
	return READ_ONCE(htmpfs_override) == HTMPFS_OVERRIDE_DENY;
}

/**
 * htmpfs_file_huge - the huge-folio policy in force for a file
 * @inode: the file
 *
 * Return: its own policy (HUGETMPFS_IOC_SET_HUGE), else its mount's huge=.
 */
enum htmpfs_huge htmpfs_file_huge(struct inode *inode)
{
	int huge = READ_ONCE(HTMPFS_I(inode)->huge);

	if (huge != HTMPFS_HUGE_INHERIT)
		return huge;
	return READ_ONCE(HTMPFS_SB(inode->i_sb)->opts.huge);
}

/* The user interface's HUGETMPFS_HUGE_* values, from ours */
static const u32 htmpfs_huge_uapi[] = {
	[HTMPFS_HUGE_NEVER]		= HUGETMPFS_HUGE_NEVER,
	[HTMPFS_HUGE_ALWAYS]		= HUGETMPFS_HUGE_ALWAYS,
	[HTMPFS_HUGE_WITHIN_SIZE]	= HUGETMPFS_HUGE_WITHIN_SIZE,
	[HTMPFS_HUGE_ADVISE]		= HUGETMPFS_HUGE_ADVISE,
};

/**
 * htmpfs_huge_to_user - a policy as the user interface says it
 * @huge: policy, or HTMPFS_HUGE_INHERIT
 *
 * Return: the HUGETMPFS_HUGE_* value.
 */
u32 htmpfs_huge_to_user(int huge)
{
	return huge == HTMPFS_HUGE_INHERIT ? HUGETMPFS_HUGE_INHERIT :
					     htmpfs_huge_uapi[huge];
}

/**
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
long htmpfs_huge_ioctl(struct file *file, unsigned int cmd, u32 __user *arg)
{
	struct inode *inode = file_inode(file);
	int i, huge = HTMPFS_HUGE_INHERIT;
	u32 val;
	int err;

	if (cmd == HUGETMPFS_IOC_GET_HUGE)
		return put_user(htmpfs_huge_to_user(READ_ONCE(HTMPFS_I(inode)->huge)),
				arg);
	if (get_user(val, arg))
		return -EFAULT;
	for (i = 0; i < ARRAY_SIZE(htmpfs_huge_uapi); i++)
		if (htmpfs_huge_uapi[i] == val)
			huge = i;
	if (huge == HTMPFS_HUGE_INHERIT && val != HUGETMPFS_HUGE_INHERIT) {
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
 * A write that extends the file from the start of an empty 2 MiB range over
 * at least half of it: a file written sequentially in large writes, which
 * within_size would otherwise fill with small pages, since each range is
 * partly written before i_size covers it. At most half of the folio is left
 * unused, and only at the end of the file. The write must begin in the
 * range's first page: one that begins further in leaves a hole before it
 * (fstests' sparse-file probe writes 50 KiB at 1.6 MiB), and tmpfs gives
 * that small pages.
 */
static bool htmpfs_appending_half(struct inode *inode, pgoff_t index,
				  loff_t write_end)
{
	loff_t start = (loff_t)index << PAGE_SHIFT;

	return IS_ALIGNED(index, HPAGE_PMD_NR) &&
	       i_size_read(inode) <= start &&
	       write_end - start >= HPAGE_PMD_SIZE / 2;
}

/**
 * htmpfs_huge_allowed - may the folio covering @index be PMD-sized?
 * @inode: the file
 * @index: page index being written or faulted
 * @write_end: end of the write in bytes, or 0 for a fault
 * @vma: the mapping being faulted, or NULL for write(2)
 *
 * MADV_NOHUGEPAGE (and PR_SET_THP_DISABLE) always win; then the module
 * override; then the file's own policy if it has one, else the mount's
 * huge= policy, with mainline tmpfs's meaning:
 * within_size wants the whole 2 MiB range inside i_size or the write (or an
 * appending write over half of it, see htmpfs_appending_half()), and
 * otherwise falls back to advise, which wants MADV_HUGEPAGE.
 *
 * Return: true if a PMD-sized folio should be tried.
 */
bool htmpfs_huge_allowed(struct inode *inode, pgoff_t index, loff_t write_end,
			 struct vm_area_struct *vma)
{
	unsigned long vm_flags = vma ? vma->vm_flags : 0;
	loff_t size;

	if (vma && vma_thp_disabled(vma, vm_flags))
		return false;

	switch (READ_ONCE(htmpfs_override)) {
	case HTMPFS_OVERRIDE_DENY:
		return false;
	case HTMPFS_OVERRIDE_FORCE:
		return true;
	}

	switch (htmpfs_file_huge(inode)) {
	case HTMPFS_HUGE_NEVER:
	case HTMPFS_HUGE_INHERIT:	/* resolved by htmpfs_file_huge() */
		return false;
	case HTMPFS_HUGE_ALWAYS:
		return true;
	case HTMPFS_HUGE_WITHIN_SIZE:
		size = max(write_end, i_size_read(inode));
		if (DIV_ROUND_UP(size, PAGE_SIZE) >=
		    round_up(index + 1, HPAGE_PMD_NR))
			return true;
		if (htmpfs_appending_half(inode, index, write_end))
			return true;
		fallthrough;
	case HTMPFS_HUGE_ADVISE:
		return vm_flags & VM_HUGEPAGE;
	}
	return false;
}

/*
 * Split the large folio that holds byte @pos, page aligned, and starts
 * before it. Truncate and hole punch call this only where the split frees
 * memory: the part of the folio at or beyond @pos is what they free (the
 * split keeps it; truncate_pagecache() or the punch drops it afterwards).
 */
static void htmpfs_split_at(struct inode *inode, loff_t pos)
{
	struct folio *folio;
	pgoff_t index;
	int err;

	folio = filemap_lock_folio(inode->i_mapping, pos >> PAGE_SHIFT);
	if (IS_ERR(folio))
		return;
	VM_WARN_ON_FOLIO(!htmpfs_folio_safe(folio), folio);
	if (folio_test_large(folio) && folio_pos(folio) < pos) {
		index = folio->index;
		err = split_huge_page_to_list_to_order(&folio->page, NULL, 0);
		trace_hugetmpfs_split(inode, index, err);
		/* Else truncate_inode_partial_folio() retries, then zeroes. */
		if (!err)
			htmpfs_count(HTMPFS_SB(inode->i_sb), HTMPFS_STAT_SPLITS);
	}
	folio_unlock(folio);
	folio_put(folio);
}

/*
 * Zero [@start, @end), within one page, in whatever folio holds it (back
 * from swap if need be: the bytes past a new EOF must read as zeroes once
 * the file grows again). Without memory for that, as tmpfs, it stays.
 */
static void htmpfs_zero_partial(struct inode *inode, loff_t start, loff_t end)
{
	struct folio *folio;

	if (start >= end)
		return;
	folio = htmpfs_get_folio(inode, start >> PAGE_SHIFT, 0, NULL,
				 HTMPFS_FILL_NONE);
	if (IS_ERR_OR_NULL(folio))
		return;
	VM_WARN_ON_FOLIO(!htmpfs_folio_safe(folio), folio);
	folio_zero_range(folio, offset_in_folio(folio, start), end - start);
	folio_unlock(folio);
	folio_put(folio);
}

/**
 * htmpfs_punch - free the whole pages of [@start, @end) and zero the rest
 * @inode: the file, with i_rwsem and the invalidate lock held
 * @start: first byte
 * @end: byte after the last (LLONG_MAX is an ordinary end here)
 *
 * Unlike truncate_pagecache_range() alone, a huge folio is split only where
 * that frees whole pages of it: zeroing a few bytes keeps it, and its PMD
 * mappings, intact. Once split, the holes it held go too (holes.c).
 * Private copies in MAP_PRIVATE mappings are not shared data: they stay,
 * whatever the range. Space given back is settled with the mount.
 */
void htmpfs_punch(struct inode *inode, loff_t start, loff_t end)
{
	loff_t lo = round_up(start, PAGE_SIZE);
	loff_t hi = round_down(end, PAGE_SIZE);

	if (lo > hi) {
		/* All within one page. */
		htmpfs_zero_partial(inode, start, end);
		return;
	}
	htmpfs_zero_partial(inode, start, lo);
	htmpfs_zero_partial(inode, hi, end);
	if (lo == hi)
		return;

	htmpfs_split_at(inode, lo);
	htmpfs_split_at(inode, hi);
	/* Truncation would drop swap entries without freeing the swap. */
	htmpfs_swap_free(inode, lo >> PAGE_SHIFT, (hi >> PAGE_SHIFT) - 1);
	/* Page aligned, so the page cache has no partial folio to split. */
	truncate_pagecache_range(inode, lo, hi - 1);
	htmpfs_holes_punched(inode, lo, hi);
	htmpfs_recalc(inode);
}

/**
 * htmpfs_truncate - free what lies past a file's new, smaller size
 * @inode: the file, with i_rwsem and the invalidate lock held, and i_size
 *	already set to @size
 * @size: the new size
 *
 * Everything past @size goes, preallocation and private copies in
 * MAP_PRIVATE mappings included, as for any truncate.
 */
void htmpfs_truncate(struct inode *inode, loff_t size)
{
	loff_t lo = round_up(size, PAGE_SIZE);

	htmpfs_zero_partial(inode, size, lo);
	htmpfs_split_at(inode, lo);
	htmpfs_swap_free(inode, lo >> PAGE_SHIFT, ULONG_MAX);
	truncate_pagecache(inode, lo);
	htmpfs_holes_punched(inode, lo, LLONG_MAX);
	htmpfs_recalc(inode);
}

/**
 * htmpfs_stat_ioctl - HUGETMPFS_IOC_STAT: how a file is held in memory
 * @file: a regular file of the mount
 * @arg: its struct hugetmpfs_stat
 *
 * Walks the file's page cache: a snapshot, for tools and diagnosis.
 *
 * Return: 0 or -EFAULT.
 */
long htmpfs_stat_ioctl(struct file *file, void __user *arg)
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
