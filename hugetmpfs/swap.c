// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs swap: under memory pressure reclaim writes a file's pages to
 * swap, as it does tmpfs's, and they come back when the file is used.
 *
 * Swap-out: reclaim calls ->writepage on a folio it has unmapped and
 * locked. A large or huge folio goes out whole (with CONFIG_THP_SWAP, on a
 * device that has room for it: swap_out_whole) if all its pages hold data
 * and it does not straddle EOF; otherwise it is split first, so that its
 * holes are not written (its pages go back on reclaim's list to follow;
 * swap_splits). The folio goes into the swap cache, its page cache slots
 * keep one swap entry for the folio (cache.c), and it is written. The
 * entries then belong to the file (swap_shmem_alloc()), not to the swap
 * cache, until the pages come back or the file lets go of them.
 *
 * Swap-in: every lookup that finds a swap entry in a slot (htmpfs_get_folio()
 * for writes, faults, fallocate and partial-page zeroing; read(2)) brings
 * the data back. A large folio still whole in the swap cache comes back
 * whole (swap_in_whole). Otherwise, since 6.12 reads swap into small
 * folios only, a large entry is split into one per page and the page comes
 * back as a small folio, with swap read-ahead; the file is queued for the
 * collapse thread, which rebuilds its huge folios.
 *
 * A large entry is split only once its folio has left the swap cache, and
 * a large folio comes back whole only while its entry is whole: nothing
 * puts a large folio in the swap cache but ->writepage, before the entry
 * exists, so the two always agree.
 *
 * Truncation: core mm's truncation would drop swap entries without freeing
 * them, so truncate, hole punch and eviction free the entries of their
 * range first (a large entry partly inside is split, or its folio brought
 * back, for the truncation to cut). They hold the invalidate lock
 * exclusively, and ->writepage only tries it: no new entry can appear
 * under them.
 *
 * swapoff: try_to_unuse() calls us back (kernel-prereq.patch) to bring in
 * every page of its device, as it does shmem_unuse() for tmpfs.
 *
 * What a file has in swap is counted in its inode's @swapped (st_blocks,
 * size= and quota keep counting it, as tmpfs does) and per mount in
 * swap_bytes.
 */
#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/log2.h>
#include <linux/notifier.h>
#include <linux/pagemap.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/writeback.h>

#include "internal.h"
#include "trace.h"

static struct file_system_type *htmpfs_swap_fs_type;

/* Pages of @inode in swap: @n more (or fewer). */
static void htmpfs_swapped_add(struct inode *inode, long n)
{
	struct htmpfs_inode_info *info = HTMPFS_I(inode);

	spin_lock(&info->lock);
	info->swapped += n;
	spin_unlock(&info->lock);
	htmpfs_level_add(HTMPFS_SB(inode->i_sb), HTMPFS_LEVEL_SWAPPED, n);
}

/* A swap entry that stands for a page lost to a read error */
static bool htmpfs_swap_poisoned(void *entry)
{
	return non_swap_entry(radix_to_swp_entry(entry));
}

/*
 * Swap could not be read back into @folio, small, locked, in the swap
 * cache for the entry @entry at @index: as tmpfs does, the slot gets a
 * poisoned entry, which reads EIO until truncated, and the swap slot and
 * the page's space are given back. Otherwise the entry would stay, and
 * with it every swapoff's failure. Return: false if the slot changed
 * meanwhile (truncated: nothing lost).
 */
static bool htmpfs_swapin_error(struct inode *inode, pgoff_t index,
				void *entry, struct folio *folio)
{
	struct htmpfs_inode_info *info = HTMPFS_I(inode);
	swp_entry_t swap = folio->swap;
	void *old;

	old = xa_cmpxchg_irq(&inode->i_mapping->i_pages, index, entry,
			     swp_to_radix_entry(make_poisoned_swp_entry()), 0);
	if (old != entry)
		return false;
	folio_wait_writeback(folio);
	delete_from_swap_cache(folio);
	spin_lock(&info->lock);
	info->swap_errors++;
	info->alloced--;
	spin_unlock(&info->lock);
	htmpfs_swapped_add(inode, -1);
	htmpfs_uncharge_blocks(inode, 1);
	swap_free_nr(swap, 1);
	pr_warn_ratelimited("hugetmpfs: inode %lu: page %lu lost to a swap read error\n",
			    inode->i_ino, index);
	return true;
}

