// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs collapse: rebuild a PMD-sized folio from the small folios (and
 * holes) of an aligned 2 MiB range of a file, mapped or not. Mainline leaves
 * this to khugepaged, which only visits files mapped in a VMA and leaves
 * ours alone (AS_SWAP_BACKED); here the file system does it itself, for
 * HUGETMPFS_IOC_COLLAPSE (ioctl.c) and its own thread (scan.c).
 *
 * Collapsing one range, with the inode lock and the invalidate lock held,
 * so that no write, fallocate, truncate, punch or fault can change it:
 *  - lock every folio in the range, and check that each may be copied (not
 *    under writeback, not poisoned, wholly inside the range);
 *  - allocate and charge the huge folio (to the memory cgroup of the data
 *    it takes over) and the space of the holes it fills;
 *  - unmap the range from every process, then check that nobody else holds
 *    a reference (a pin for I/O, say): a pinned page would go on being
 *    written after the copy (the caller drains the per-CPU LRU batches,
 *    which hold folios just added for a while);
 *  - copy the data, zero the holes, and swap the new folio in for all the
 *    old ones in one store under the page cache lock, so that lockless
 *    readers see the old data or the new, never a hole;
 *  - drop the page tables that processes kept for the range, so that their
 *    next fault maps the new folio with a PMD.
 * Lockless readers may still hold the old folios for a moment: they read
 * the same bytes, and the last of them frees the folio.
 */
#include <linux/highmem.h>
#include <linux/huge_mm.h>
#include <linux/khugepaged.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/swap.h>

#include "internal.h"
#include "trace.h"

/* The folios of one range, locked and referenced, in index order */
struct htmpfs_collapse_range {
	pgoff_t index;
	int nr;			/* folios in @folios */
	int present;		/* pages they hold */
	bool mapped;		/* one of them was mapped */
	struct folio *folios[HPAGE_PMD_NR];
};

static void htmpfs_collapse_release(struct htmpfs_collapse_range *r)
{
	while (r->nr) {
		struct folio *folio = r->folios[--r->nr];

		folio_unlock(folio);
		folio_put(folio);
	}
}

/*
 * Lock the folios of the range. Return HTMPFS_COLLAPSED if they may be
 * copied, or why not (with nothing held).
 */
static enum htmpfs_collapse htmpfs_collapse_lock(struct inode *inode,
						 struct htmpfs_collapse_range *r)
{
	pgoff_t end = r->index + HPAGE_PMD_NR, i = r->index;
	struct folio *folio;

	r->nr = 0;
	r->present = 0;
	r->mapped = false;
	while (i < end) {
		folio = filemap_lock_folio(inode->i_mapping, i);
		if (IS_ERR(folio)) {
			void *entry = xa_load(&inode->i_mapping->i_pages, i);

			/*
			 * In swap: its use will bring it back, and the file
			 * is queued then. Reading it in here would fight
			 * the reclaim that put it there.
			 */
			if (xa_is_value(entry)) {
				htmpfs_collapse_release(r);
				return HTMPFS_COLLAPSE_BUSY;
			}
			/* Back from swap (read(2), swapoff) since: no hole. */
			if (!entry)
				i++;
			continue;
		}
		r->folios[r->nr++] = folio;
		if (folio_test_pmd_mappable(folio)) {
			htmpfs_collapse_release(r);
			return folio->index == r->index ? HTMPFS_COLLAPSE_HUGE :
							  HTMPFS_COLLAPSE_BUSY;
		}
		/* Straddling the range, in flight, or unreadable: not now. */
		if (folio->index < r->index || folio_next_index(folio) > end ||
		    !folio_test_uptodate(folio) || folio_test_writeback(folio) ||
		    htmpfs_folio_poisoned(folio)) {
			htmpfs_collapse_release(r);
			return HTMPFS_COLLAPSE_BUSY;
		}
		VM_WARN_ON_FOLIO(!htmpfs_folio_safe(folio), folio);
		r->present += folio_nr_pages(folio);
		r->mapped |= folio_mapped(folio);
		i = folio_next_index(folio);
	}
	return HTMPFS_COLLAPSED;
}

