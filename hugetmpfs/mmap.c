// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs mappings. No ->page_mkwrite: every folio is already dirty, and
 * without write-notify core mm may map PMD-sized folios with one PMD entry
 * (filemap_map_pages / finish_fault) on read and write faults alike.
 */
#include <linux/mm.h>
#include <linux/pagemap.h>

#include "internal.h"

static const struct vm_operations_struct htmpfs_vm_ops = {
	.fault		= filemap_fault,
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