/*
 * May @folio, large, go to swap whole? Not one with holes (a huge one, or a
 * smaller one made in a split huge folio's range): split, its pages come
 * back one by one, the holes to be freed, not written. Nor one across EOF,
 * past which its pages are holes too.
 */
static bool htmpfs_swap_whole(struct inode *inode, struct folio *folio)
{
	pgoff_t eof = DIV_ROUND_UP(i_size_read(inode), PAGE_SIZE);

	if (!IS_ENABLED(CONFIG_THP_SWAP))
		return false;
	if (folio->index < eof && folio_next_index(folio) > eof)
		return false;
	return !htmpfs_holes_any(inode, folio);
}

/*
 * Free small @folio, locked and unmapped, if its hole record says it holds
 * no data (read first if the file was mapped shared and writable): the
 * pages of a huge folio split for swap come back here one by one, and a
 * hole written to swap would take a slot, size= and memory.swap for good,
 * and come back as data. Return: true if freed.
 */
static bool htmpfs_swap_drop_hole(struct inode *inode, struct folio *folio)
{
	pgoff_t index = folio->index;

	if (!htmpfs_holes_is_hole(inode, folio, index, true) ||
	    generic_error_remove_folio(inode->i_mapping, folio))
		return false;
	htmpfs_holes_dropped(inode, index);
	htmpfs_count(HTMPFS_SB(inode->i_sb), HTMPFS_STAT_HOLES_FREED);
	htmpfs_recalc(inode);
	return true;
}

/*
 * Split large @folio for reclaim, which writes the pages that follow from
 * its list. Return: the small folio of @page, still locked, or NULL.
 */
static struct folio *htmpfs_swap_split_folio(struct inode *inode,
					     struct folio *folio,
					     struct page *page,
					     struct writeback_control *wbc)
{
	pgoff_t index = folio->index;
	unsigned int order = folio_order(folio);
	int err;

	/* Set for swap-backed mappings by kernel-prereq.patch */
	if (!wbc->list)
		return NULL;
	/* The pages split off are written later: they stay dirty. */
	folio_set_dirty(folio);
	err = split_huge_page_to_list_to_order(page, wbc->list, 0);
	trace_hugetmpfs_swap_split(inode, index, order, err);
	if (err)
		return NULL;
	htmpfs_count(HTMPFS_SB(inode->i_sb), HTMPFS_STAT_SWAP_SPLITS);
	folio = page_folio(page);
	folio_clear_dirty(folio);
	return folio;
}

/**
 * htmpfs_writepage - address_space_operations.writepage: swap a folio out
 * @page: the first page of a folio that reclaim unmapped and locked
 * @wbc: reclaim's; its list takes the pages a split leaves behind
 *
 * Return: the result of writing it to swap, or AOP_WRITEPAGE_ACTIVATE
 * (the folio dirty and locked: it stays in memory for now).
 */
