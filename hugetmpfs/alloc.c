// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs folio allocation and space accounting. Every folio of new file
 * data is made here: zeroed, charged to the mount's size= limit and to the
 * memory cgroup of whoever caused it, and put in the page cache swap-backed
 * (cache.c), so the kernel counts it as Shmem (ShmemHugePages,
 * ShmemPmdMapped) exactly as it counts tmpfs's.
 *
 * Space is charged before allocation (space.c), so size= fails cleanly with
 * ENOSPC, once the mount's own holes have been given back (holes.c).
 */
#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/memcontrol.h>
#include <linux/pagemap.h>
#include <linux/swap.h>

#include "internal.h"
#include "trace.h"

/*
 * Make a folio of @order at @index (aligned to it), zeroed and uptodate
 * unless a write is about to fill it (see enum htmpfs_fill), and put it in
 * the page cache. Return it locked, or ERR_PTR(-ENOSPC) past size=, -ENOMEM
 * (*@over_limit set if the memory cgroup's charge failed), or -EEXIST if
 * part of its range is already there.
 */
static struct folio *htmpfs_make_folio(struct inode *inode, pgoff_t index,
				       unsigned int order,
				       struct vm_area_struct *vma,
				       enum htmpfs_fill fill, bool *over_limit)
{
	struct address_space *mapping = inode->i_mapping;
	struct htmpfs_holes *holes = NULL;
	long nr = 1L << order;
	struct folio *folio;
	gfp_t gfp;
	int err;

	err = htmpfs_charge_blocks(inode, nr);
	if (err)
		return ERR_PTR(err);

	/*
	 * Huge pages as THP faults get theirs: see transparent_hugepage/defrag.
	 * Large ones only if free already (kswapd and kcompactd are woken):
	 * after a huge page could not be had, seven more orders of direct
	 * reclaim and compaction would cost more than they save.
	 */
	if (order == HPAGE_PMD_ORDER)
		gfp = vma_thp_gfp_mask(vma) | __GFP_NOWARN;
	else if (order)
		gfp = GFP_TRANSHUGE_LIGHT | __GFP_KSWAPD_RECLAIM;
	else
		gfp = mapping_gfp_mask(mapping);
	/* Where the file's NUMA policy at @index says. */
	folio = htmpfs_mpol_alloc(inode, gfp, order, index);
	err = -ENOMEM;
	if (!folio)
		goto unacct;
	/* The writer's cgroup, or the faulting process's: as tmpfs does. */
	err = mem_cgroup_charge(folio, vma ? vma->vm_mm : NULL, gfp);
	if (err) {
		*over_limit = true;
		goto put;
	}
	/* A huge folio whose holes could never go back is not worth it. */
	if (order == HPAGE_PMD_ORDER) {
		holes = htmpfs_holes_new(inode, folio);
		err = -ENOMEM;
		if (!holes)
			goto put;
	}
	__folio_set_locked(folio);
	__folio_set_swapbacked(folio);
	/* A write of 2 MiB would otherwise write every byte twice. */
	if (fill != HTMPFS_FILL_WRITE) {
		folio_zero_range(folio, 0, folio_size(folio));
		folio_mark_uptodate(folio);
	}
	/* Dirty from birth: see "What keeps data safe" in internal.h. */
	folio_mark_dirty(folio);

	err = htmpfs_add_to_cache(mapping, folio, index, NULL);
	if (err) {
		__folio_clear_locked(folio);
		goto put;
	}
	folio_add_lru(folio);
	/* After the insertion, so a racing htmpfs_recalc() never undercounts. */
	htmpfs_record(inode, nr);
	/* Without it the folio is only never shrunk: keep it. */
	if (holes)
		htmpfs_holes_add(inode, folio, holes);
	else
		htmpfs_holes_present(inode, folio);
	return folio;

put:
	htmpfs_holes_free_new(holes);
	folio_put(folio);
unacct:
	htmpfs_uncharge_blocks(inode, nr);
	return ERR_PTR(err);
}

