/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hugetmpfs tracepoints, on the slow paths: making a huge folio (or failing
 * to), making a large one instead, splitting one, each pass of the hole
 * shrinker, and each collapse of a range (or what stopped it). Enable with
 *   echo 1 > /sys/kernel/tracing/events/hugetmpfs/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hugetmpfs

#if !defined(_HUGETMPFS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _HUGETMPFS_TRACE_H

#include <linux/fs.h>
#include <linux/tracepoint.h>

#include "internal.h"

TRACE_EVENT(hugetmpfs_huge_alloc,
	    TP_PROTO(struct inode *inode, pgoff_t index, long err),
	    TP_ARGS(inode, index, err),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(pgoff_t, index)
			     __field(long, err)),
	    TP_fast_assign(__entry->dev = inode->i_sb->s_dev;
			   __entry->ino = inode->i_ino;
			   __entry->index = index;
			   __entry->err = err;),
	    TP_printk("dev %d:%d ino %lu index %lu %s",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      __entry->index,
		      __print_symbolic(__entry->err,
				       { 0, "allocated" },
				       { -EEXIST, "fallback: range populated" },
				       { -ENOSPC, "fallback: size= reached" },
				       { -ENOMEM, "fallback: no huge page" }))
);

TRACE_EVENT(hugetmpfs_large_alloc,
	    TP_PROTO(struct inode *inode, pgoff_t index, int order),
	    TP_ARGS(inode, index, order),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(pgoff_t, index)
			     __field(int, order)),
	    TP_fast_assign(__entry->dev = inode->i_sb->s_dev;
			   __entry->ino = inode->i_ino;
			   __entry->index = index;
			   __entry->order = order;),
	    TP_printk("dev %d:%d ino %lu index %lu %lu kB",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      __entry->index, (PAGE_SIZE >> 10) << __entry->order)
);

TRACE_EVENT(hugetmpfs_split,
	    TP_PROTO(struct inode *inode, pgoff_t index, int err),
	    TP_ARGS(inode, index, err),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(pgoff_t, index)
			     __field(int, err)),
	    TP_fast_assign(__entry->dev = inode->i_sb->s_dev;
			   __entry->ino = inode->i_ino;
			   __entry->index = index;
			   __entry->err = err;),
	    TP_printk("dev %d:%d ino %lu index %lu err %d",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      __entry->index, __entry->err)
);

/* A large folio split so that reclaim can write it to swap */
TRACE_EVENT(hugetmpfs_swap_split,
	    TP_PROTO(struct inode *inode, pgoff_t index, unsigned int order,
		     int err),
	    TP_ARGS(inode, index, order, err),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(pgoff_t, index)
			     __field(unsigned int, order)
			     __field(int, err)),
	    TP_fast_assign(__entry->dev = inode->i_sb->s_dev;
			   __entry->ino = inode->i_ino;
			   __entry->index = index;
			   __entry->order = order;
			   __entry->err = err;),
	    TP_printk("dev %d:%d ino %lu index %lu order %u err %d",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      __entry->index, __entry->order, __entry->err)
);

/* A large folio written to swap whole, or back from the swap cache whole */
TRACE_EVENT(hugetmpfs_swap_whole,
	    TP_PROTO(struct inode *inode, pgoff_t index, unsigned int order,
		     swp_entry_t swap, bool out),
	    TP_ARGS(inode, index, order, swap, out),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(pgoff_t, index)
			     __field(unsigned int, order)
			     __field(unsigned long, swap)
			     __field(bool, out)),
	    TP_fast_assign(__entry->dev = inode->i_sb->s_dev;
			   __entry->ino = inode->i_ino;
			   __entry->index = index;
			   __entry->order = order;
			   __entry->swap = swap.val;
			   __entry->out = out;),
	    TP_printk("dev %d:%d ino %lu index %lu order %u swap %#lx %s",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      __entry->index, __entry->order, __entry->swap,
		      __entry->out ? "out" : "in")
);

TRACE_EVENT(hugetmpfs_holes_shrink,
	    TP_PROTO(struct super_block *sb, long asked, long records,
		     long freed, long moved, long blocks, long skipped),
	    TP_ARGS(sb, asked, records, freed, moved, blocks, skipped),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(long, asked)
			     __field(long, records)
			     __field(long, freed)
			     __field(long, moved)
			     __field(long, blocks)
			     __field(long, skipped)),
	    TP_fast_assign(__entry->dev = sb->s_dev;
			   __entry->asked = asked;
			   __entry->records = records;
			   __entry->freed = freed;
			   __entry->moved = moved;
			   __entry->blocks = blocks;
			   __entry->skipped = skipped;),
	    TP_printk("dev %d:%d asked %ld folios %ld holes freed %ld pages moved %ld blocks returned %ld skipped %ld",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->asked,
		      __entry->records, __entry->freed, __entry->moved,
		      __entry->blocks, __entry->skipped)
);

TRACE_DEFINE_ENUM(HTMPFS_COLLAPSED);
TRACE_DEFINE_ENUM(HTMPFS_COLLAPSE_HUGE);
TRACE_DEFINE_ENUM(HTMPFS_COLLAPSE_EMPTY);
TRACE_DEFINE_ENUM(HTMPFS_COLLAPSE_SPARSE);
TRACE_DEFINE_ENUM(HTMPFS_COLLAPSE_BUSY);
TRACE_DEFINE_ENUM(HTMPFS_COLLAPSE_NOMEM);
TRACE_DEFINE_ENUM(HTMPFS_COLLAPSE_NOSPACE);
TRACE_DEFINE_ENUM(HTMPFS_COLLAPSE_CHARGE);

TRACE_EVENT(hugetmpfs_collapse,
	    TP_PROTO(struct inode *inode, pgoff_t index, int result),
	    TP_ARGS(inode, index, result),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(pgoff_t, index)
			     __field(int, result)),
	    TP_fast_assign(__entry->dev = inode->i_sb->s_dev;
			   __entry->ino = inode->i_ino;
			   __entry->index = index;
			   __entry->result = result;),
	    TP_printk("dev %d:%d ino %lu index %lu %s",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      __entry->index,
		      __print_symbolic(__entry->result,
				       { HTMPFS_COLLAPSED, "collapsed" },
				       { HTMPFS_COLLAPSE_HUGE, "already huge" },
				       { HTMPFS_COLLAPSE_EMPTY, "empty" },
				       { HTMPFS_COLLAPSE_SPARSE, "too many holes" },
				       { HTMPFS_COLLAPSE_BUSY, "busy" },
				       { HTMPFS_COLLAPSE_NOMEM, "no huge page" },
				       { HTMPFS_COLLAPSE_NOSPACE, "no space" },
				       { HTMPFS_COLLAPSE_CHARGE, "cgroup full" }))
);

#endif /* _HUGETMPFS_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