int htmpfs_writepage(struct page *page, struct writeback_control *wbc)
{
	struct folio *folio = page_folio(page);
	struct address_space *mapping = folio->mapping;
	struct inode *inode = mapping->host;
	struct htmpfs_sb_info *sbi = HTMPFS_SB(inode->i_sb);
	long nr;

	/* Memory is where the data lives: only reclaim has a reason to ask. */
	if (WARN_ON_ONCE(!wbc->for_reclaim) || folio_mapped(folio) ||
	    htmpfs_folio_poisoned(folio))
		goto redirty;
	/* Truncation holds it: it must not find a new swap entry behind it. */
	if (!filemap_invalidate_trylock_shared(mapping))
		goto redirty;

	/*
	 * add_to_swap() charges the swap to the folio's memory cgroup
	 * (memory.swap.max). A large folio needs that many free slots in one
	 * swap cluster: one that may not go whole, or finds no such room or
	 * charge, goes page by page.
	 */
	if (folio_test_large(folio)) {
		if (!get_nr_swap_pages())
			goto unlock;
		if (!(htmpfs_swap_whole(inode, folio) && add_to_swap(folio))) {
			folio = htmpfs_swap_split_folio(inode, folio, page,
							wbc);
			if (!folio)
				goto unlock;
		}
	}
	/* Swap full or not; reclaim frees it once we let go. */
	if (!folio_test_large(folio) && htmpfs_swap_drop_hole(inode, folio)) {
		filemap_invalidate_unlock_shared(mapping);
		folio_unlock(folio);
		return 0;
	}
	/* Unless it went whole: then it is in the swap cache already. */
	if (!folio_test_swapcache(folio) && !add_to_swap(folio))
		goto unlock;
	/* It marked the folio dirty; it is being written now. */
	folio_clear_dirty(folio);
	nr = folio_nr_pages(folio);
	/* Before the page cache lets go: htmpfs_recalc() must not free it. */
	htmpfs_swapped_add(inode, nr);
	/* The file's, from now on: not freed with the swap cache. */
	swap_shmem_alloc(folio->swap, nr);
	htmpfs_count_add(sbi, HTMPFS_STAT_SWAP_OUT, nr);
	if (nr > 1) {
		htmpfs_count(sbi, HTMPFS_STAT_SWAP_OUT_WHOLE);
		trace_hugetmpfs_swap_whole(inode, folio->index,
					   folio_order(folio), folio->swap,
					   true);
	}
	htmpfs_cache_to_swap(folio);
	/*
	 * The folio no longer keeps the inode from eviction, which waits for
	 * this lock; the inode is freed after an RCU grace period.
	 */
	rcu_read_lock();
	filemap_invalidate_unlock_shared(mapping);
	rcu_read_unlock();
	return swap_writepage(&folio->page, wbc);

unlock:
	filemap_invalidate_unlock_shared(mapping);
redirty:
	folio = page_folio(page);
	folio_mark_dirty(folio);
	return AOP_WRITEPAGE_ACTIVATE;
}

/* The first swap entry at or after *@index, up to @last, or NULL. */
static void *htmpfs_next_swap(struct address_space *mapping, pgoff_t *index,
			      pgoff_t last)
{
	XA_STATE(xas, &mapping->i_pages, *index);
	void *entry;

	rcu_read_lock();
	xas_for_each(&xas, entry, last) {
		if (xas_retry(&xas, entry))
			continue;
		if (xa_is_value(entry))
			break;
	}
	rcu_read_unlock();
	*index = max(*index, xas.xa_index);
	return entry;
}

/* The swap slot @n pages after @swap's */
static swp_entry_t htmpfs_swap_nth(swp_entry_t swap, unsigned long n)
{
	return swp_entry(swp_type(swap), swp_offset(swap) + n);
}

/* The order of the swap entry at @index if it is still @entry, else -1. */
static int htmpfs_swap_order(struct address_space *mapping, pgoff_t index,
			     void *entry)
{
	XA_STATE(xas, &mapping->i_pages, index);
	void *now;
	int order;

	rcu_read_lock();
	do {
		now = xas_load(&xas);
		order = now == entry ? xas_get_order(&xas) : -1;
	} while (xas_retry(&xas, now));
	rcu_read_unlock();
	return order;
}

/*
 * Make the large swap entry @entry at @base, of @order, one entry per page,
 * unless its folio is still whole in the swap cache: then return that
 * folio, referenced, to come back whole. Return: NULL once split,
 * ERR_PTR(-EEXIST) if the entry changed meanwhile, or -ENOMEM.
 */