/*
 * Make a folio; without memory, or past size= or a quota for a small one,
 * first give back this mount's holes (which both count) and try once more:
 * only the holes of the cgroup that is full if it was its charge that
 * failed. A huge folio past size= falls back to small pages instead: a
 * full mount should not trade one holey huge folio for another.
 */
static struct folio *htmpfs_make_folio_reclaim(struct inode *inode,
					       pgoff_t index,
					       unsigned int order,
					       struct vm_area_struct *vma,
					       enum htmpfs_fill fill)
{
	struct mem_cgroup *memcg = NULL;
	bool over_limit = false;
	struct folio *folio;
	long freed;

	folio = htmpfs_make_folio(inode, index, order, vma, fill, &over_limit);
	if (folio == ERR_PTR(-ENOMEM) ||
	    ((folio == ERR_PTR(-ENOSPC) || folio == ERR_PTR(-EDQUOT)) &&
	     !order)) {
		/* The cgroup mem_cgroup_charge() charged */
		if (over_limit)
			memcg = get_mem_cgroup_from_mm(vma ? vma->vm_mm : NULL);
		freed = htmpfs_holes_reclaim(HTMPFS_SB(inode->i_sb), memcg,
					     1L << order);
		mem_cgroup_put(memcg);
		if (freed)
			folio = htmpfs_make_folio(inode, index, order, vma,
						  fill, &over_limit);
	}
	return folio;
}

/*
 * Without a huge folio at @index, the largest large folio that fits: its
 * aligned range holds @index and nothing else yet, starts at or after page
 * @first and ends within what the file uses, @end in bytes (a large folio
 * has no hole record: pages outside the data would only waste memory until
 * truncated). NULL if none does.
 */
static struct folio *htmpfs_new_large_folio(struct inode *inode, pgoff_t index,
					    pgoff_t first, loff_t end,
					    struct vm_area_struct *vma,
					    enum htmpfs_fill fill)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(inode->i_sb);
	pgoff_t limit = DIV_ROUND_UP(end, PAGE_SIZE), start;
	bool over_limit = false;
	struct folio *folio;
	int order;

	if (!READ_ONCE(sbi->large_fallback))
		return NULL;
	for (order = HTMPFS_LARGE_MAX_ORDER; order >= HTMPFS_LARGE_MIN_ORDER;
	     order--) {
		start = round_down(index, 1UL << order);
		if (start < first || start + (1UL << order) > limit ||
		    htmpfs_range_used(inode->i_mapping, start,
				      start + (1UL << order) - 1))
			continue;
		folio = htmpfs_make_folio(inode, start, order, vma, fill,
					  &over_limit);
		if (!IS_ERR(folio)) {
			htmpfs_count(sbi, HTMPFS_STAT_LARGE_ALLOC + order -
					  HTMPFS_LARGE_MIN_ORDER);
			trace_hugetmpfs_large_alloc(inode, start, order);
			return folio;
		}
		/* A full mount is better served by single pages. */
		if (folio != ERR_PTR(-ENOMEM) && folio != ERR_PTR(-EEXIST))
			break;
	}
	return NULL;
}

/*
 * A hole at @index: fill it with a huge folio if policy and range allow,
 * else with a large one if one fits, else with a page.
 */
