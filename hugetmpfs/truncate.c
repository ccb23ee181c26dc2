// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs cutting: hole punch and truncate. A huge folio is split only
 * where that frees whole pages of it; partial pages are zeroed in whatever
 * folio holds them (back from swap if need be); swap entries in the range
 * are freed before the page cache drops them.
 */
#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/pagemap.h>

#include "internal.h"
#include "trace.h"

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
