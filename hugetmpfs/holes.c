// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs hole records: which pages of each huge folio hold data.
 *
 * Each huge folio made has a record: which of its pages hold data (a write,
 * or fallocate's reservation, marks them). The other pages are holes: past
 * EOF, never written, or zeroed by a punch that could not split the folio.
 * Records with holes wait on the mount's list_lru, oldest first, per memory
 * cgroup and node, for the hole shrinker (shrink.c) to give their memory
 * back; SEEK_DATA and SEEK_HOLE read them too.
 *
 * A shared writable mapping can change a page without telling us: once a
 * file has been mapped so, its records are flagged (those made later too),
 * and their holes are read for data (under the page's lock, unmapped, so
 * nothing can write meanwhile) before any is freed.
 *
 * Locking: a record is reached through its inode's holes xarray, whose lock
 * also guards the record; its bits change with the page's folio locked too,
 * so that a locked, unmapped page's bit cannot change under the shrinker.
 * A record replaces a stale one at the same index, so whoever works on a
 * record without the lock checks its generation before changing it again.
 * The list_lru lock nests inside the xarray lock.
 */
#include <linux/highmem.h>
#include <linux/list_lru.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "holes.h"

static struct kmem_cache *htmpfs_holes_cachep;

static struct htmpfs_holes *htmpfs_holes_find(struct inode *inode,
					      pgoff_t index)
{
	return xa_load(&HTMPFS_I(inode)->holes, index >> HPAGE_PMD_ORDER);
}

/* The record at @index if it is still generation @gen; xarray lock held. */
static struct htmpfs_holes *htmpfs_holes_find_gen(struct inode *inode,
						  pgoff_t index,
						  unsigned int gen)
{
	struct htmpfs_holes *h = htmpfs_holes_find(inode, index);

	return h && h->gen == gen ? h : NULL;
}

static void htmpfs_holes_free_rec(struct htmpfs_holes *h)
{
	if (h->memcg)
		css_put(&h->memcg->css);
	kmem_cache_free(htmpfs_holes_cachep, h);
}

/* Take a record off the list and free it; xarray lock held. */
static void htmpfs_holes_unlink(struct inode *inode, struct htmpfs_holes *h)
{
	list_lru_del(&HTMPFS_SB(inode->i_sb)->holes_lru, &h->lru, h->nid,
		     h->memcg);
	htmpfs_level_add(HTMPFS_SB(inode->i_sb), HTMPFS_LEVEL_HOLES,
			 -(long)h->nr_holes);
	htmpfs_holes_free_rec(h);
}

/* Forget a record; xarray lock held. */
static void htmpfs_holes_forget(struct inode *inode, struct htmpfs_holes *h)
{
	__xa_erase(&HTMPFS_I(inode)->holes, h->index >> HPAGE_PMD_ORDER);
	htmpfs_holes_unlink(inode, h);
}

/* Pages [@first, @last] of @h hold data now; xarray lock held. */
static void htmpfs_holes_set(struct inode *inode, struct htmpfs_holes *h,
			     unsigned int first, unsigned int last)
{
	unsigned int n = 0, filled = 0, i;

	for (i = first; i <= last; i++) {
		if (__test_and_set_bit(i, h->used))
			continue;
		n++;
		/* A hole freed meanwhile gets a new page: none filled. */
		if (!__test_and_clear_bit(i, h->gone))
			filled++;
	}
	h->nr_used += n;
	h->nr_holes -= filled;
	htmpfs_level_add(HTMPFS_SB(inode->i_sb), HTMPFS_LEVEL_HOLES,
			 -(long)filled);
	/* All data: nothing left to give back, ever. */
	if (h->nr_used == HPAGE_PMD_NR)
		htmpfs_holes_forget(inode, h);
}

/**
 * htmpfs_holes_new - start the record of a huge folio just made
 * @inode: the file
 * @folio: the folio, locked, charged, not yet in the page cache
 *
 * The record is charged to the folio's memory cgroup and waits on that
 * cgroup's list for the folio's node, so that their reclaim finds it.
 *
 * Return: the record, or NULL without memory (the caller then makes no huge
 * folio: one whose holes could never be given back is not worth it).
 */
struct htmpfs_holes *htmpfs_holes_new(struct inode *inode, struct folio *folio)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(inode->i_sb);
	struct mem_cgroup *old = set_active_memcg(folio_memcg(folio));
	struct htmpfs_holes *h;

	/* At its memcg's limit, no OOM kill: the caller falls back instead. */
	h = kmem_cache_alloc_lru(htmpfs_holes_cachep, &sbi->holes_lru,
				 GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	set_active_memcg(old);
	if (!h)
		return NULL;
	INIT_LIST_HEAD(&h->lru);
	h->inode = inode;
	/* Its list was made for it by kmem_cache_alloc_lru(). */
	h->memcg = folio_memcg(folio);
	if (h->memcg)
		css_get(&h->memcg->css);
	h->nid = folio_nid(folio);
	h->nr_used = 0;
	h->nr_holes = HPAGE_PMD_NR;
	h->mapped_w = false;
	bitmap_zero(h->used, HPAGE_PMD_NR);
	bitmap_zero(h->gone, HPAGE_PMD_NR);
	return h;
}

/**
 * htmpfs_holes_add - publish the record of a huge folio now in the page cache
 * @inode: the file
 * @folio: the folio, locked
 * @h: its record, from htmpfs_holes_new()
 *
 * Return: 0, or -ENOMEM (the record is freed).
 */
int htmpfs_holes_add(struct inode *inode, struct folio *folio,
		     struct htmpfs_holes *h)
{
	struct htmpfs_inode_info *info = HTMPFS_I(inode);
	struct xarray *xa = &info->holes;
	struct htmpfs_holes *old;

	h->index = folio->index;
	xa_lock(xa);
	/* One left from a range emptied under it is stale: replace it. */
	old = htmpfs_holes_find(inode, h->index);
	if (old)
		htmpfs_holes_forget(inode, old);
	/* May drop the lock to allocate a node (see below). */
	old = __xa_store(xa, h->index >> HPAGE_PMD_ORDER, h, GFP_KERNEL);
	if (xa_is_err(old)) {
		xa_unlock(xa);
		htmpfs_holes_free_rec(h);
		return xa_err(old);
	}
	/* Replaced now: one stored while the lock was dropped. */
	if (old)
		htmpfs_holes_unlink(inode, old);
	/*
	 * Only now that it is stored, and with the lock held since: a first
	 * shared writable mmap() while __xa_store() had dropped the lock
	 * flagged every stored record but this one. Unflagged, its holes
	 * would be freed unread, with what the mapping wrote into them.
	 */
	h->gen = ++info->holes_gen;
	h->mapped_w = info->holes_mapped_w;
	list_lru_add(&HTMPFS_SB(inode->i_sb)->holes_lru, &h->lru, h->nid,
		     h->memcg);
	htmpfs_level_add(HTMPFS_SB(inode->i_sb), HTMPFS_LEVEL_HOLES,
			 HPAGE_PMD_NR);
	xa_unlock(xa);
	return 0;
}

/**
 * htmpfs_holes_free_new - free a record that was never published
 * @h: the record, or NULL
 */
void htmpfs_holes_free_new(struct htmpfs_holes *h)
{
	if (h)
		htmpfs_holes_free_rec(h);
}

/**
 * htmpfs_holes_fill - pages of a folio now hold data
 * @inode: the file
 * @folio: the folio, locked (of any size: a split record's pages count too)
 * @start: first byte written or reserved
 * @end: byte after the last
 */
void htmpfs_holes_fill(struct inode *inode, struct folio *folio, loff_t start,
		       loff_t end)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	pgoff_t first, last;
	struct htmpfs_holes *h;

	if (xa_empty(xa) || start >= end)
		return;
	first = max_t(pgoff_t, start >> PAGE_SHIFT, folio->index);
	last = min_t(pgoff_t, (end - 1) >> PAGE_SHIFT,
		     folio_next_index(folio) - 1);
	if (first > last)
		return;
	xa_lock(xa);
	h = htmpfs_holes_find(inode, first);
	if (h)
		htmpfs_holes_set(inode, h, first - h->index, last - h->index);
	xa_unlock(xa);
}

