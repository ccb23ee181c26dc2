/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hugetmpfs hole records (holes.c), as the hole shrinker (shrink.c) sees
 * them: it reads records, and changes them only through holes.c.
 */
#ifndef _HUGETMPFS_HOLES_H
#define _HUGETMPFS_HOLES_H

#include <linux/huge_mm.h>
#include <linux/list.h>
#include <linux/xarray.h>

#include "internal.h"

/**
 * struct htmpfs_holes - what one huge folio holds
 * @lru: on the mount's holes_lru while the record has holes
 * @inode: the file
 * @memcg: the folio's memory cgroup, whose list @lru is on (referenced)
 * @nid: the folio's node, ditto
 * @gen: which record of its inode this is
 * @index: the folio's first page
 * @nr_used: pages holding data
 * @nr_holes: pages holding no data still in memory: all the others while
 *	the folio is whole; once split, those a sweep had to leave
 * @mapped_w: its file has been mapped shared and writable: holes must be
 *	read before they are freed
 * @used: which pages hold data
 * @gone: which hole pages were freed (once split): a write there makes a
 *	new page, it does not fill one of the @nr_holes
 */
struct htmpfs_holes {
	struct list_head lru;
	struct inode *inode;
	struct mem_cgroup *memcg;
	int nid;
	unsigned int gen;
	pgoff_t index;
	unsigned int nr_used;
	unsigned int nr_holes;
	bool mapped_w;
	DECLARE_BITMAP(used, HPAGE_PMD_NR);
	DECLARE_BITMAP(gone, HPAGE_PMD_NR);
};

bool htmpfs_holes_gen(struct inode *inode, pgoff_t index, unsigned int *gen);
int htmpfs_holes_settle(struct inode *inode, struct folio *folio,
			unsigned int gen);
void htmpfs_holes_swept(struct inode *inode, pgoff_t index, unsigned int gen,
			const unsigned long *held);
void htmpfs_holes_zeroed(struct inode *inode, pgoff_t index, unsigned int gen,
			 unsigned int first, unsigned int last);

#endif
