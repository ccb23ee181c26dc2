// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs hole shrinker: give back the memory of huge folios that holds no
 * data, keeping 2 MiB blocks whole where it can.
 *
 * Each huge folio made has a record: which of its pages hold data (a write,
 * or fallocate's reservation, marks them). The other pages are holes: past
 * EOF, never written, or zeroed by a punch that could not split the folio.
 * Records with holes wait on the mount's list_lru, oldest first, per memory
 * cgroup and node; a memcg-aware shrinker frees them under pressure (and on
 * drop_caches), and a mount that runs out of size= or of huge pages frees its
 * own before failing or falling back (htmpfs_holes_reclaim()).
 *
 * Freeing a record's holes: the folio, locked, unmapped and unpinned, is
 * split; hole pages are removed from the page cache; if few pages hold data
 * (holes_migrate_max), those are copied into new pages first, so that the
 * whole order-9 block goes back to the buddy allocator rather than staying
 * pinned by a few pages. Busy folios are skipped, never waited on.
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
#include <linux/huge_mm.h>
#include <linux/list_lru.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched/mm.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/swap.h>

#include "internal.h"
#include "trace.h"

/**
 * struct htmpfs_holes - what one huge folio holds
 * @lru: on the mount's holes_lru while the record has holes
 * @inode: the file
 * @memcg: the folio's memory cgroup, whose list @lru is on (referenced)
 * @nid: the folio's node, ditto
 * @gen: which record of its inode this is
 * @index: the folio's first page
 * @nr_used: pages holding data
 * @nr_holes: pages holding no data still in memory: all the others while
 *	the folio is whole; once split, those a sweep had to leave
 * @mapped_w: its file has been mapped shared and writable: holes must be
 *	read before they are freed
 * @used: which pages hold data
 */
struct htmpfs_holes {
	struct list_head lru;
	struct inode *inode;
	struct mem_cgroup *memcg;
	int nid;
	unsigned int gen;
	pgoff_t index;
	unsigned int nr_used;
	unsigned int nr_holes;
	bool mapped_w;
	DECLARE_BITMAP(used, HPAGE_PMD_NR);
};

static struct kmem_cache *htmpfs_holes_cachep;

/* Candidates taken from the list in one go, then freed without its lock */
#define HTMPFS_HOLES_BATCH	16

struct htmpfs_holes_batch {
	int nr;
	bool defer_iput;	/* in reclaim: no inode eviction here */
	struct {
		struct inode *inode;
		pgoff_t index;
	} e[HTMPFS_HOLES_BATCH];
};

/* What a pass did, for the counters and the tracepoint */
struct htmpfs_holes_pass {
	long records;	/* records done with */
	long freed;	/* hole pages freed */
	long moved;	/* data pages copied out of a block */
	long blocks;	/* huge folios given back whole */
	long splits;	/* huge folios split, keeping their data pages */
	long mapped;	/* skipped: mapped */
	long busy;	/* skipped: locked, pinned, poisoned, no memory */
};

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

/* Forget a record; xarray lock held. */
static void htmpfs_holes_forget(struct inode *inode, struct htmpfs_holes *h)
{
	__xa_erase(&HTMPFS_I(inode)->holes, h->index >> HPAGE_PMD_ORDER);
	list_lru_del(&HTMPFS_SB(inode->i_sb)->holes_lru, &h->lru, h->nid,
		     h->memcg);
	htmpfs_level_add(HTMPFS_SB(inode->i_sb), HTMPFS_LEVEL_HOLES,
			 -(long)h->nr_holes);
	htmpfs_holes_free_rec(h);
}

/* Pages [@first, @last] of @h hold data now; xarray lock held. */
static void htmpfs_holes_set(struct inode *inode, struct htmpfs_holes *h,
			     unsigned int first, unsigned int last)
{
	unsigned int n = 0, i;

	for (i = first; i <= last; i++)
		n += !__test_and_set_bit(i, h->used);
	h->nr_used += n;
	/* Once split, a page written may have been freed, not a hole. */
	n = min(n, h->nr_holes);
	h->nr_holes -= n;
	htmpfs_level_add(HTMPFS_SB(inode->i_sb), HTMPFS_LEVEL_HOLES, -(long)n);
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
	h->gen = ++info->holes_gen;
	h->mapped_w = info->holes_mapped_w;
	/* One left from a range emptied under it is stale: replace it. */
	old = htmpfs_holes_find(inode, h->index);
	if (old)
		htmpfs_holes_forget(inode, old);
	old = __xa_store(xa, h->index >> HPAGE_PMD_ORDER, h, GFP_KERNEL);
	if (xa_is_err(old)) {
		xa_unlock(xa);
		htmpfs_holes_free_rec(h);
		return xa_err(old);
	}
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

/*
 * Before freeing anything of a huge folio (locked, unmapped) whose record
 * is generation @gen: if its file was mapped shared and writable, mark the
 * holes that hold data after all. Return the pages holding data, or -1
 * without the record.
 */
static int htmpfs_holes_settle(struct inode *inode, struct folio *folio,
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

/*
 * Is page @index, locked, a hole of its record? With @scan (it is unmapped),
 * one that has been mapped shared and writable is read to make sure.
 */
static bool htmpfs_holes_is_hole(struct inode *inode, struct folio *folio,
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

/*
 * Pages to move data into, taken before the block is split: allocated as
 * its pages are freed, they would be those very pages.
 */
static bool htmpfs_spares_get(struct address_space *mapping,
			      struct list_head *spares, int n)
{
	/* Not from the reserves that reclaim may dip into: it is an extra. */
	gfp_t gfp = (mapping_gfp_mask(mapping) & ~__GFP_RECLAIM) |
		    __GFP_NOMEMALLOC | __GFP_NOWARN;
	struct folio *folio;

	while (n--) {
		folio = folio_alloc(gfp, 0);
		if (!folio)
			return false;
		list_add(&folio->lru, spares);
	}
	return true;
}

static void htmpfs_spares_put(struct list_head *spares)
{
	struct folio *folio, *next;

	list_for_each_entry_safe(folio, next, spares, lru) {
		list_del(&folio->lru);
		folio_put(folio);
	}
}

/* Copy a data page into a spare one, in its place in the page cache. */
static bool htmpfs_move_page(struct folio *folio, struct list_head *spares)
{
	struct folio *new = list_first_entry_or_null(spares, struct folio,
						     lru);

	if (!new)
		return false;
	list_del(&new->lru);
	copy_highpage(&new->page, &folio->page);
	__folio_set_locked(new);
	__folio_set_swapbacked(new);
	folio_mark_uptodate(new);
	/* Dirty from birth: see "What keeps data safe" in internal.h. */
	folio_mark_dirty(new);
	/* Charged to the old page's memcg, in one step with the swap. */
	replace_page_cache_folio(folio, new);
	folio_add_lru(new);
	folio_unlock(new);
	folio_put(new);
	return true;
}

/* What became of one page of a split record */
enum htmpfs_swept {
	HTMPFS_SWEPT_GONE,	/* freed, moved out, or truncated meanwhile */
	HTMPFS_SWEPT_DATA,	/* kept: data */
	HTMPFS_SWEPT_HOLE,	/* kept: a hole that could not go now */
};

/*
 * One page of a split record, locked, with a reference: free it if it is a
 * hole, move it into one of @spares if they are given, else keep it.
 */
static enum htmpfs_swept htmpfs_holes_sweep_page(struct inode *inode,
						 struct folio *folio,
						 struct list_head *spares,
						 struct htmpfs_holes_pass *p)
{
	struct address_space *mapping = inode->i_mapping;
	bool mapped = folio_mapped(folio), hole;
	enum htmpfs_swept kept;

	if (folio->mapping != mapping)
		return HTMPFS_SWEPT_GONE;
	/* Never read a poisoned page: it stays, as memory errors do. */
	if (PageHWPoison(&folio->page)) {
		p->busy++;
		return HTMPFS_SWEPT_DATA;
	}
	hole = htmpfs_holes_is_hole(inode, folio, folio->index, !mapped);
	kept = hole ? HTMPFS_SWEPT_HOLE : HTMPFS_SWEPT_DATA;
	if (mapped) {
		p->mapped++;
		return kept;
	}
	/* The page cache's reference and ours, nobody else's. */
	if (folio_ref_count(folio) != 2) {
		p->busy++;
		return kept;
	}
	VM_WARN_ON_FOLIO(!htmpfs_folio_safe(folio), folio);
	if (hole) {
		/* truncate_inode_folio(), the one exported way */
		if (generic_error_remove_folio(mapping, folio))
			return kept;
		p->freed++;
		return HTMPFS_SWEPT_GONE;
	}
	if (!spares)
		return kept;
	if (!htmpfs_move_page(folio, spares)) {
		p->busy++;
		return kept;
	}
	p->moved++;
	return HTMPFS_SWEPT_GONE;
}

/*
 * Sweep the pages of the range of record generation @gen, no longer one
 * folio; @head, if not NULL, is its first page, locked and with a
 * reference. Data pages move into @spares if given. Then forget the record,
 * unless holes had to stay: it then counts those, to try again. Return how
 * many pages left the block.
 */
static int htmpfs_holes_sweep(struct inode *inode, struct folio *head,
			      pgoff_t index, unsigned int gen,
			      struct list_head *spares,
			      struct htmpfs_holes_pass *p)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	enum htmpfs_swept swept;
	struct htmpfs_holes *h;
	struct folio *folio;
	int gone = 0, kept = 0, i;

	for (i = 0; i < HPAGE_PMD_NR; i++) {
		folio = i ? NULL : head;
		if (!folio) {
			folio = filemap_get_folio(inode->i_mapping, index + i);
			if (IS_ERR(folio)) {
				gone++;
				continue;
			}
			if (!folio_trylock(folio)) {
				folio_put(folio);
				p->busy++;
				kept++;		/* maybe a hole */
				continue;
			}
		}
		/* Another split's pieces may be larger: leave them be. */
		swept = folio_test_large(folio) ? HTMPFS_SWEPT_DATA :
			htmpfs_holes_sweep_page(inode, folio, spares, p);
		gone += swept == HTMPFS_SWEPT_GONE;
		kept += swept == HTMPFS_SWEPT_HOLE;
		folio_unlock(folio);
		folio_put(folio);
		if (need_resched())
			cond_resched();
	}

	/* A new record may have replaced ours meanwhile: not ours to touch. */
	xa_lock(xa);
	h = htmpfs_holes_find_gen(inode, index, gen);
	if (h && !kept) {
		htmpfs_holes_forget(inode, h);
	} else if (h) {
		htmpfs_level_add(HTMPFS_SB(inode->i_sb), HTMPFS_LEVEL_HOLES,
				 kept - (long)h->nr_holes);
		h->nr_holes = kept;
	}
	xa_unlock(xa);
	htmpfs_recalc(inode);
	return gone;
}

/*
 * Split the huge folio at the start of a record's range, locked and with a
 * reference, if it may go; if it holds few data pages, first take @spares
 * to move them into (else leave the list empty and set *@migrate false).
 * Return 1 if split, 0 if not a whole huge folio (split by someone else),
 * or -errno to keep it: -EBUSY mapped, -EAGAIN busy, -ENOENT no holes (or
 * no record) after all.
 */
static int htmpfs_holes_split(struct inode *inode, struct folio *folio,
			      unsigned int gen, struct list_head *spares,
			      bool *migrate)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(inode->i_sb);
	int used, err;

	if (!folio_test_large(folio))
		return 0;
	if (!folio_test_pmd_mappable(folio))
		return -EAGAIN;		/* not ours to take apart */
	if (folio_mapped(folio))
		return -EBUSY;
	if (folio_ref_count(folio) != folio_nr_pages(folio) + 1 ||
	    folio_test_writeback(folio) || htmpfs_folio_poisoned(folio))
		return -EAGAIN;
	used = htmpfs_holes_settle(inode, folio, gen);
	if (used < 0 || used == HPAGE_PMD_NR)
		return -ENOENT;
	*migrate = used <= READ_ONCE(sbi->holes_migrate_max) &&
		   htmpfs_spares_get(inode->i_mapping, spares, used);
	if (!*migrate)
		htmpfs_spares_put(spares);
	VM_WARN_ON_FOLIO(!htmpfs_folio_safe(folio), folio);
	err = split_huge_page_to_list_to_order(&folio->page, NULL, 0);
	trace_hugetmpfs_split(inode, folio->index, err);
	if (err) {
		htmpfs_spares_put(spares);
		return -EAGAIN;
	}
	htmpfs_count(sbi, HTMPFS_STAT_SPLITS);
	return 1;
}

/*
 * Free the holes of the record at @index, whatever state its range is in.
 * The caller holds a reference on @inode. Return true if the record is gone.
 */
static bool htmpfs_holes_shrink_one(struct inode *inode, pgoff_t index,
				    struct htmpfs_holes_pass *p)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	struct htmpfs_holes *h;
	struct folio *folio;
	bool migrate = false;
	unsigned int gen;
	LIST_HEAD(spares);
	int split = 0, gone;

	xa_lock(xa);
	h = htmpfs_holes_find(inode, index);
	gen = h ? h->gen : 0;
	xa_unlock(xa);
	if (!h)
		return false;		/* freed meanwhile */
	folio = filemap_get_folio(inode->i_mapping, index);
	if (IS_ERR(folio)) {
		folio = NULL;		/* sweep whatever is left */
	} else if (!folio_trylock(folio)) {
		folio_put(folio);
		p->busy++;
		return false;
	}
	/* Truncated, or part of a folio unlike any we make: keep it. */
	if (folio && (folio->mapping != inode->i_mapping ||
		      folio->index != index))
		split = -EAGAIN;
	else if (folio)
		split = htmpfs_holes_split(inode, folio, gen, &spares,
					   &migrate);
	if (split < 0) {
		p->mapped += split == -EBUSY;
		p->busy += split == -EAGAIN && folio->mapping;
		folio_unlock(folio);
		folio_put(folio);
		return false;
	}

	/* The range is in small pages now, split here or by someone else. */
	gone = htmpfs_holes_sweep(inode, folio, index, gen,
				  migrate ? &spares : NULL, p);
	htmpfs_spares_put(&spares);
	if (split && migrate && gone == HPAGE_PMD_NR)
		p->blocks++;
	else if (split)
		p->splits++;
	return true;
}

/*
 * Take a record's inode and index off the list (which keeps the record
 * alive meanwhile), rotating it to the tail: if it cannot be freed now it
 * waits behind the others.
 */
static enum lru_status htmpfs_holes_isolate(struct list_head *item,
					    struct list_lru_one *list,
					    spinlock_t *lock, void *arg)
{
	struct htmpfs_holes *h = container_of(item, struct htmpfs_holes, lru);
	struct htmpfs_holes_batch *b = arg;
	struct inode *inode = h->inode;
	int i;

	if (b->nr == HTMPFS_HOLES_BATCH)
		return LRU_STOP;
	/* Rotated to the tail, a record may come round again in one walk. */
	for (i = 0; i < b->nr; i++)
		if (b->e[i].inode == inode && b->e[i].index == h->index)
			return LRU_SKIP;
	/* i_lock ranks above list locks elsewhere (the inode LRU): try it. */
	if (!spin_trylock(&inode->i_lock))
		return LRU_SKIP;
	if (inode->i_state & (I_NEW | I_FREEING | I_WILL_FREE)) {
		spin_unlock(&inode->i_lock);
		return LRU_SKIP;
	}
	__iget(inode);
	spin_unlock(&inode->i_lock);
	b->e[b->nr].inode = inode;
	b->e[b->nr].index = h->index;
	b->nr++;
	return LRU_ROTATE;
}

/*
 * Let go of an inode taken from the list. In reclaim the last reference is
 * left to a worker: evicting a file waits for folio locks, which whoever
 * is reclaiming may hold.
 */
static void htmpfs_holes_iput(struct inode *inode, bool defer)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(inode->i_sb);

	if (!defer)
		iput(inode);
	else if (atomic_add_unless(&inode->i_count, -1, 1))
		return;		/* not the last: dropped */
	else if (llist_add(&HTMPFS_I(inode)->holes_iput, &sbi->holes_iputs))
		queue_work(system_unbound_wq, &sbi->holes_iput_work);
}