/**
 * htmpfs_holes_present - a folio was made in a split record's range
 * @inode: the file
 * @folio: the new folio, smaller than a huge one, locked, in the page cache
 *
 * Its pages are in memory again: those that are holes count as such.
 */
void htmpfs_holes_present(struct inode *inode, struct folio *folio)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	struct htmpfs_holes *h;
	pgoff_t index;
	long n = 0;

	if (xa_empty(xa))
		return;
	xa_lock(xa);
	h = htmpfs_holes_find(inode, folio->index);
	for (index = folio->index; h && index < folio_next_index(folio);
	     index++) {
		if (__test_and_clear_bit(index - h->index, h->gone) &&
		    !test_bit(index - h->index, h->used))
			n++;
	}
	if (h) {
		h->nr_holes += n;
		htmpfs_level_add(HTMPFS_SB(inode->i_sb), HTMPFS_LEVEL_HOLES, n);
	}
	xa_unlock(xa);
}

/**
 * htmpfs_holes_mmap - a file is being mapped
 * @vma: the new mapping
 *
 * A shared mapping that may be written changes pages without telling us:
 * from now on the file's holes are read for data before they are freed.
 * Under the xarray lock, so that a record is flagged when made or here.
 */
void htmpfs_holes_mmap(struct vm_area_struct *vma)
{
	struct htmpfs_inode_info *info = HTMPFS_I(file_inode(vma->vm_file));
	struct htmpfs_holes *h;
	unsigned long i;

	if ((vma->vm_flags & (VM_SHARED | VM_MAYWRITE)) !=
	    (VM_SHARED | VM_MAYWRITE) || READ_ONCE(info->holes_mapped_w))
		return;
	xa_lock(&info->holes);
	info->holes_mapped_w = true;
	xa_for_each(&info->holes, i, h)
		h->mapped_w = true;
	xa_unlock(&info->holes);
}

