// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs mappings. No ->page_mkwrite: every folio is already dirty, and
 * without write-notify core mm may map PMD-sized folios with one PMD entry
 * (filemap_map_pages / finish_fault) on read and write faults alike.
 */
#include <linux/mm.h>
#include <linux/pagemap.h>

#include "internal.h"

static vm_fault_t htmpfs_fault(struct vm_fault *vmf)
{
	struct inode *inode = file_inode(vmf->vma->vm_file);
	pgoff_t eof = DIV_ROUND_UP(i_size_read(inode), PAGE_SIZE);
	int err;

	/*
	 * Fill a hole with a folio of the size our policy picks before
	 * filemap_fault() looks: left to itself it would read ahead, with PMD
	 * folios in MADV_HUGEPAGE ranges whatever huge= says. It then maps
	 * the folio, with a PMD if folio and VMA allow.
	 */
	if (vmf->pgoff < eof) {
		err = htmpfs_fill_hole(inode, vmf->pgoff, 0, vmf->vma, NULL);
		if (err)
			return vmf_error(err);
	}
	return filemap_fault(vmf);
}

static const struct vm_operations_struct htmpfs_vm_ops = {
	.fault		= htmpfs_fault,
	.map_pages	= filemap_map_pages,
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
	vma->vm_ops = &htmpfs_vm_ops;
	return 0;
}