static void htmpfs_holes_iput_work(struct work_struct *work)
{
	struct htmpfs_sb_info *sbi = container_of(work, struct htmpfs_sb_info,
						  holes_iput_work);
	struct llist_node *list = llist_del_all(&sbi->holes_iputs);
	struct htmpfs_inode_info *info, *next;

	llist_for_each_entry_safe(info, next, list, holes_iput)
		iput(&info->vfs_inode);
}

/* Free the holes of a batch of records, and let go of their inodes. */
static void htmpfs_holes_shrink_batch(struct htmpfs_holes_batch *b,
				      struct htmpfs_holes_pass *p)
{
	int i;

	for (i = 0; i < b->nr; i++) {
		if (htmpfs_holes_shrink_one(b->e[i].inode, b->e[i].index, p))
			p->records++;
		htmpfs_holes_iput(b->e[i].inode, b->defer_iput);
	}
	b->nr = 0;
}

static void htmpfs_holes_account(struct htmpfs_sb_info *sbi, long asked,
				 struct htmpfs_holes_pass *p)
{
	htmpfs_count_add(sbi, HTMPFS_STAT_HOLES_FREED, p->freed);
	htmpfs_count_add(sbi, HTMPFS_STAT_HOLES_MOVED, p->moved);
	htmpfs_count_add(sbi, HTMPFS_STAT_HOLES_BLOCKS_RETURNED, p->blocks);
	htmpfs_count_add(sbi, HTMPFS_STAT_HOLES_SPLIT, p->splits);
	htmpfs_count_add(sbi, HTMPFS_STAT_HOLES_SKIPPED_MAPPED, p->mapped);
	htmpfs_count_add(sbi, HTMPFS_STAT_HOLES_SKIPPED_BUSY, p->busy);
	trace_hugetmpfs_holes_shrink(sbi->sb, asked, p->records, p->freed,
				     p->moved, p->blocks, p->mapped + p->busy);
}