static struct folio *htmpfs_swap_split_entry(struct address_space *mapping,
					     pgoff_t base, int order,
					     void *entry, gfp_t gfp)
{
	swp_entry_t swap = radix_to_swp_entry(entry);
	XA_STATE(xas, &mapping->i_pages, base);
	struct swap_info_struct *si;
	struct folio *folio;
	int i;

	/* Swapoff frees the swap cache: only with the device held. */
	si = get_swap_device(swap);
	if (!si)	/* swapoff brought it in, or the entry is bad */
		return ERR_PTR(htmpfs_swap_order(mapping, base, entry) < 0 ?
			       -EEXIST : -EIO);
	folio = swap_cache_get_folio(swap, NULL, 0);
	put_swap_device(si);
	if (folio && folio_order(folio) == order)
		return folio;
	if (folio)
		folio_put(folio);
	/* See "the two always agree" above: it cannot come back now. */
	xas_split_alloc(&xas, entry, order, gfp);
	if (xas_error(&xas))
		return ERR_PTR(xas_error(&xas));
	xas_lock_irq(&xas);
	if (xas_load(&xas) != entry || xas_get_order(&xas) != order) {
		xas_set_err(&xas, -EEXIST);
		goto unlock;
	}
	/* Every page gets the entry; then each its own swap slot. */
	xas_split(&xas, entry, order);
	for (i = 1; i < 1 << order; i++) {
		xas_set(&xas, base + i);
		xas_store(&xas, swp_to_radix_entry(htmpfs_swap_nth(swap, i)));
	}
unlock:
	xas_unlock_irq(&xas);
	/* Frees what xas_split() did not use. */
	xas_nomem(&xas, 0);
	return xas_error(&xas) ? ERR_PTR(xas_error(&xas)) : NULL;
}

/**
 * htmpfs_swapin - bring back a page of a file from swap
 * @inode: the file
 * @index: the page
 * @entry: the swap entry its page cache slot was seen to hold
 *
 * Return: the folio holding it, locked, referenced, dirty and uptodate, in
 * the page cache again: large if it was still whole in the swap cache,
 * else small; ERR_PTR(-EEXIST) if the slot changed meanwhile (look again),
 * -ENOMEM, or -EIO if swap could not be read (the page is lost: its slot
 * holds a poisoned entry from then on, as tmpfs does).
 */
struct folio *htmpfs_swapin(struct inode *inode, pgoff_t index, void *entry)
{
	struct address_space *mapping = inode->i_mapping;
	struct htmpfs_sb_info *sbi = HTMPFS_SB(inode->i_sb);
	swp_entry_t swap = radix_to_swp_entry(entry);
	struct swap_info_struct *si;
	struct folio *folio = NULL;
	struct mempolicy *mpol;
	pgoff_t ilx;
	int order, err;
	long nr;

	if (htmpfs_swap_poisoned(entry))
		return ERR_PTR(-EIO);
	/* Keeps swapoff from freeing the device under us. */
	si = get_swap_device(swap);
	if (!si)	/* swapoff brought it in, or the entry is bad */
		return ERR_PTR(htmpfs_swap_order(mapping, index, entry) < 0 ?
			       -EEXIST : -EIO);
	err = -EEXIST;
	order = htmpfs_swap_order(mapping, index, entry);
	if (order < 0)
		goto put;
	if (order) {
		pgoff_t base = round_down(index, 1 << order);

		folio = htmpfs_swap_split_entry(mapping, base, order, entry,
						GFP_KERNEL);
		if (IS_ERR(folio)) {
			err = PTR_ERR(folio);
			goto put;
		}
		if (folio) {
			index = base;
		} else {
			/* Now this page's own entry */
			swap = htmpfs_swap_nth(swap, index - base);
			entry = swp_to_radix_entry(swap);
			order = 0;
		}
	}
	if (!folio)
		folio = swap_cache_get_folio(swap, NULL, 0);
	if (!folio) {
		mpol = htmpfs_mpol_at(inode, index, 0, &ilx);
		folio = swap_cluster_readahead(swap, mapping_gfp_mask(mapping),
					       mpol, ilx);
		mpol_cond_put(mpol);
		/* Truncation may have freed the entry meanwhile: look again. */
		err = htmpfs_swap_order(mapping, index, entry) < 0 ? -EEXIST :
								      -ENOMEM;
		if (!folio)
			goto put;
	}
	folio_lock(folio);
	err = -EEXIST;
	if (!folio_test_swapcache(folio) || folio->swap.val != swap.val ||
	    htmpfs_swap_order(mapping, index, entry) < 0)
		goto unlock;
	err = -EIO;
	if (WARN_ON_ONCE(folio_order(folio) != order))
		goto unlock;
	if (!folio_test_uptodate(folio)) {
		/* A large one comes back whole only from the swap cache. */
		if (!order && !htmpfs_swapin_error(inode, index, entry, folio))
			err = -EEXIST;
		goto unlock;
	}
	folio_wait_writeback(folio);
	arch_swap_restore(swap, folio);
	err = htmpfs_add_to_cache(mapping, folio, index, entry);
	if (err)
		goto unlock;
	nr = folio_nr_pages(folio);
	/* After the page cache has it again: see htmpfs_writepage(). */
	htmpfs_swapped_add(inode, -nr);
	delete_from_swap_cache(folio);
	/* See "What keeps data safe" in internal.h. */
	folio_mark_dirty(folio);
	swap_free_nr(swap, nr);
	put_swap_device(si);
	htmpfs_count_add(sbi, HTMPFS_STAT_SWAP_IN, nr);
	if (nr > 1) {
		htmpfs_count(sbi, HTMPFS_STAT_SWAP_IN_WHOLE);
		trace_hugetmpfs_swap_whole(inode, index, order, swap, false);
	} else if (htmpfs_huge_allowed(inode, index, 0, NULL)) {
		/* Small now: the collapse thread may make it huge again. */
		htmpfs_scan_queue(inode);
	}
	return folio;

unlock:
	folio_unlock(folio);
	folio_put(folio);
put:
	put_swap_device(si);
	return ERR_PTR(err);
}

