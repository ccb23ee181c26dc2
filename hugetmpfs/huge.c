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
#include <linux/pagemap.h>

#include "internal.h"

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
	WRITE_ONCE(htmpfs_override, i);
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
 * htmpfs_huge_allowed - may the folio covering @index be PMD-sized?
 * @inode: the file
 * @index: page index being written or faulted
 * @write_end: end of the write in bytes, or 0 for a fault
 * @vma: the mapping being faulted, or NULL for write(2)
 *
 * MADV_NOHUGEPAGE (and PR_SET_THP_DISABLE) always win; then the module
 * override; then the mount's huge= policy, with mainline tmpfs's meaning:
 * within_size wants the whole 2 MiB range inside i_size or the write, and
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

	switch (READ_ONCE(HTMPFS_SB(inode->i_sb)->opts.huge)) {
	case HTMPFS_HUGE_NEVER:
		return false;
	case HTMPFS_HUGE_ALWAYS:
		return true;
	case HTMPFS_HUGE_WITHIN_SIZE:
		size = max(write_end, i_size_read(inode));
		if (DIV_ROUND_UP(size, PAGE_SIZE) >=
		    round_up(index + 1, HPAGE_PMD_NR))
			return true;
		fallthrough;
	case HTMPFS_HUGE_ADVISE:
		return vm_flags & VM_HUGEPAGE;
	}
	return false;
}

/**
 * htmpfs_huge_prepare - put a zeroed PMD-sized folio where @index falls
 * @inode: the file
 * @index: page index about to be written or faulted
 * @vma: the mapping being faulted, or NULL for write(2)
 *
 * Best effort, only where the whole 2 MiB range is still a hole: the caller
 * then finds the folio through the page cache as usual, or makes a small one
 * if this failed. Counts both outcomes. The huge page is allocated as THP
 * faults allocate theirs, following /sys/kernel/mm/transparent_hugepage/defrag
 * (by default: no direct reclaim or compaction unless MADV_HUGEPAGE).
 */
void htmpfs_huge_prepare(struct inode *inode, pgoff_t index,
			 struct vm_area_struct *vma)
{
	struct address_space *mapping = inode->i_mapping;
	gfp_t gfp = mapping_gfp_mask(mapping);
	struct htmpfs_sb_info *sbi = HTMPFS_SB(inode->i_sb);
	pgoff_t start = round_down(index, HPAGE_PMD_NR);
	loff_t pos = (loff_t)start << PAGE_SHIFT;
	struct folio *folio;
	int err;

	if (filemap_range_has_page(mapping, pos, pos + HPAGE_PMD_SIZE - 1)) {
		htmpfs_count(sbi, HTMPFS_STAT_HUGE_FALLBACK_POPULATED);
		return;
	}

	folio = filemap_alloc_folio(vma_thp_gfp_mask(vma) | __GFP_NOWARN,
				    HPAGE_PMD_ORDER);
	if (!folio) {
		htmpfs_count(sbi, HTMPFS_STAT_HUGE_FALLBACK_NOMEM);
		return;
	}
	folio_zero_range(folio, 0, folio_size(folio));
	folio_mark_uptodate(folio);

	err = filemap_add_folio(mapping, folio, start, gfp);
	if (err) {
		/* Raced with another allocation, or memcg said no. */
		folio_put(folio);
		htmpfs_count(sbi, err == -EEXIST ?
			     HTMPFS_STAT_HUGE_FALLBACK_POPULATED :
			     HTMPFS_STAT_HUGE_FALLBACK_NOMEM);
		return;
	}
	folio_mark_dirty(folio);
	folio_unlock(folio);
	folio_put(folio);
	htmpfs_count(sbi, HTMPFS_STAT_HUGE_ALLOC);
}