static unsigned long htmpfs_holes_count(struct shrinker *shrink,
					struct shrink_control *sc)
{
	struct htmpfs_sb_info *sbi = shrink->private_data;
	unsigned long n = list_lru_shrink_count(&sbi->holes_lru, sc);

	return n ?: SHRINK_EMPTY;
}

static unsigned long htmpfs_holes_scan(struct shrinker *shrink,
				       struct shrink_control *sc)
{
	struct htmpfs_sb_info *sbi = shrink->private_data;
	struct htmpfs_holes_pass p = {};
	struct htmpfs_holes_batch b;
	long asked = sc->nr_to_scan;

	/* Splitting takes mm locks a caller without __GFP_FS may hold. */
	if (!(sc->gfp_mask & __GFP_FS))
		return SHRINK_STOP;
	b.defer_iput = true;
	while (sc->nr_to_scan) {
		unsigned long walk = min3(sc->nr_to_scan,
					  (unsigned long)HTMPFS_HOLES_BATCH,
					  list_lru_shrink_count(&sbi->holes_lru,
								sc));
		unsigned long left = walk;
		int taken;

		b.nr = 0;
		list_lru_walk_one(&sbi->holes_lru, sc->nid, sc->memcg,
				  htmpfs_holes_isolate, &b, &left);
		sc->nr_to_scan -= walk - left;
		taken = b.nr;
		htmpfs_holes_shrink_batch(&b, &p);
		/* Came to the end of the list, or only met busy inodes. */
		if (left || !taken)
			break;
	}
	htmpfs_holes_account(sbi, asked, &p);
	return p.records ?: SHRINK_STOP;
}

