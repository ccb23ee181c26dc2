// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs page cache entries. A slot of a file's page cache holds a folio
 * of its data, a swap entry (the data is in swap, swap.c), or nothing (a
 * hole). These two calls are the only ones that turn one into another
 * besides truncation, so that the counts the kernel keeps for shmem-like
 * memory (Shmem, ShmemHugePages in /proc/meminfo and memory.stat) stay
 * exact: filemap_add_folio() refuses swap-backed folios, and core mm's
 * removal undoes only what we add here.
 */
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/swap.h>
#include <linux/swapops.h>

#include "internal.h"

/* Count @nr pages of @folio in or out of the page cache, as shmem's are. */
static void htmpfs_cache_stat(struct folio *folio, long nr)
{
	__lruvec_stat_mod_folio(folio, NR_FILE_PAGES, nr);
	__lruvec_stat_mod_folio(folio, NR_SHMEM, nr);
	if (folio_test_pmd_mappable(folio))
		__lruvec_stat_mod_folio(folio, NR_SHMEM_THPS, nr);
}

/**
 * htmpfs_add_to_cache - insert a locked folio into a file's page cache
 * @mapping: the file's mapping
 * @folio: the folio, locked, not in any page cache
 * @index: its first page, aligned to its order
 * @expected: what its range must hold now: NULL (a hole), or for a page
 *	coming back from swap, its swap entry
 *
 * Return: 0, -EEXIST if the range holds anything else, or -ENOMEM.
 */
int htmpfs_add_to_cache(struct address_space *mapping, struct folio *folio,
			pgoff_t index, void *expected)
{
	XA_STATE_ORDER(xas, &mapping->i_pages, index, folio_order(folio));
	long nr = folio_nr_pages(folio);

	folio_ref_add(folio, nr);
	folio->mapping = mapping;
	folio->index = index;
	do {
		xas_lock_irq(&xas);
		if (expected ? xas_load(&xas) != expected :
			       !!xas_find_conflict(&xas)) {
			xas_set_err(&xas, -EEXIST);
			goto unlock;
		}
		xas_store(&xas, folio);
		if (xas_error(&xas))
			goto unlock;
		mapping->nrpages += nr;
		/* filemap_unaccount_folio() undoes it. */
		htmpfs_cache_stat(folio, nr);
unlock:
		xas_unlock_irq(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));

	if (xas_error(&xas)) {
		folio->mapping = NULL;
		folio_ref_sub(folio, nr);
		return xas_error(&xas);
	}
	return 0;
}

/**
 * htmpfs_cache_to_swap - put a folio's swap entry in its page cache slots
 * @folio: a folio of a file, locked, unmapped, in the swap cache
 *
 * The folio leaves the file (its page cache references go; the swap cache
 * keeps its own) and its slots keep where its data went: one entry for the
 * whole folio, whose first page's swap slot it names (swap.c).
 */
void htmpfs_cache_to_swap(struct folio *folio)
{
	struct address_space *mapping = folio->mapping;
	XA_STATE_ORDER(xas, &mapping->i_pages, folio->index, folio_order(folio));
	long nr = folio_nr_pages(folio);
	void *old;

	xas_lock_irq(&xas);
	/* The slots exist: a store of a value in them cannot fail. */
	old = xas_store(&xas, swp_to_radix_entry(folio->swap));
	VM_WARN_ON_FOLIO(old != folio, folio);
	folio->mapping = NULL;
	mapping->nrpages -= nr;
	htmpfs_cache_stat(folio, -nr);
	xas_unlock_irq(&xas);
	folio_put_refs(folio, nr);
}