/* Does page @page, unmapped and locked, hold anything but zeroes? */
static bool htmpfs_page_has_data(struct page *page)
{
	void *p = kmap_local_page(page);
	bool data = memchr_inv(p, 0, PAGE_SIZE);

	kunmap_local(p);
	return data;
}

/**
 * htmpfs_holes_settle - find the data a shared mapping wrote into holes
 * @inode: the file
 * @folio: a huge folio, locked and unmapped, before anything of it is freed
 * @gen: the generation of its record
 *
 * If the file was mapped shared and writable, the holes holding data after
 * all are marked as data.
 *
 * Return: the pages holding data, or -1 if the record is gone.
 */
int htmpfs_holes_settle(struct inode *inode, struct folio *folio,
			unsigned int gen)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	struct htmpfs_holes *h;
	int i, used = -1;
	bool check, hole;

	xa_lock(xa);
	h = htmpfs_holes_find_gen(inode, folio->index, gen);
	check = h && h->mapped_w;
	xa_unlock(xa);
	/* Unmapped and locked: no byte or bit of it changes meanwhile. */
	for (i = 0; check && i < HPAGE_PMD_NR; i++) {
		xa_lock(xa);
		h = htmpfs_holes_find_gen(inode, folio->index, gen);
		hole = h && !test_bit(i, h->used);
		xa_unlock(xa);
		if (!h)
			return -1;
		if (!hole || !htmpfs_page_has_data(folio_page(folio, i)))
			continue;
		xa_lock(xa);
		h = htmpfs_holes_find_gen(inode, folio->index, gen);
		if (h)
			htmpfs_holes_set(inode, h, i, i);
		xa_unlock(xa);
	}
	xa_lock(xa);
	h = htmpfs_holes_find_gen(inode, folio->index, gen);
	if (h)
		used = h->nr_used;
	xa_unlock(xa);
	return used;
}

/**
 * htmpfs_holes_is_hole - is a page of a split record a hole?
 * @inode: the file
 * @folio: the page, locked
 * @index: its index
 * @scan: it is unmapped: if the file was mapped shared and writable, read
 *	it, and mark it as data if it holds any
 *
 * Return: true if its record says it holds no data.
 */
bool htmpfs_holes_is_hole(struct inode *inode, struct folio *folio,
			  pgoff_t index, bool scan)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	struct htmpfs_holes *h;
	bool hole, check;

	xa_lock(xa);
	h = htmpfs_holes_find(inode, index);
	/* No record: nothing says it is a hole. */
	hole = h && !test_bit(index - h->index, h->used);
	check = h && h->mapped_w;
	xa_unlock(xa);
	if (!hole || !scan || !check || !htmpfs_page_has_data(&folio->page))
		return hole;
	/* Written through a mapping: data from now on. */
	xa_lock(xa);
	h = htmpfs_holes_find(inode, index);
	if (h)
		htmpfs_holes_set(inode, h, index - h->index, index - h->index);
	xa_unlock(xa);
	return false;
}