/* After unmapping: only the page cache and we may hold the old folios. */
static bool htmpfs_collapse_unpinned(struct htmpfs_collapse_range *r)
{
	int k;

	for (k = 0; k < r->nr; k++) {
		struct folio *folio = r->folios[k];

		if (folio_mapped(folio) ||
		    folio_ref_count(folio) != folio_nr_pages(folio) + 1)
			return false;
	}
	return true;
}

/* The data of the old folios into @new, holes zeroed. */
static void htmpfs_collapse_copy(struct htmpfs_collapse_range *r,
				 struct folio *new)
{
	pgoff_t i = r->index;
	int k, j;

	for (k = 0; k < r->nr; k++) {
		struct folio *folio = r->folios[k];

		for (; i < folio->index; i++)
			clear_highpage(folio_page(new, i - r->index));
		for (j = 0; j < folio_nr_pages(folio); j++, i++)
			copy_highpage(folio_page(new, i - r->index),
				      folio_page(folio, j));
		cond_resched();
	}
	for (; i < r->index + HPAGE_PMD_NR; i++)
		clear_highpage(folio_page(new, i - r->index));
}

/*
 * Replace the old folios by @new in the page cache, in one store. Return
 * false if the range is not what was locked: a page in swap may have come
 * back meanwhile (swap-in by read(2) or swapoff takes neither of our locks).
 */
static bool htmpfs_collapse_store(struct address_space *mapping,
				  struct htmpfs_collapse_range *r,
				  struct folio *new)
{
	XA_STATE_ORDER(xas, &mapping->i_pages, r->index, HPAGE_PMD_ORDER);
	XA_STATE(walk, &mapping->i_pages, r->index);
	pgoff_t last = r->index + HPAGE_PMD_NR - 1;
	struct folio *folio;
	bool same;
	int k;

	do {
		xas_lock_irq(&xas);
		k = 0;
		same = true;
		xas_set(&walk, r->index);
		xas_for_each(&walk, folio, last)
			same &= k < r->nr && folio == r->folios[k++];
		if (!same || k != r->nr) {
			xas_unlock_irq(&xas);
			return false;
		}
		xas_set_order(&xas, r->index, HPAGE_PMD_ORDER);
		xas_store(&xas, new);
		if (xas_error(&xas)) {
			xas_unlock_irq(&xas);
			continue;
		}
		mapping->nrpages += HPAGE_PMD_NR - r->present;
		/* Each old folio's own node and cgroup, as truncation would. */
		for (k = 0; k < r->nr; k++) {
			long nr = folio_nr_pages(r->folios[k]);

			__lruvec_stat_mod_folio(r->folios[k], NR_FILE_PAGES, -nr);
			__lruvec_stat_mod_folio(r->folios[k], NR_SHMEM, -nr);
		}
		__lruvec_stat_mod_folio(new, NR_FILE_PAGES, HPAGE_PMD_NR);
		__lruvec_stat_mod_folio(new, NR_SHMEM, HPAGE_PMD_NR);
		__lruvec_stat_mod_folio(new, NR_SHMEM_THPS, HPAGE_PMD_NR);
		xas_unlock_irq(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));
	return !xas_error(&xas);
}

/* Charge @new where the data it takes over is charged. */
static bool htmpfs_collapse_charge(struct htmpfs_collapse_range *r,
				   struct folio *new, gfp_t gfp)
{
	struct mem_cgroup *old;
	int err;

	/*
	 * Locked, so its cgroup is stable. Only if the cgroup has room: making
	 * room would push its own data out to swap, which it would fault back
	 * in, and a reader of the cgroup at its limit would be OOM-killed.
	 */
	old = set_active_memcg(folio_memcg(r->folios[0]));
	err = mem_cgroup_charge(new, NULL, gfp & ~__GFP_DIRECT_RECLAIM);
	set_active_memcg(old);
	return !err;
}

/* The record of the new folio: the pages that held data are data. */
static void htmpfs_collapse_record(struct inode *inode,
				   struct htmpfs_collapse_range *r,
				   struct folio *new, struct htmpfs_holes *h)
{
	int k;