/*
 * Free the swap entry @entry seen at @index if it lies in [@first, @last].
 * Return: the pages freed; 0 if the slot changed meanwhile; minus its pages
 * if the entry is large and only partly inside.
 */
static long htmpfs_swap_drop(struct address_space *mapping, pgoff_t index,
			     void *entry, pgoff_t first, pgoff_t last)
{
	XA_STATE(xas, &mapping->i_pages, index);
	long nr = 0;
	pgoff_t base;

	xas_lock_irq(&xas);
	if (xas_load(&xas) == entry) {
		nr = 1L << xas_get_order(&xas);
		base = round_down(index, nr);
		if (base < first || base + nr - 1 > last)
			nr = -nr;
		else
			xas_store(&xas, NULL);	/* the whole entry */
	}
	xas_unlock_irq(&xas);
	if (nr > 0)
		free_swap_and_cache_nr(radix_to_swp_entry(entry), nr);
	return nr;
}

/**
 * htmpfs_swap_free - free the swap entries of a range of pages
 * @inode: the file, with the invalidate lock held exclusively (no page
 *	goes out meanwhile), before its page cache is truncated there
 * @first: the first page
 * @last: the last page (ULONG_MAX: to the end)
 *
 * A large entry partly inside is split first, without reading anything,
 * or if its folio is still in the swap cache, that folio comes back, for
 * the truncation to cut as any other.
 */
void htmpfs_swap_free(struct inode *inode, pgoff_t first, pgoff_t last)
{
	struct address_space *mapping = inode->i_mapping;
	struct folio *folio;
	pgoff_t index = first, base;
	long freed = 0, nr;
	void *entry;
	int order;

	if (!READ_ONCE(HTMPFS_I(inode)->swapped) &&
	    !READ_ONCE(HTMPFS_I(inode)->swap_errors))
		return;
	while (index <= last &&
	       (entry = htmpfs_next_swap(mapping, &index, last))) {
		cond_resched();
		/* A read(2) may be bringing it in: whoever changes it wins. */
		nr = htmpfs_swap_drop(mapping, index, entry, first, last);
		if (!nr)
			continue;	/* changed meanwhile: look again */
		if (htmpfs_swap_poisoned(entry)) {
			/* Counted neither as swap nor as space any more */
			spin_lock(&HTMPFS_I(inode)->lock);
			HTMPFS_I(inode)->swap_errors--;
			spin_unlock(&HTMPFS_I(inode)->lock);
			if (!++index)
				break;
			continue;
		}
		if (nr < 0) {
			order = ilog2(-nr);
			base = round_down(index, -nr);
			folio = htmpfs_swap_split_entry(mapping, base, order,
							entry, GFP_KERNEL |
							__GFP_NOFAIL);
			if (IS_ERR_OR_NULL(folio))
				continue;	/* split, or changed: again */
			folio_put(folio);
			folio = htmpfs_swapin(inode, index, entry);
			if (!IS_ERR(folio)) {
				folio_unlock(folio);
				folio_put(folio);
			} else if (WARN_ON_ONCE(folio != ERR_PTR(-EEXIST))) {
				index = base - nr;
			}
			continue;
		}
		freed += nr;
		index = round_down(index, nr) + nr;
		if (!index)	/* wrapped past ULONG_MAX */
			break;
	}
	if (freed)
		htmpfs_swapped_add(inode, -freed);
	/*
	 * None may be left for core mm's truncation, which would take it for
	 * a shadow entry and drop it, the swap slot in use for good.
	 */
	if (IS_ENABLED(CONFIG_DEBUG_VM)) {
		index = first;
		VM_WARN_ON_ONCE(htmpfs_next_swap(mapping, &index, last));
	}
}