/**
 * htmpfs_holes_gen - the generation of the record covering a page
 * @inode: the file
 * @index: the page
 * @gen: set to the generation, to find the same record later
 *
 * Return: false if no record covers @index.
 */
bool htmpfs_holes_gen(struct inode *inode, pgoff_t index, unsigned int *gen)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	struct htmpfs_holes *h;

	xa_lock(xa);
	h = htmpfs_holes_find(inode, index);
	*gen = h ? h->gen : 0;
	xa_unlock(xa);
	return h;
}

/**
 * htmpfs_holes_swept - a split record's range has been swept
 * @inode: the file
 * @index: the range's first page
 * @gen: the record's generation (a newer record is not touched)
 * @held: the hole pages the sweep found, and had to leave, in memory
 *
 * The record is forgotten once no hole is left, else it counts those left,
 * to try again; the other holes are gone from memory.
 */
void htmpfs_holes_swept(struct inode *inode, pgoff_t index, unsigned int gen,
			const unsigned long *held)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	DECLARE_BITMAP(holes, HPAGE_PMD_NR);
	struct htmpfs_holes *h;
	long kept;

	xa_lock(xa);
	h = htmpfs_holes_find_gen(inode, index, gen);
	if (h)
		bitmap_andnot(holes, held, h->used, HPAGE_PMD_NR);
	if (h && bitmap_empty(holes, HPAGE_PMD_NR)) {
		htmpfs_holes_forget(inode, h);
	} else if (h) {
		/* Neither data (a write may have come since) nor held */
		bitmap_or(h->gone, h->used, held, HPAGE_PMD_NR);
		bitmap_complement(h->gone, h->gone, HPAGE_PMD_NR);
		kept = HPAGE_PMD_NR - h->nr_used -
		       bitmap_weight(h->gone, HPAGE_PMD_NR);
		htmpfs_level_add(HTMPFS_SB(inode->i_sb), HTMPFS_LEVEL_HOLES,
				 kept - h->nr_holes);
		h->nr_holes = kept;
	}
	xa_unlock(xa);
}

/**
 * htmpfs_holes_dropped - a hole page of a split record was freed
 * @inode: the file
 * @index: the page, which was locked and a hole by its record
 */
void htmpfs_holes_dropped(struct inode *inode, pgoff_t index)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	struct htmpfs_holes *h;
	unsigned int i;

	xa_lock(xa);
	h = htmpfs_holes_find(inode, index);
	i = h ? index - h->index : 0;
	if (h && !test_bit(i, h->used) && !__test_and_set_bit(i, h->gone) &&
	    h->nr_holes) {
		h->nr_holes--;
		htmpfs_level_add(HTMPFS_SB(inode->i_sb), HTMPFS_LEVEL_HOLES,
				 -1);
	}
	xa_unlock(xa);
}

/**
 * htmpfs_holes_zeroed - pages of a whole huge folio were punched
 * @inode: the file
 * @index: the folio's first page; the folio is locked
 * @gen: its record's generation
 * @first: first page punched, from the folio's start
 * @last: last page punched
 *
 * The pages stay, zeroed: they are holes now.
 */
void htmpfs_holes_zeroed(struct inode *inode, pgoff_t index, unsigned int gen,
			 unsigned int first, unsigned int last)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	struct htmpfs_holes *h;
	long n = 0;

	xa_lock(xa);
	h = htmpfs_holes_find_gen(inode, index, gen);
	for (; h && first <= last; first++) {
		if (__test_and_clear_bit(first, h->used)) {
			h->nr_used--;
			h->nr_holes++;
			n++;
		}
	}
	htmpfs_level_add(HTMPFS_SB(inode->i_sb), HTMPFS_LEVEL_HOLES, n);
	xa_unlock(xa);
}

/*
 * For SEEK_DATA and SEEK_HOLE: the record covering @index, if it can tell
 * data from holes (a file mapped shared and writable may have data that no
 * record knows of); xarray lock held.
 */