	if (htmpfs_holes_add(inode, new, h))
		return;		/* no record: never shrunk, still correct */
	for (k = 0; k < r->nr; k++) {
		struct folio *folio = r->folios[k];

		htmpfs_holes_fill(inode, new, folio_pos(folio),
				  folio_pos(folio) + folio_size(folio));
	}
}

/* Free the old folios, out of the page cache now. */
static void htmpfs_collapse_free_old(struct htmpfs_collapse_range *r)
{
	while (r->nr) {
		struct folio *folio = r->folios[--r->nr];

		folio->mapping = NULL;
		folio_unlock(folio);
		/* The page cache's references, and ours. */
		folio_put_refs(folio, folio_nr_pages(folio) + 1);
	}
}

/*
 * Collapse the locked range @r into @new (allocated, not charged). The
 * caller holds the inode lock and the invalidate lock; @r is released and
 * @new used or put, whatever happens.
 */
static enum htmpfs_collapse htmpfs_collapse_locked(struct inode *inode,
						   struct htmpfs_collapse_range *r,
						   struct folio *new, gfp_t gfp)
{
	struct address_space *mapping = inode->i_mapping;
	long holes = HPAGE_PMD_NR - r->present;
	enum htmpfs_collapse ret;
	struct htmpfs_holes *h;

	if (htmpfs_charge_blocks(inode, holes)) {
		ret = HTMPFS_COLLAPSE_NOSPACE;
		goto put;
	}
	ret = HTMPFS_COLLAPSE_CHARGE;
	if (!htmpfs_collapse_charge(r, new, gfp))
		goto uncharge;
	ret = HTMPFS_COLLAPSE_NOMEM;
	h = htmpfs_holes_new(inode, new);
	if (!h)
		goto uncharge;
	__folio_set_locked(new);
	__folio_set_swapbacked(new);

	/* Faults wait on the invalidate lock; fault-around skips locked folios. */
	if (r->mapped)
		unmap_mapping_range(mapping, (loff_t)r->index << PAGE_SHIFT,
				    HPAGE_PMD_SIZE, 0);
	ret = HTMPFS_COLLAPSE_BUSY;
	if (!htmpfs_collapse_unpinned(r))
		goto unlock;
	htmpfs_collapse_copy(r, new);
	folio_mark_uptodate(new);
	/* Dirty from birth: see "What keeps data safe" in internal.h. */
	folio_mark_dirty(new);
	folio_ref_add(new, HPAGE_PMD_NR);
	new->mapping = mapping;
	new->index = r->index;
	if (!htmpfs_collapse_store(mapping, r, new)) {
		new->mapping = NULL;
		folio_ref_sub(new, HPAGE_PMD_NR);
		goto unlock;
	}
	folio_add_lru(new);
	htmpfs_record(inode, holes);
	htmpfs_collapse_record(inode, r, new, h);
	/* While @new is locked, so no fault can map part of it meanwhile. */
	if (mapping_mapped(mapping))
		retract_page_tables(mapping, r->index);
	folio_unlock(new);
	folio_put(new);
	htmpfs_collapse_free_old(r);
	return HTMPFS_COLLAPSED;

unlock:
	__folio_clear_locked(new);
	htmpfs_holes_free_new(h);
uncharge:
	htmpfs_uncharge_blocks(inode, holes);
put:
	folio_put(new);		/* uncharges its cgroup, if charged */
	htmpfs_collapse_release(r);
	return ret;
}

/* Without locks: a range already huge, or all hole, needs no huge page. */
static enum htmpfs_collapse htmpfs_collapse_precheck(struct inode *inode,
						     pgoff_t index)
{
	struct folio *folio;
	bool huge;

	folio = filemap_get_folio(inode->i_mapping, index);
	if (IS_ERR(folio))
		return htmpfs_range_used(inode->i_mapping, index,
					 index + HPAGE_PMD_NR - 1) ?
			HTMPFS_COLLAPSED : HTMPFS_COLLAPSE_EMPTY;
	huge = folio_test_pmd_mappable(folio) && folio->index == index;
	folio_put(folio);
	return huge ? HTMPFS_COLLAPSE_HUGE : HTMPFS_COLLAPSED;
}