/**
 * htmpfs_holes_reclaim - free a mount's holes before it fails an allocation
 * @sbi: the mount
 * @pages: how many pages are wanted
 *
 * For size= exhausted or no huge page to be had: the mount's own holes go
 * first, in any cgroup, oldest first. Only try-locks are taken, so the
 * caller may hold the inode lock of a file of this mount, but no folio lock.
 *
 * Return: pages given back.
 */
long htmpfs_holes_reclaim(struct htmpfs_sb_info *sbi, long pages)
{
	struct htmpfs_holes_pass p = {};
	struct htmpfs_holes_batch b;
	long tries = list_lru_count(&sbi->holes_lru);
	unsigned long walk;
	int nid;

	b.defer_iput = false;
	while (p.freed + p.moved < pages && tries > 0) {
		b.nr = 0;
		for_each_node_state(nid, N_MEMORY) {
			walk = min_t(unsigned long, HTMPFS_HOLES_BATCH - b.nr,
				     list_lru_count_node(&sbi->holes_lru, nid));
			list_lru_walk_node(&sbi->holes_lru, nid,
					   htmpfs_holes_isolate, &b, &walk);
			if (b.nr == HTMPFS_HOLES_BATCH)
				break;
		}
		if (!b.nr)
			break;
		tries -= b.nr;
		htmpfs_holes_shrink_batch(&b, &p);
	}
	htmpfs_holes_account(sbi, pages, &p);
	return p.freed + p.moved;
}

