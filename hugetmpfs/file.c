// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs file data: the page cache holds it, and nothing else does. A
 * folio is created zeroed, or (for write(2)) locked and not uptodate until
 * the write has filled it and zeroed the rest; it is dirty from birth and
 * stays dirty and uptodate until truncation frees it. Folios may be of any
 * order.
 */
#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/falloc.h>
#include <linux/iversion.h>
#include <linux/pagemap.h>
#include <linux/posix_acl.h>
#include <linux/swap.h>
#include <linux/uio.h>

#include "internal.h"

/*
 * A memory error in a folio: keep it, as tmpfs does. Truncating it would
 * lose the only copy of the data without a word; kept, its poisoned page
 * fails every read, write and fault with EIO or SIGBUS until the file
 * range is punched, truncated or removed.
 */
static int htmpfs_error_remove_folio(struct address_space *mapping,
				     struct folio *folio)
{
	return 0;
}

/*
 * Make sure a folio holds page @index, and reserve [@start, @end) of it:
 * preallocated pages are not holes. A huge folio only if the reservation
 * covers its 2 MiB: one padded with holes would use up size= for nothing
 * (and hold memory until the shrinker comes). *@next is the index after
 * the folio.
 */
static int htmpfs_fill_hole(struct inode *inode, pgoff_t index, loff_t start,
			    loff_t end, pgoff_t *next)
{
	loff_t huge = (loff_t)round_down(index, HPAGE_PMD_NR) << PAGE_SHIFT;
	struct folio *folio;

	folio = htmpfs_get_folio(inode, index, end, NULL,
				 huge >= start && huge + HPAGE_PMD_SIZE <= end ?
				 HTMPFS_FILL_ZERO : HTMPFS_FILL_ZERO_SMALL);
	if (IS_ERR(folio))
		return PTR_ERR(folio);
	htmpfs_holes_fill(inode, folio, start, end);
	*next = folio_next_index(folio);
	folio_unlock(folio);
	folio_put(folio);
	return 0;
}

static int htmpfs_write_begin(struct file *file, struct address_space *mapping,
			      loff_t pos, unsigned int len,
			      struct folio **foliop, void **fsdata)
{
	struct folio *folio;

	/* A new folio comes unzeroed: htmpfs_write_end() completes it. */
	folio = htmpfs_get_folio(mapping->host, pos >> PAGE_SHIFT, pos + len,
				 NULL, HTMPFS_FILL_WRITE);
	if (IS_ERR(folio))
		return PTR_ERR(folio);
	/* Not even the unpoisoned part: a partial write would be a surprise. */
	if (unlikely(htmpfs_folio_poisoned(folio))) {
		folio_unlock(folio);
		folio_put(folio);
		return -EIO;
	}
	*foliop = folio;
	return 0;
}

static int htmpfs_write_end(struct file *file, struct address_space *mapping,
			    loff_t pos, unsigned int len, unsigned int copied,
			    struct folio *folio, void *fsdata)
{
	struct inode *inode = mapping->host;

	/* A new folio: zero all that the copy did not fill, even on failure. */
	if (!folio_test_uptodate(folio)) {
		size_t from = offset_in_folio(folio, pos);

		folio_zero_segments(folio, 0, from, from + copied,
				    folio_size(folio));
		folio_mark_uptodate(folio);
	}
	htmpfs_holes_fill(inode, folio, pos, pos + copied);
	/* i_rwsem is held, so i_size cannot change under us. */
	if (pos + copied > inode->i_size)
		i_size_write(inode, pos + copied);
	folio_unlock(folio);
	folio_put(folio);
	return copied;
}

/*
 * No ->read_folio: nothing is ever read into the page cache from elsewhere,
 * so core mm cannot make folios here behind our back (read-ahead for
 * khugepaged or MADV_COLLAPSE would otherwise fill holes with folios that
 * are neither swap-backed nor within size=). ->writepage is swap-out, for
 * reclaim only (swap.c).
 */
const struct address_space_operations htmpfs_aops = {
	.write_begin	= htmpfs_write_begin,
	.write_end	= htmpfs_write_end,
	.dirty_folio	= noop_dirty_folio,
#ifdef CONFIG_SWAP
	.writepage	= htmpfs_writepage,
#endif
	/* Movable, so compaction can build the huge pages we want. */
	.migrate_folio	= filemap_migrate_folio,
	.error_remove_folio = htmpfs_error_remove_folio,
};