/* Bring in every page of @inode that is on swap device @type. */
static int htmpfs_unuse_inode(struct inode *inode, unsigned int type)
{
	struct address_space *mapping = inode->i_mapping;
	struct folio *folio;
	pgoff_t index = 0;
	void *entry;

	while ((entry = htmpfs_next_swap(mapping, &index, ULONG_MAX))) {
		folio = NULL;
		if (swp_type(radix_to_swp_entry(entry)) == type) {
			folio = htmpfs_swapin(inode, index, entry);
			/* A read error poisons the slot: look at it again. */
			if (folio == ERR_PTR(-EIO) &&
			    htmpfs_swap_order(mapping, index, entry) < 0)
				folio = ERR_PTR(-EEXIST);
			if (IS_ERR(folio) && folio != ERR_PTR(-EEXIST))
				return PTR_ERR(folio);
		}
		if (signal_pending(current))
			return -EINTR;
		cond_resched();
		/* Changed meanwhile: look at the slot again. */
		if (folio == ERR_PTR(-EEXIST))
			continue;
		if (folio) {
			folio_unlock(folio);
			folio_put(folio);
		}
		if (index++ == ULONG_MAX)
			break;
	}
	return 0;
}

static bool htmpfs_unuse_want(struct inode *inode)
{
	return READ_ONCE(HTMPFS_I(inode)->swapped);
}

static int htmpfs_unuse_one(struct inode *inode, void *type)
{
	return htmpfs_unuse_inode(inode, *(unsigned int *)type);
}

struct htmpfs_unuse {
	unsigned int type;
	int err;
};

/* htmpfs_unuse_inode() on every file of a mount that has pages in swap */
static void htmpfs_unuse_sb(struct super_block *sb, void *arg)
{
	struct htmpfs_unuse *u = arg;

	if (!u->err)
		u->err = htmpfs_walk_inodes(sb, htmpfs_unuse_want,
					    htmpfs_unuse_one, &u->type);
}

/* swapoff of device @type: called by try_to_unuse() */
static int htmpfs_unuse(struct notifier_block *nb, unsigned long type,
			void *unused)
{
	struct htmpfs_unuse u = { .type = type };

	iterate_supers_type(htmpfs_swap_fs_type, htmpfs_unuse_sb, &u);
	return notifier_from_errno(u.err);
}

static struct notifier_block htmpfs_unuse_nb = {
	.notifier_call = htmpfs_unuse,
};

/**
 * htmpfs_swap_init - let swapoff bring back our pages, at module load
 * @fs_type: the file system type whose mounts to look in
 *
 * Return: 0 or -errno.
 */
int htmpfs_swap_init(struct file_system_type *fs_type)
{
	htmpfs_swap_fs_type = fs_type;
	return register_swap_unuse_notifier(&htmpfs_unuse_nb);
}

/**
 * htmpfs_swap_exit - at module unload, once no mount (so no entry) is left
 *
 * Waits for a swapoff running our callback.
 */
void htmpfs_swap_exit(void)
{
	unregister_swap_unuse_notifier(&htmpfs_unuse_nb);
}