/**
 * htmpfs_holes_punched - records after a punch or truncate freed pages
 * @inode: the file, with i_rwsem and the invalidate lock held
 * @lo: first byte freed, page aligned
 * @hi: byte after the last, page aligned, or LLONG_MAX
 *
 * A huge folio that could not be split keeps its pages, zeroed: they are
 * holes now. One that was split is swept at once: its holes go now.
 */
void htmpfs_holes_punched(struct inode *inode, loff_t lo, loff_t hi)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	pgoff_t first = lo >> PAGE_SHIFT, last = (hi - 1) >> PAGE_SHIFT;
	struct htmpfs_holes_pass p = {};
	struct htmpfs_holes *h;
	struct folio *folio;
	unsigned int gen;
	unsigned long i;
	pgoff_t index, a, b;

	if (xa_empty(xa))
		return;
	xa_for_each_range(xa, i, h, first >> HPAGE_PMD_ORDER,
			  last >> HPAGE_PMD_ORDER) {
		index = i << HPAGE_PMD_ORDER;
		xa_lock(xa);
		h = htmpfs_holes_find(inode, index);
		gen = h ? h->gen : 0;
		xa_unlock(xa);
		if (!h)
			continue;
		folio = filemap_lock_folio(inode->i_mapping, index);
		if (IS_ERR(folio)) {
			folio = NULL;
		} else if (folio_test_pmd_mappable(folio)) {
			/* Still whole: the punched pages are zeroed holes. */
			a = max(first, index) - index;
			b = min_t(pgoff_t, last, index + HPAGE_PMD_NR - 1) -
			    index;
			xa_lock(xa);
			h = htmpfs_holes_find_gen(inode, index, gen);
			for (; h && a <= b; a++) {
				if (__test_and_clear_bit(a, h->used)) {
					h->nr_used--;
					h->nr_holes++;
					htmpfs_level_add(HTMPFS_SB(inode->i_sb),
							 HTMPFS_LEVEL_HOLES, 1);
				}
			}
			xa_unlock(xa);
			folio_unlock(folio);
			folio_put(folio);
			continue;
		}
		htmpfs_holes_sweep(inode, folio, index, gen, NULL, &p);
	}
	if (p.freed)
		htmpfs_holes_account(HTMPFS_SB(inode->i_sb), 0, &p);
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
 * htmpfs_holes_release - free a file's holes now, for huge_holes=free
 * @inode: the file, as its last writer closes it (a reference held)
 *
 * Busy folios keep their holes until the shrinker comes by.
 */
