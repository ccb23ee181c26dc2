// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs hole shrinker: give back the memory of huge folios that holds no
 * data, keeping 2 MiB blocks whole where it can.
 *
 * The records of holes.c wait on the mount's list_lru; a memcg- and
 * NUMA-aware shrinker frees their holes under pressure (and on drop_caches),
 * and a mount that runs out of size= or of huge pages frees its own before
 * failing or falling back (htmpfs_holes_reclaim()). A punch that splits a
 * folio, and huge_holes=free at the last writer's close, free them at once.
 *
 * Freeing a record's holes: the folio, locked, unmapped and unpinned, is
 * split; hole pages are removed from the page cache; if few pages hold data
 * (holes_migrate_max), those are copied into new pages first, so that the
 * whole order-9 block goes back to the buddy allocator rather than staying
 * pinned by a few pages. Busy folios are skipped, never waited on.
 */
#include <linux/highmem.h>
#include <linux/huge_mm.h>
#include <linux/list_lru.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/shrinker.h>
#include <linux/swap.h>

#include "holes.h"
#include "trace.h"

/* Candidates taken from the list in one go, then freed without its lock */
#define HTMPFS_HOLES_BATCH	16

struct htmpfs_holes_batch {
	int nr;
	int max;		/* records to take, at most the batch */
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
 * A large folio in a split record's range, locked, with a reference, for
 * page @index: made by a write after the record's folio was split, or left
 * by another split. If its record says it holds holes, split it so that
 * they can go, unless it is mapped or busy. Return the folio now holding
 * @index, locked and referenced.
 */
static struct folio *htmpfs_sweep_split(struct inode *inode,
					struct folio *folio, pgoff_t index)
{
	struct page *page = folio_page(folio, index - folio->index);
	pgoff_t start = folio->index;
	int err;

	if (folio_test_pmd_mappable(folio) || folio_mapped(folio) ||
	    folio_test_writeback(folio) || htmpfs_folio_poisoned(folio) ||
	    !htmpfs_holes_any(inode, folio))
		return folio;
	err = split_huge_page_to_list_to_order(page, NULL, 0);
	trace_hugetmpfs_split(inode, start, err);
	/* Ours are the lock and the reference of @page's folio now. */
	return err ? folio : page_folio(page);
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
	DECLARE_BITMAP(held, HPAGE_PMD_NR);
	enum htmpfs_swept swept;
	struct folio *folio;
	int gone = 0, i, n;

	bitmap_zero(held, HPAGE_PMD_NR);
	for (i = 0; i < HPAGE_PMD_NR; i += n) {
		n = 1;
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
				__set_bit(i, held);	/* maybe a hole */
				continue;
			}
		}
		if (folio_test_large(folio) && folio->mapping == inode->i_mapping)
			folio = htmpfs_sweep_split(inode, folio, index + i);
		if (folio_test_large(folio)) {
			/* Kept whole for now: its holes wait, in memory. */
			n = min_t(long, folio_next_index(folio),
				  index + HPAGE_PMD_NR) - (index + i);
			n = max(n, 1);
			if (folio->mapping == inode->i_mapping)
				bitmap_set(held, i, n);
			p->busy++;
		} else {
			swept = htmpfs_holes_sweep_page(inode, folio, spares,
							p);
			gone += swept == HTMPFS_SWEPT_GONE;
			if (swept == HTMPFS_SWEPT_HOLE)
				__set_bit(i, held);
		}
		folio_unlock(folio);
		folio_put(folio);
		if (need_resched())
			cond_resched();
	}

	/* A new record may have replaced ours meanwhile: not ours to touch. */
	htmpfs_holes_swept(inode, index, gen, held);
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

	/* Split already; a large piece is the sweep's to split further. */
	if (!folio_test_pmd_mappable(folio))
		return 0;
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
	struct folio *folio;
	bool migrate = false;
	unsigned int gen;
	LIST_HEAD(spares);
	int split = 0, gone;

	if (!htmpfs_holes_gen(inode, index, &gen))
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

	if (b->nr == b->max)
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

/* Free the holes of a batch of records, and let go of their inodes. */
static void htmpfs_holes_shrink_batch(struct htmpfs_holes_batch *b,
				      struct htmpfs_holes_pass *p)
{
	int i;

	for (i = 0; i < b->nr; i++) {
		if (htmpfs_holes_shrink_one(b->e[i].inode, b->e[i].index, p))
			p->records++;
		/*
		 * Eviction waits for folio locks, which whoever reclaims may
		 * hold, and takes an invalidate lock, which a fault reclaiming
		 * holds: never here.
		 */
		htmpfs_iput_deferred(b->e[i].inode);
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
	b.max = HTMPFS_HOLES_BATCH;
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
 * @memcg: the memory cgroup whose charge failed, or NULL: no memory
 * @pages: how many pages are wanted
 *
 * For size= exhausted or no huge page to be had, the mount's own holes go
 * first, in any cgroup, oldest first; for a memory cgroup at its limit,
 * only that cgroup's: freeing another's uncharges the other. A record at a
 * time, until @pages are back. Only try-locks are taken, so the caller may
 * hold the inode lock and invalidate lock of a file of this mount, but no
 * folio lock.
 *
 * Return: pages given back.
 */
long htmpfs_holes_reclaim(struct htmpfs_sb_info *sbi, struct mem_cgroup *memcg,
			  long pages)
{
	struct htmpfs_holes_pass p = {};
	struct htmpfs_holes_batch b = { .max = 1 };
	unsigned long walk;
	long tries = 0;
	int nid;

	/* Each record once at most, busy ones rotating to the tail */
	for_each_node_state(nid, N_MEMORY)
		tries += memcg ? list_lru_count_one(&sbi->holes_lru, nid, memcg) :
				 list_lru_count_node(&sbi->holes_lru, nid);

	while (p.freed + p.moved < pages && tries > 0) {
		b.nr = 0;
		for_each_node_state(nid, N_MEMORY) {
			/* Past busy records, until b.max are taken */
			walk = memcg ? list_lru_count_one(&sbi->holes_lru, nid,
							  memcg) :
				       list_lru_count_node(&sbi->holes_lru,
							   nid);
			if (memcg)
				list_lru_walk_one(&sbi->holes_lru, nid, memcg,
						  htmpfs_holes_isolate, &b,
						  &walk);
			else
				list_lru_walk_node(&sbi->holes_lru, nid,
						   htmpfs_holes_isolate, &b,
						   &walk);
			if (b.nr == b.max)
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
		if (!htmpfs_holes_gen(inode, index, &gen))
			continue;
		folio = filemap_lock_folio(inode->i_mapping, index);
		if (IS_ERR(folio)) {
			folio = NULL;
		} else if (folio_test_pmd_mappable(folio)) {
			/* Still whole: the punched pages are zeroed holes. */
			a = max(first, index) - index;
			b = min_t(pgoff_t, last, index + HPAGE_PMD_NR - 1) -
			    index;
			htmpfs_holes_zeroed(inode, index, gen, a, b);
			folio_unlock(folio);
			folio_put(folio);
			continue;
		}
		htmpfs_holes_sweep(inode, folio, index, gen, NULL, &p);
	}
	if (p.freed)
		htmpfs_holes_account(HTMPFS_SB(inode->i_sb), 0, &p);
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
 * Waits for a running scan; the inodes it left to the worker go with
 * htmpfs_iputs_flush(), the list itself in htmpfs_holes_destroy().
 */
void htmpfs_holes_unmount(struct htmpfs_sb_info *sbi)
{
	shrinker_free(sbi->holes_shrinker);
	sbi->holes_shrinker = NULL;
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

