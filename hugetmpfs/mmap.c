// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs mappings. No ->page_mkwrite: every folio is already dirty, and
 * without write-notify core mm maps PMD-sized folios with one PMD entry, from
 * ->map_pages (filemap_map_pages) or after ->fault (finish_fault), on read
 * and write faults alike, when the VMA covers the aligned 2 MiB and the folio
 * lies within i_size. No ->huge_fault either: that would put our mappings
 * under the global transparent_hugepage/enabled setting.
 */
#include <linux/mm.h>
#include <linux/pagemap.h>

#include "internal.h"

static bool htmpfs_beyond_eof(struct inode *inode, pgoff_t index)
{
	return index >= DIV_ROUND_UP(i_size_read(inode), PAGE_SIZE);
}

/*
 * A mapping that asked for huge pages (MADV_HUGEPAGE) faults on a small
 * folio: where the file's policy leaves it to the mapping (advise), only
 * this tells the collapse thread that the range is wanted huge.
 */
static void htmpfs_fault_queue(struct vm_fault *vmf, struct inode *inode,
			       struct folio *folio)
{
	if (!(vmf->vma->vm_flags & VM_HUGEPAGE) || !folio ||
	    xa_is_value(folio) || folio_test_pmd_mappable(folio))
		return;
	if (htmpfs_huge_allowed(inode, vmf->pgoff, 0, vmf->vma)) {
		WRITE_ONCE(HTMPFS_I(inode)->huge_advised, true);
		htmpfs_scan_queue(inode);
	}
}

/* Fault-around maps the folios there are: see whether they should be huge. */
static vm_fault_t htmpfs_map_pages(struct vm_fault *vmf, pgoff_t start,
				   pgoff_t end)
{
	struct inode *inode = file_inode(vmf->vma->vm_file);

	if (vmf->vma->vm_flags & VM_HUGEPAGE) {
		rcu_read_lock();
		/* Only a hint, so no reference: the queue holds none. */
		htmpfs_fault_queue(vmf, inode,
				   xa_load(&inode->i_mapping->i_pages,
					   vmf->pgoff));
		rcu_read_unlock();
	}
	return filemap_map_pages(vmf, start, end);
}

/*
 * Find or make the folio (a hole gets one of the size our policy picks, not
 * read-ahead's) and hand it back locked for finish_fault() to map.
 */
static vm_fault_t htmpfs_fault(struct vm_fault *vmf)
{
	struct inode *inode = file_inode(vmf->vma->vm_file);
	struct address_space *mapping = inode->i_mapping;
	vm_fault_t ret = VM_FAULT_LOCKED;
	struct folio *folio;

	if (htmpfs_beyond_eof(inode, vmf->pgoff))
		return VM_FAULT_SIGBUS;
	/*
	 * In swap: a major fault, as for tmpfs (but not in memory.stat's
	 * pgmajfault: __count_memcg_events() is not exported).
	 */
	if (xa_is_value(xa_load(&mapping->i_pages, vmf->pgoff))) {
		ret |= VM_FAULT_MAJOR;
		count_vm_event(PGMAJFAULT);
	}

	/* Keeps hole punching from freeing what we are about to map. */
	filemap_invalidate_lock_shared(mapping);
	folio = htmpfs_get_folio(inode, vmf->pgoff, 0, vmf->vma,
				 HTMPFS_FILL_ZERO);
	filemap_invalidate_unlock_shared(mapping);
	if (IS_ERR(folio))
		return vmf_error(PTR_ERR(folio));

	/* Truncate waits for the folio lock, so this check stays true. */
	if (htmpfs_beyond_eof(inode, vmf->pgoff)) {
		folio_unlock(folio);
		folio_put(folio);
		return VM_FAULT_SIGBUS;
	}
	htmpfs_fault_queue(vmf, inode, folio);
	vmf->page = folio_file_page(folio, vmf->pgoff);
	/* A memory error: kill whoever touches it, keep the rest mappable. */
	if (unlikely(PageHWPoison(vmf->page))) {
		folio_unlock(folio);
		folio_put(folio);
		return VM_FAULT_HWPOISON;
	}
	return ret;
}

static const struct vm_operations_struct htmpfs_vm_ops = {
	.fault		= htmpfs_fault,
	.map_pages	= htmpfs_map_pages,
#ifdef CONFIG_NUMA
	.set_policy	= htmpfs_set_policy,
	.get_policy	= htmpfs_get_policy,
#endif
};

/**
 * htmpfs_mmap - file_operations.mmap
 * @file: file being mapped
 * @vma: the new mapping
 *
 * Return: 0.
 */
int htmpfs_mmap(struct file *file, struct vm_area_struct *vma)
{
	file_accessed(file);
	/* Writes through it will not tell us: holes must be read first. */
	htmpfs_holes_mmap(vma);
	vma->vm_ops = &htmpfs_vm_ops;
	return 0;
}