static void htmpfs_collapse_count(struct htmpfs_sb_info *sbi,
				  enum htmpfs_collapse ret)
{
	switch (ret) {
	case HTMPFS_COLLAPSED:
		htmpfs_count(sbi, HTMPFS_STAT_COLLAPSED);
		break;
	case HTMPFS_COLLAPSE_SPARSE:
		htmpfs_count(sbi, HTMPFS_STAT_COLLAPSE_SPARSE);
		break;
	case HTMPFS_COLLAPSE_BUSY:
		htmpfs_count(sbi, HTMPFS_STAT_COLLAPSE_BUSY);
		break;
	case HTMPFS_COLLAPSE_NOMEM:
		htmpfs_count(sbi, HTMPFS_STAT_COLLAPSE_NOMEM);
		break;
	case HTMPFS_COLLAPSE_NOSPACE:
		htmpfs_count(sbi, HTMPFS_STAT_COLLAPSE_NOSPACE);
		break;
	case HTMPFS_COLLAPSE_CHARGE:
		htmpfs_count(sbi, HTMPFS_STAT_COLLAPSE_CHARGE);
		break;
	default:		/* nothing to do: not an attempt */
		break;
	}
}

/**
 * htmpfs_collapse - make the 2 MiB range at @index one PMD-sized folio
 * @inode: a regular file, with a reference
 * @index: first page of the range, aligned to HPAGE_PMD_NR
 * @max_holes: at most this many pages of the range may be holes (they are
 *	filled with zeroes, and cost memory and space)
 * @gfp: how hard to try for the huge page
 *
 * Takes the inode lock and the invalidate lock. Only ranges inside i_size
 * are collapsed (a PMD maps only those); the huge= policy is the caller's
 * business. Counts the outcome in the mount's statistics.
 *
 * Return: HTMPFS_COLLAPSED, or why the range was left as it was.
 */
enum htmpfs_collapse htmpfs_collapse(struct inode *inode, pgoff_t index,
				     unsigned int max_holes, gfp_t gfp)
{
	struct address_space *mapping = inode->i_mapping;
	struct htmpfs_collapse_range *r = NULL;
	struct folio *new = NULL;
	enum htmpfs_collapse ret;

	ret = htmpfs_collapse_precheck(inode, index);
	if (ret != HTMPFS_COLLAPSED)
		goto out;
	/* Before any lock: this may reclaim and compact. */
	ret = HTMPFS_COLLAPSE_NOMEM;
	r = kmalloc(sizeof(*r), GFP_KERNEL);
	new = htmpfs_mpol_alloc(inode, gfp, HPAGE_PMD_ORDER, index);
	if (!r || !new)
		goto out;
	r->index = index;
	inode_lock(inode);
	filemap_invalidate_lock(mapping);
	ret = HTMPFS_COLLAPSE_EMPTY;	/* truncated meanwhile */
	if (index + HPAGE_PMD_NR > i_size_read(inode) >> PAGE_SHIFT)
		goto unlock;
	ret = htmpfs_collapse_lock(inode, r);
	if (ret != HTMPFS_COLLAPSED)
		goto unlock;
	if (!r->present || HPAGE_PMD_NR - r->present > max_holes) {
		htmpfs_collapse_release(r);
		ret = r->present ? HTMPFS_COLLAPSE_SPARSE : HTMPFS_COLLAPSE_EMPTY;
		goto unlock;
	}
	ret = htmpfs_collapse_locked(inode, r, new, gfp);
	new = NULL;
unlock:
	filemap_invalidate_unlock(mapping);
	inode_unlock(inode);
out:
	if (new)
		folio_put(new);
	kfree(r);
	trace_hugetmpfs_collapse(inode, index, ret);
	htmpfs_collapse_count(HTMPFS_SB(inode->i_sb), ret);
	return ret;
}