static struct folio *htmpfs_new_folio(struct inode *inode, pgoff_t index,
				      loff_t write_end,
				      struct vm_area_struct *vma,
				      enum htmpfs_fill fill)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(inode->i_sb);
	pgoff_t start = round_down(index, HPAGE_PMD_NR);
	enum htmpfs_stat why;
	struct folio *folio;

	if (!htmpfs_huge_allowed(inode, index, write_end, vma))
		return htmpfs_make_folio_reclaim(inode, index, 0, vma, fill);
	/* A reservation of part of a range: large folios inside it only. */
	if (fill == HTMPFS_FILL_ZERO_SMALL) {
		folio = htmpfs_new_large_folio(inode, index, index, write_end,
					       vma, HTMPFS_FILL_ZERO);
		return folio ?: htmpfs_make_folio_reclaim(inode, index, 0, vma,
							  fill);
	}

	/* Cheap check first: zeroing 2 MiB to find a neighbour is not. */
	if (htmpfs_range_used(inode->i_mapping, start,
			      start + HPAGE_PMD_NR - 1)) {
		folio = ERR_PTR(-EEXIST);
	} else {
		folio = htmpfs_make_folio_reclaim(inode, start,
						  HPAGE_PMD_ORDER, vma, fill);
		if (!IS_ERR(folio)) {
			htmpfs_count(sbi, HTMPFS_STAT_HUGE_ALLOC);
			trace_hugetmpfs_huge_alloc(inode, start, 0);
			return folio;
		}
	}

	switch (PTR_ERR(folio)) {
	case -EEXIST:
		why = HTMPFS_STAT_HUGE_FALLBACK_POPULATED;
		break;
	case -ENOSPC:
	case -EDQUOT:
		why = HTMPFS_STAT_HUGE_FALLBACK_NOSPACE;
		break;
	default:
		why = HTMPFS_STAT_HUGE_FALLBACK_NOMEM;
		break;
	}
	htmpfs_count(sbi, why);
	trace_hugetmpfs_huge_alloc(inode, start, PTR_ERR(folio));
	/* A huge folio was wanted here: the collapse thread may make it. */
	htmpfs_scan_queue(inode);
	if (why != HTMPFS_STAT_HUGE_FALLBACK_NOSPACE) {
		folio = htmpfs_new_large_folio(inode, index, 0,
					       max(write_end,
						   i_size_read(inode)),
					       vma, fill);
		if (folio)
			return folio;
	}
	return htmpfs_make_folio_reclaim(inode, index, 0, vma, fill);
}

/**
 * htmpfs_get_folio - find, or make, the folio holding page @index of a file
 * @inode: the file
 * @index: page index
 * @write_end: end in bytes of the write or fallocate being done, or 0
 * @vma: the mapping being faulted, or NULL
 * @fill: what to do with a hole
 *
 * A page in swap comes back (swap.c). A hole gets a new folio (see enum
 * htmpfs_fill): PMD-sized if the huge= policy allows and the 2 MiB range
 * around @index is all hole, else a large one or a single page.
 *
 * Return: the folio, locked and with a reference, uptodate unless it was
 * made for HTMPFS_FILL_WRITE; NULL for a hole with HTMPFS_FILL_NONE;
 * ERR_PTR(-ENOSPC) past size=, -EDQUOT, -ENOMEM, or -EIO if swap could
 * not be read.
 */
struct folio *htmpfs_get_folio(struct inode *inode, pgoff_t index,
			       loff_t write_end, struct vm_area_struct *vma,
			       enum htmpfs_fill fill)
{
	struct folio *folio;
	void *entry;

	do {
		/* Rechecks ->mapping once locked: a truncated folio is skipped. */
		folio = filemap_lock_folio(inode->i_mapping, index);
		if (!IS_ERR(folio))
			return folio;
		entry = xa_load(&inode->i_mapping->i_pages, index);
		if (!entry && fill == HTMPFS_FILL_NONE)
			return NULL;
		if (xa_is_value(entry))
			folio = htmpfs_swapin(inode, index, entry);
		else if (entry)		/* swapped in, or made, since */
			folio = ERR_PTR(-EEXIST);
		else
			folio = htmpfs_new_folio(inode, index, write_end, vma,
						 fill);
		/* -EEXIST: raced with another writer, fault or swap-in. */
	} while (folio == ERR_PTR(-EEXIST));
	return folio;
}