static long htmpfs_fallocate(struct file *file, int mode, loff_t offset,
			     loff_t len)
{
	struct inode *inode = file_inode(file);
	struct address_space *mapping = inode->i_mapping;
	loff_t end = offset + len;
	pgoff_t index, last;
	long max;
	int err = 0;

	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE |
		     FALLOC_FL_ZERO_RANGE))
		return -EOPNOTSUPP;

	inode_lock(inode);
	/* Drops suid/sgid and stamps the times before any data changes. */
	err = file_modified(file);
	if (err)
		goto out;
	if (!(mode & FALLOC_FL_KEEP_SIZE) && end > i_size_read(inode)) {
		err = inode_newsize_ok(inode, end);
		if (err)
			goto out;
	}

	/* Bound to fail: fail before changing anything, as tmpfs does. */
	max = READ_ONCE(HTMPFS_SB(inode->i_sb)->opts.max_blocks);
	if (!(mode & FALLOC_FL_PUNCH_HOLE) && max &&
	    DIV_ROUND_UP(len, PAGE_SIZE) > max) {
		err = -ENOSPC;
		goto out;
	}

	if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) {
		filemap_invalidate_lock(mapping);
		htmpfs_punch(inode, offset, end);
		filemap_invalidate_unlock(mapping);
		inode_set_mtime_to_ts(inode, inode_set_ctime_current(inode));
		inode_inc_iversion(inode);
	}

	if (!(mode & FALLOC_FL_PUNCH_HOLE)) {
		last = (end - 1) >> PAGE_SHIFT;
		for (index = offset >> PAGE_SHIFT; index <= last; ) {
			if (fatal_signal_pending(current)) {
				err = -EINTR;
				break;
			}
			err = htmpfs_fill_hole(inode, index, offset, end,
					       &index);
			if (err) {
				/*
				 * What was filled stays (zeroes, within size=);
				 * tmpfs would give it back.
				 */
				if (err == -ENOMEM)
					err = -ENOSPC;
				break;
			}
			cond_resched();
		}
	}

	if (!(mode & FALLOC_FL_KEEP_SIZE) && end > i_size_read(inode) && !err)
		i_size_write(inode, end);
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

/* huge_holes=free: the holes go when the last writer closes the file. */
static int htmpfs_file_release(struct inode *inode, struct file *file)
{
	if (READ_ONCE(HTMPFS_SB(inode->i_sb)->opts.holes_free) &&
	    (file->f_mode & FMODE_WRITE) &&
	    atomic_read(&inode->i_writecount) <= 1)
		htmpfs_holes_release(inode);
	return 0;
}

/*
 * The folio holding page @index, with a reference, or NULL for a hole: a
 * page in swap comes back first. ERR_PTR(-ENOMEM) or (-EIO) if it cannot.
 */
static struct folio *htmpfs_read_folio(struct inode *inode, pgoff_t index)
{
	struct folio *folio = filemap_get_folio(inode->i_mapping, index);

	if (!IS_ERR(folio))
		return folio;
	/*
	 * A hole, or a page in swap; or one just back from swap, which is no
	 * hole: htmpfs_get_folio() looks again until it knows which.
	 */
	folio = htmpfs_get_folio(inode, index, 0, NULL, HTMPFS_FILL_NONE);
	if (!IS_ERR_OR_NULL(folio))
		folio_unlock(folio);
	return folio;
}

/*
 * Copy from the page cache, a whole folio at a time; holes read as zeroes
 * without allocating anything (filemap_read() would fill them).
 */
static ssize_t htmpfs_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	struct address_space *mapping = inode->i_mapping;
	loff_t pos = iocb->ki_pos;
	ssize_t done = 0;

	while (iov_iter_count(to)) {
		loff_t size = i_size_read(inode);
		struct folio *folio;
		size_t n, copied;

		if (pos >= size)
			break;
		folio = htmpfs_read_folio(inode, pos >> PAGE_SHIFT);
		if (IS_ERR(folio)) {
			if (!done)
				done = PTR_ERR(folio);
			break;
		} else if (folio && unlikely(!folio_test_uptodate(folio))) {
			/* A new folio that a write is still filling: a hole. */
			folio_put(folio);
			folio = NULL;
		}
		n = folio ? folio_size(folio) - offset_in_folio(folio, pos) :
			    PAGE_SIZE - offset_in_page(pos);
		/* Never copy from a poisoned page: that would be a machine check. */
		if (folio && unlikely(htmpfs_folio_poisoned(folio))) {
			n = PAGE_SIZE - offset_in_page(pos);
			if (PageHWPoison(folio_file_page(folio,
							 pos >> PAGE_SHIFT))) {
				folio_put(folio);
				if (!done)
					done = -EIO;
				break;
			}
		}
		/* Truncation may have run while we looked the folio up. */
		size = i_size_read(inode);
		n = min3(n, iov_iter_count(to), (size_t)max(size - pos, 0LL));
		if (folio) {
			if (mapping_writably_mapped(mapping))
				flush_dcache_folio(folio);
			copied = copy_folio_to_iter(folio,
						    offset_in_folio(folio, pos),
						    n, to);
			folio_mark_accessed(folio);
			folio_put(folio);
		} else {
			copied = iov_iter_zero(n, to);
		}
		pos += copied;
		done += copied;
		if (copied < n) {
			if (!done)
				done = -EFAULT;
			break;
		}
		if (fatal_signal_pending(current)) {
			if (!done)
				done = -EINTR;
			break;
		}
		cond_resched();
	}
	iocb->ki_pos = pos;
	file_accessed(file);
	return done;
}