void htmpfs_holes_release(struct inode *inode)
{
	struct xarray *xa = &HTMPFS_I(inode)->holes;
	struct htmpfs_holes_pass p = {};
	struct htmpfs_holes *h;
	unsigned long i;

	xa_for_each(xa, i, h) {
		if (htmpfs_holes_shrink_one(inode, i << HPAGE_PMD_ORDER, &p))
			p.records++;
	}
	htmpfs_holes_account(HTMPFS_SB(inode->i_sb), 0, &p);
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
 * htmpfs_holes_mount - give a new mount its list of holes and its shrinker
 * @sbi: the mount, whose sb is set
 *
 * Return: 0 or -ENOMEM.
 */
int htmpfs_holes_mount(struct htmpfs_sb_info *sbi)
{
	struct super_block *sb = sbi->sb;
	struct shrinker *s;
	int err;

	sbi->holes_migrate_max = HPAGE_PMD_NR / 8;
	init_llist_head(&sbi->holes_iputs);
	INIT_WORK(&sbi->holes_iput_work, htmpfs_holes_iput_work);
	s = shrinker_alloc(SHRINKER_MEMCG_AWARE | SHRINKER_NUMA_AWARE,
			   "hugetmpfs-holes:%u:%u", MAJOR(sb->s_dev),
			   MINOR(sb->s_dev));
	if (!s)
		return -ENOMEM;
	err = list_lru_init_memcg(&sbi->holes_lru, s);
	if (err) {
		shrinker_free(s);
		return err;
	}
	s->count_objects = htmpfs_holes_count;
	s->scan_objects = htmpfs_holes_scan;
	s->private_data = sbi;
	/* Holes hold no data: cheap to free, nothing to read back later. */
	s->seeks = 1;
	s->batch = HTMPFS_HOLES_BATCH;
	sbi->holes_shrinker = s;
	shrinker_register(s);
	return 0;
}

/**
 * htmpfs_holes_unmount - stop a mount's shrinker, before its inodes go
 * @sbi: the mount
 *
 * Waits for a running scan, and for the inodes it left to the worker; the
 * list itself goes in htmpfs_holes_destroy().
 */
void htmpfs_holes_unmount(struct htmpfs_sb_info *sbi)
{
	shrinker_free(sbi->holes_shrinker);
	sbi->holes_shrinker = NULL;
	flush_work(&sbi->holes_iput_work);
}

/**
 * htmpfs_holes_destroy - free a mount's list of holes, once its inodes are
 *	gone
 * @sbi: the mount
 */
void htmpfs_holes_destroy(struct htmpfs_sb_info *sbi)
{
	WARN_ON_ONCE(list_lru_count(&sbi->holes_lru));
	list_lru_destroy(&sbi->holes_lru);
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