static struct htmpfs_holes *htmpfs_holes_seekable(struct inode *inode,
						  pgoff_t index)
{
	struct htmpfs_holes *h = htmpfs_holes_find(inode, index);

	return h && !h->mapped_w ? h : NULL;
}

/**
 * htmpfs_holes_next_data - where data may be, at or after a page held
 * @inode: the file, its i_rwsem held
 * @index: a page the page cache holds
 *
 * Return: @index if its record says it holds data (or nothing says it does
 * not), else the next page of its 2 MiB range that does, or the range's end.
 */
pgoff_t htmpfs_holes_next_data(struct inode *inode, pgoff_t index)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	struct htmpfs_holes *h;
	pgoff_t next = index;

	if (xa_empty(xa))
		return index;
	xa_lock(xa);
	h = htmpfs_holes_seekable(inode, index);
	if (h)
		next = h->index + find_next_bit(h->used, HPAGE_PMD_NR,
						index - h->index);
	xa_unlock(xa);
	return next;
}

/**
 * htmpfs_holes_next_hole - the first page known to be a hole in a range
 * @inode: the file, its i_rwsem held
 * @index: first page
 * @last: last page
 *
 * Return: the first page in [@index, @last] that a record says holds no
 * data (a never-written or punched page of a huge folio), or @last + 1.
 */
pgoff_t htmpfs_holes_next_hole(struct inode *inode, pgoff_t index,
			       pgoff_t last)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	struct htmpfs_holes *h;
	unsigned long i, bit;

	if (xa_empty(xa))
		return last + 1;
	xa_lock(xa);
	xa_for_each_range(xa, i, h, index >> HPAGE_PMD_ORDER,
			  last >> HPAGE_PMD_ORDER) {
		h = htmpfs_holes_seekable(inode, i << HPAGE_PMD_ORDER);
		if (!h)
			continue;
		bit = find_next_zero_bit(h->used, HPAGE_PMD_NR,
					 max(index, h->index) - h->index);
		if (bit < HPAGE_PMD_NR && h->index + bit <= last) {
			xa_unlock(xa);
			return h->index + bit;
		}
	}
	xa_unlock(xa);
	return last + 1;
}

/**
 * htmpfs_holes_pages - the hole pages of a file's huge folios
 * @inode: the file
 *
 * Return: pages of its records that hold no data and are still in memory.
 */
long htmpfs_holes_pages(struct inode *inode)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	struct htmpfs_holes *h;
	unsigned long i;
	long n = 0;

	xa_lock(xa);
	xa_for_each(xa, i, h)
		n += h->nr_holes;
	xa_unlock(xa);
	return n;
}

/**
 * htmpfs_holes_any - may a folio hold pages with no data?
 * @inode: the file
 * @folio: a large folio of it, locked
 *
 * Return: true if a record covers the folio and says one of its pages
 * holds no data.
 */
bool htmpfs_holes_any(struct inode *inode, struct folio *folio)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	unsigned long first, next;
	struct htmpfs_holes *h;
	bool any = false;

	if (xa_empty(xa))
		return false;
	xa_lock(xa);
	h = htmpfs_holes_find(inode, folio->index);
	if (h) {
		first = folio->index - h->index;
		next = min_t(unsigned long, first + folio_nr_pages(folio),
			     HPAGE_PMD_NR);
		any = find_next_zero_bit(h->used, next, first) < next;
	}
	xa_unlock(xa);
	return any;
}

/**
 * htmpfs_holes_evict - drop the records of an inode being evicted
 * @inode: the inode, its page cache already gone
 */
void htmpfs_holes_evict(struct inode *inode)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	struct htmpfs_holes *h;
	unsigned long i;

	xa_lock(xa);
	xa_for_each(xa, i, h)
		htmpfs_holes_forget(inode, h);
	xa_unlock(xa);
	xa_destroy(xa);
}

/**
 * htmpfs_holes_init - create the records' slab cache at module load
 *
 * Return: 0 or -ENOMEM.
 */
int htmpfs_holes_init(void)
{
	htmpfs_holes_cachep = KMEM_CACHE(htmpfs_holes, SLAB_ACCOUNT);
	return htmpfs_holes_cachep ? 0 : -ENOMEM;
}

/**
 * htmpfs_holes_exit - destroy the records' slab cache at module unload
 */
void htmpfs_holes_exit(void)
{
	kmem_cache_destroy(htmpfs_holes_cachep);
}