static ssize_t htmpfs_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	ssize_t ret;

	iocb->ki_flags &= ~IOCB_DIRECT;
	inode_lock(inode);
	/* chattr +i stops descriptors opened before it too, as on ext4. */
	ret = IS_IMMUTABLE(inode) ? -EPERM : generic_write_checks(iocb, from);
	if (ret > 0)
		ret = __generic_file_write_iter(iocb, from);
	inode_unlock(inode);
	if (ret > 0)
		ret = generic_write_sync(iocb, ret);
	return ret;
}

/* The first data at or after @pos, before @size, or -ENXIO. */
static loff_t htmpfs_seek_data(struct inode *inode, loff_t pos, loff_t size)
{
	pgoff_t index, next;
	loff_t r;

	while (pos < size) {
		r = mapping_seek_hole_data(inode->i_mapping, pos, size,
					   SEEK_DATA);
		if (r < 0)
			return r;
		index = r >> PAGE_SHIFT;
		next = htmpfs_holes_next_data(inode, index);
		if (next == index)
			return r;
		pos = (loff_t)next << PAGE_SHIFT;
	}
	return -ENXIO;
}

/* The first hole at or after @pos (@size, EOF, counts as one), or -ENXIO. */
static loff_t htmpfs_seek_hole(struct inode *inode, loff_t pos, loff_t size)
{
	loff_t r = mapping_seek_hole_data(inode->i_mapping, pos, size,
					  SEEK_HOLE);
	pgoff_t hole;

	if (r <= pos)
		return r;
	/* Pages held up to @r: is one of them a hole inside a huge folio? */
	hole = htmpfs_holes_next_hole(inode, pos >> PAGE_SHIFT,
				      (r - 1) >> PAGE_SHIFT);
	if (hole <= (r - 1) >> PAGE_SHIFT)
		r = max(pos, (loff_t)hole << PAGE_SHIFT);
	return r;
}

/*
 * SEEK_DATA/SEEK_HOLE: data is wherever the page cache holds a page, except
 * the pages of huge folios that their records (holes.c) know were never
 * written: those are holes, as they would be in small pages.
 */
static loff_t htmpfs_llseek(struct file *file, loff_t offset, int whence)
{
	struct inode *inode = file_inode(file);
	loff_t size;

	if (whence != SEEK_DATA && whence != SEEK_HOLE)
		return generic_file_llseek(file, offset, whence);
	if (offset < 0)
		return -ENXIO;

	inode_lock_shared(inode);
	size = i_size_read(inode);
	if (offset >= size)
		offset = -ENXIO;
	else if (whence == SEEK_DATA)
		offset = htmpfs_seek_data(inode, offset, size);
	else
		offset = htmpfs_seek_hole(inode, offset, size);
	if (offset >= 0)
		offset = vfs_setpos(file, offset, MAX_LFS_FILESIZE);
	inode_unlock_shared(inode);
	return offset;
}

const struct file_operations htmpfs_file_ops = {
	.open		= htmpfs_file_open,
	.release	= htmpfs_file_release,
	.llseek		= htmpfs_llseek,
	.read_iter	= htmpfs_read_iter,
	.write_iter	= htmpfs_write_iter,
	.fallocate	= htmpfs_fallocate,
	.unlocked_ioctl	= htmpfs_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= htmpfs_mmap,
	.get_unmapped_area = thp_get_unmapped_area,
	.fsync		= noop_fsync,
	.splice_read	= copy_splice_read,
	.splice_write	= iter_file_splice_write,
};

const struct inode_operations htmpfs_file_inode_ops = {
	.setattr	= htmpfs_setattr,
	.getattr	= htmpfs_getattr,
	.listxattr	= htmpfs_listxattr,
	.set_acl	= simple_set_acl,
	.fileattr_get	= htmpfs_fileattr_get,
	.fileattr_set	= htmpfs_fileattr_set,
};
