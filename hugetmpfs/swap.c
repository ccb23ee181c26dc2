// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs swap: under memory pressure reclaim writes a file's pages to
 * swap, as it does tmpfs's, and they come back when the file is used.
 *
 * Swap-out: reclaim calls ->writepage on a small folio it has unmapped and
 * locked. A large or huge folio is split first (its pages go back on
 * reclaim's list to follow; counted in swap_splits). The folio goes into the
 * swap cache, its page cache slot keeps the swap entry (cache.c), and it is
 * written. The entry then belongs to the file (swap_shmem_alloc()), not to
 * the swap cache, until the page comes back or the file lets go of it.
 *
 * Swap-in: every lookup that finds a swap entry in a slot (htmpfs_get_folio()
 * for writes, faults, fallocate and partial-page zeroing; read(2)) brings
 * the page back as a small folio, with swap read-ahead, and queues the file
 * for the collapse thread, which rebuilds its huge folios.
 *
 * Truncation: core mm's truncation would drop swap entries without freeing
 * them, so truncate, hole punch and eviction free the entries of their
 * range first. They hold the invalidate lock exclusively, and ->writepage
 * only tries it: no new entry can appear under them.
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

/**
 * htmpfs_writepage - address_space_operations.writepage: swap a page out
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
	unsigned int order;
	pgoff_t index;
	int err;

	/* Memory is where the data lives: only reclaim has a reason to ask. */
	if (WARN_ON_ONCE(!wbc->for_reclaim) || !get_nr_swap_pages() ||
	    folio_mapped(folio) || htmpfs_folio_poisoned(folio))
		goto redirty;
	/* Truncation holds it: it must not find a new swap entry behind it. */
	if (!filemap_invalidate_trylock_shared(mapping))
		goto redirty;

	if (folio_test_large(folio)) {
		/* Set for swap-backed mappings by kernel-prereq.patch */
		if (!wbc->list)
			goto unlock;
		index = folio->index;
		order = folio_order(folio);
		/* The pages split off are written later: they stay dirty. */
		folio_set_dirty(folio);
		err = split_huge_page_to_list_to_order(page, wbc->list, 0);
		trace_hugetmpfs_swap_split(inode, index, order, err);
		if (err)
			goto unlock;
		htmpfs_count(sbi, HTMPFS_STAT_SWAP_SPLITS);
		folio = page_folio(page);
		folio_clear_dirty(folio);
	}

	/* Charges the swap to the folio's memory cgroup (memory.swap.max). */
	if (!add_to_swap(folio))
		goto unlock;
	/* It marked the folio dirty; it is being written now. */
	folio_clear_dirty(folio);
	/* Before the page cache lets go: htmpfs_recalc() must not free it. */
	htmpfs_swapped_add(inode, 1);
	/* The file's, from now on: not freed with the swap cache. */
	swap_shmem_alloc(folio->swap, 1);
	htmpfs_count(sbi, HTMPFS_STAT_SWAP_OUT);
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
	*index = xas.xa_index;
	return entry;
}

/**
 * htmpfs_swapin - bring back a page of a file from swap
 * @inode: the file
 * @index: the page
 * @entry: the swap entry its page cache slot was seen to hold
 *
 * Return: its folio, small, locked, referenced, dirty and uptodate, in the
 * page cache again; ERR_PTR(-EEXIST) if the slot changed meanwhile (look
 * again), -ENOMEM, or -EIO if swap could not be read (the entry stays).
 */
struct folio *htmpfs_swapin(struct inode *inode, pgoff_t index, void *entry)
{
	struct address_space *mapping = inode->i_mapping;
	swp_entry_t swap = radix_to_swp_entry(entry);
	struct swap_info_struct *si;
	struct mempolicy *mpol;
	struct folio *folio;
	pgoff_t ilx;
	int err;

	/* Keeps swapoff from freeing the device under us. */
	si = get_swap_device(swap);
	if (!si)
		return ERR_PTR(-EEXIST);	/* swapoff brought it in */
	err = -EEXIST;
	if (xa_load(&mapping->i_pages, index) != entry)
		goto put;
	folio = swap_cache_get_folio(swap, NULL, 0);
	if (!folio) {
		mpol = htmpfs_mpol_at(inode, index, 0, &ilx);
		folio = swap_cluster_readahead(swap, mapping_gfp_mask(mapping),
					       mpol, ilx);
		mpol_cond_put(mpol);
		err = -ENOMEM;
		if (!folio)
			goto put;
	}
	folio_lock(folio);
	err = -EEXIST;
	if (!folio_test_swapcache(folio) || folio->swap.val != swap.val ||
	    xa_load(&mapping->i_pages, index) != entry)
		goto unlock;
	err = -EIO;
	if (WARN_ON_ONCE(folio_test_large(folio)) ||
	    !folio_test_uptodate(folio))
		goto unlock;
	folio_wait_writeback(folio);
	arch_swap_restore(swap, folio);
	err = htmpfs_add_to_cache(mapping, folio, index, entry);
	if (err)
		goto unlock;
	/* After the page cache has it again: see htmpfs_writepage(). */
	htmpfs_swapped_add(inode, -1);
	delete_from_swap_cache(folio);
	/* See "What keeps data safe" in internal.h. */
	folio_mark_dirty(folio);
	swap_free_nr(swap, 1);
	put_swap_device(si);
	htmpfs_count(HTMPFS_SB(inode->i_sb), HTMPFS_STAT_SWAP_IN);
	/* Small now: the collapse thread may make the range huge again. */
	if (htmpfs_huge_allowed(inode, index, 0, NULL))
		htmpfs_scan_queue(inode);
	return folio;

unlock:
	folio_unlock(folio);
	folio_put(folio);
put:
	put_swap_device(si);
	return ERR_PTR(err);
}

/**
 * htmpfs_swap_free - free the swap entries of a range of pages
 * @inode: the file, with the invalidate lock held exclusively (no page
 *	goes out meanwhile), before its page cache is truncated there
 * @first: the first page
 * @last: the last page (ULONG_MAX: to the end)
 */
void htmpfs_swap_free(struct inode *inode, pgoff_t first, pgoff_t last)
{
	struct address_space *mapping = inode->i_mapping;
	pgoff_t index = first;
	long freed = 0;
	void *entry;

	if (!READ_ONCE(HTMPFS_I(inode)->swapped))
		return;
	while (index <= last &&
	       (entry = htmpfs_next_swap(mapping, &index, last))) {
		/* A read(2) may be bringing it in: whoever changes it wins. */
		if (xa_cmpxchg_irq(&mapping->i_pages, index, entry, NULL,
				   0) == entry) {
			free_swap_and_cache_nr(radix_to_swp_entry(entry), 1);
			freed++;
		}
		if (index++ == ULONG_MAX)
			break;
		cond_resched();
	}
	if (freed)
		htmpfs_swapped_add(inode, -freed);
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
