// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs file data: the page cache holds it, and nothing else does. A
 * folio is created zeroed or fully written, marked uptodate and dirty, and
 * stays so until truncation frees it. Folios may be of any order.
 */
#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/falloc.h>
#include <linux/pagemap.h>
#include <linux/posix_acl.h>
#include <linux/uio.h>

#include "internal.h"

/* Called only for folios the page cache made to fill a hole. */
static int htmpfs_read_folio(struct file *file, struct folio *folio)
{
	folio_zero_range(folio, 0, folio_size(folio));
	folio_mark_uptodate(folio);
	folio_mark_dirty(folio);
	folio_unlock(folio);
	return 0;
}

/**
 * htmpfs_fill_hole - make sure a folio holds page @index of a file
 * @inode: the file
 * @index: page index
 * @write_end: for fallocate, the end of the range in bytes; else 0
 * @vma: the mapping being faulted, or NULL
 * @next: if not NULL, set to the index after the folio that holds @index
 *
 * A hole gets a zeroed folio, huge if the policy allows and the 2 MiB
 * range is empty, else a single page.
 *
 * Return: 0 or a negative errno.
 */
int htmpfs_fill_hole(struct inode *inode, pgoff_t index, loff_t write_end,
		     struct vm_area_struct *vma, pgoff_t *next)
{
	struct address_space *mapping = inode->i_mapping;
	struct folio *folio;

	folio = filemap_get_folio(mapping, index);
	if (!IS_ERR(folio))
		goto out;

	if (htmpfs_huge_allowed(inode, index, write_end, vma))
		htmpfs_huge_prepare(inode, index, vma);

	folio = __filemap_get_folio(mapping, index, FGP_LOCK | FGP_CREAT,
				    mapping_gfp_mask(mapping));
	if (IS_ERR(folio))
		return PTR_ERR(folio);
	if (!folio_test_uptodate(folio)) {
		folio_zero_range(folio, 0, folio_size(folio));
		folio_mark_uptodate(folio);
		folio_mark_dirty(folio);
	}
	folio_unlock(folio);
out:
	if (next)
		*next = folio_next_index(folio);
	folio_put(folio);
	return 0;
}

static int htmpfs_write_begin(struct file *file, struct address_space *mapping,
			      loff_t pos, unsigned int len,
			      struct folio **foliop, void **fsdata)
{
	pgoff_t index = pos >> PAGE_SHIFT;
	struct folio *folio;
	size_t from;

	if (htmpfs_huge_allowed(mapping->host, index, pos + len, NULL))
		htmpfs_huge_prepare(mapping->host, index, NULL);

	/* Finds the huge folio, or makes a small one. */
	folio = __filemap_get_folio(mapping, index, FGP_WRITEBEGIN,
				    mapping_gfp_mask(mapping));
	if (IS_ERR(folio))
		return PTR_ERR(folio);

	if (!folio_test_uptodate(folio)) {
		/* New folio: what this write does not cover must read as 0. */
		from = offset_in_folio(folio, pos);
		folio_zero_segments(folio, 0, from, from + len,
				    folio_size(folio));
	}
	*foliop = folio;
	return 0;
}

static int htmpfs_write_end(struct file *file, struct address_space *mapping,
			    loff_t pos, unsigned int len, unsigned int copied,
			    struct folio *folio, void *fsdata)
{
	struct inode *inode = mapping->host;

	if (!folio_test_uptodate(folio)) {
		/* A short copy left part of the new folio unwritten. */
		if (copied < len)
			folio_zero_range(folio, offset_in_folio(folio, pos) +
					 copied, len - copied);
		folio_mark_uptodate(folio);
	}
	/* i_rwsem is held, so i_size cannot change under us. */
	if (pos + copied > inode->i_size)
		i_size_write(inode, pos + copied);
	folio_mark_dirty(folio);
	folio_unlock(folio);
	folio_put(folio);
	return copied;
}

const struct address_space_operations htmpfs_aops = {
	.read_folio	= htmpfs_read_folio,
	.write_begin	= htmpfs_write_begin,
	.write_end	= htmpfs_write_end,
	.dirty_folio	= noop_dirty_folio,
	/* Movable, so compaction can build the huge pages we want. */
	.migrate_folio	= filemap_migrate_folio,
	.error_remove_folio = generic_error_remove_folio,
};

static long htmpfs_fallocate(struct file *file, int mode, loff_t offset,
			     loff_t len)
{
	struct inode *inode = file_inode(file);
	struct address_space *mapping = inode->i_mapping;
	loff_t end = offset + len;
	pgoff_t index, last;
	int err = 0;

	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE |
		     FALLOC_FL_ZERO_RANGE))
		return -EOPNOTSUPP;

	inode_lock(inode);
	if (!(mode & FALLOC_FL_KEEP_SIZE) && end > i_size_read(inode)) {
		err = inode_newsize_ok(inode, end);
		if (err)
			goto out;
	}

	if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) {
		/* Frees whole folios, zeroes (and splits) partial ones. */
		filemap_invalidate_lock(mapping);
		truncate_pagecache_range(inode, offset, end - 1);
		filemap_invalidate_unlock(mapping);
		inode_set_mtime_to_ts(inode, inode_set_ctime_current(inode));
	}

	if (!(mode & FALLOC_FL_PUNCH_HOLE)) {
		last = (end - 1) >> PAGE_SHIFT;
		for (index = offset >> PAGE_SHIFT; index <= last; ) {
			if (fatal_signal_pending(current)) {
				err = -EINTR;
				break;
			}
			err = htmpfs_fill_hole(inode, index, end, NULL, &index);
			if (err) {
				/* What was filled stays: it is all zeroes. */
				if (err == -ENOMEM)
					err = -ENOSPC;
				break;
			}
			cond_resched();
		}
	}

	if (!(mode & FALLOC_FL_KEEP_SIZE) && end > i_size_read(inode) && !err)
		i_size_write(inode, end);
	if (!err)
		file_modified(file);
out:
	inode_unlock(inode);
	return err;
}

/* O_DIRECT is accepted, as tmpfs does: the page cache is the storage. */
static int htmpfs_file_open(struct inode *inode, struct file *file)
{
	file->f_mode |= FMODE_CAN_ODIRECT;
	return generic_file_open(inode, file);
}

static ssize_t htmpfs_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	iocb->ki_flags &= ~IOCB_DIRECT;
	return generic_file_read_iter(iocb, to);
}

static ssize_t htmpfs_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	iocb->ki_flags &= ~IOCB_DIRECT;
	return generic_file_write_iter(iocb, from);
}

/*
 * SEEK_DATA/SEEK_HOLE: data is wherever the page cache holds a folio, so a
 * huge folio is data for all its 2 MiB, zeroed parts included.
 */
static loff_t htmpfs_llseek(struct file *file, loff_t offset, int whence)
{
	struct inode *inode = file_inode(file);

	if (whence != SEEK_DATA && whence != SEEK_HOLE)
		return generic_file_llseek(file, offset, whence);
	if (offset < 0)
		return -ENXIO;

	inode_lock_shared(inode);
	offset = mapping_seek_hole_data(inode->i_mapping, offset,
					i_size_read(inode), whence);
	if (offset >= 0)
		offset = vfs_setpos(file, offset, MAX_LFS_FILESIZE);
	inode_unlock_shared(inode);
	return offset;
}

const struct file_operations htmpfs_file_ops = {
	.open		= htmpfs_file_open,
	.llseek		= htmpfs_llseek,
	.read_iter	= htmpfs_read_iter,
	.write_iter	= htmpfs_write_iter,
	.fallocate	= htmpfs_fallocate,
	.mmap		= htmpfs_mmap,
	.get_unmapped_area = thp_get_unmapped_area,
	.fsync		= noop_fsync,
	.splice_read	= filemap_splice_read,
	.splice_write	= iter_file_splice_write,
};

const struct inode_operations htmpfs_file_inode_ops = {
	.setattr	= htmpfs_setattr,
	.getattr	= htmpfs_getattr,
	.listxattr	= htmpfs_listxattr,
	.set_acl	= simple_set_acl,
};
