// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs NUMA placement, as tmpfs has it: the mpol= mount option and
 * mbind() on a mapping of a file.
 *
 * Each regular file keeps a shared policy (the kernel's per-range policy
 * tree): it starts as a copy of the mount's mpol=, and mbind() on a shared
 * mapping sets it for the range mapped, for every process that maps the
 * file. Every folio of the file, huge or small, written or faulted, comes
 * from the policy at its index, or from the allocating task's policy where
 * the file has none. The interleave index is biased by the inode number, so
 * that small files do not all start on the same node.
 */
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "internal.h"

/**
 * htmpfs_mpol_parse - parse the value of mpol=
 * @value: as given, e.g. "interleave=static:0-1" (not changed)
 * @mpol: set to the policy, NULL for "default"
 *
 * Return: 0, -EINVAL for a policy or node list the kernel refuses (nodes
 * without memory included), or -ENOMEM.
 */
int htmpfs_mpol_parse(const char *value, struct mempolicy **mpol)
{
	/* mpol_parse_str() cuts the string up while it reads it. */
	char *s = kstrdup(value, GFP_KERNEL);
	int err;

	if (!s)
		return -ENOMEM;
	*mpol = NULL;
	err = mpol_parse_str(s, mpol) ? -EINVAL : 0;
	kfree(s);
	return err;
}

/* The mount's policy, with a reference; NULL for the default. */
static struct mempolicy *htmpfs_mpol_get_sb(struct htmpfs_sb_info *sbi)
{
	struct mempolicy *mpol;

	spin_lock(&sbi->mpol_lock);
	mpol = sbi->mpol;
	mpol_get(mpol);
	spin_unlock(&sbi->mpol_lock);
	return mpol;
}

/**
 * htmpfs_mpol_set_sb - give a mount its policy, at mount or remount
 * @sbi: the mount
 * @mpol: the new policy, whose reference the mount takes over, or NULL
 *
 * Files made from now on start with it; existing files keep theirs.
 */
void htmpfs_mpol_set_sb(struct htmpfs_sb_info *sbi, struct mempolicy *mpol)
{
	struct mempolicy *old;

	spin_lock(&sbi->mpol_lock);
	old = sbi->mpol;
	sbi->mpol = mpol;
	spin_unlock(&sbi->mpol_lock);
	mpol_put(old);
}

/**
 * htmpfs_mpol_show - print mpol= for /proc/mounts, unless it is the default
 * @m: the mount options' seq_file
 * @sbi: the mount
 */
void htmpfs_mpol_show(struct seq_file *m, struct htmpfs_sb_info *sbi)
{
	struct mempolicy *mpol = htmpfs_mpol_get_sb(sbi);
	char buf[64];

	if (mpol && mpol->mode != MPOL_DEFAULT) {
		mpol_to_str(buf, sizeof(buf), mpol);
		seq_printf(m, ",mpol=%s", buf);
	}
	mpol_put(mpol);
}

/**
 * htmpfs_mpol_inode_init - start an inode's policy
 * @inode: the inode
 * @file: a new regular file, which starts with the mount's policy; else
 *	the inode is just allocated and gets an empty one
 */
void htmpfs_mpol_inode_init(struct inode *inode, bool file)
{
	/* Just allocated, the inode has no i_sb yet. */
	struct mempolicy *mpol = file ?
		htmpfs_mpol_get_sb(HTMPFS_SB(inode->i_sb)) : NULL;

	/* Takes over the reference; a policy it cannot copy is the default. */
	mpol_shared_policy_init(&HTMPFS_I(inode)->policy, mpol);
}

/**
 * htmpfs_mpol_evict - free an inode's policy
 * @inode: the inode being evicted
 */
void htmpfs_mpol_evict(struct inode *inode)
{
	mpol_free_shared_policy(&HTMPFS_I(inode)->policy);
}

/**
 * htmpfs_mpol_at - the NUMA policy for a folio of a file
 * @inode: the file
 * @index: its first page, aligned to @order
 * @order: its order
 * @ilx: set to its interleave index (interleaving goes a folio at a time)
 *
 * Return: the file's policy there (mpol_cond_put() it), or the task's.
 */
struct mempolicy *htmpfs_mpol_at(struct inode *inode, pgoff_t index,
				 unsigned int order, pgoff_t *ilx)
{
	struct mempolicy *mpol;

	mpol = mpol_shared_policy_lookup(&HTMPFS_I(inode)->policy, index);
	*ilx = inode->i_ino + (index >> order);
	return mpol ?: get_task_policy(current);
}

/**
 * htmpfs_mpol_alloc - allocate a folio for a file where its policy says
 * @inode: the file
 * @gfp: allocation flags
 * @order: 0 or the order of a huge folio
 * @index: the folio's first page, aligned to @order
 *
 * Return: the folio, or NULL.
 */
struct folio *htmpfs_mpol_alloc(struct inode *inode, gfp_t gfp,
				unsigned int order, pgoff_t index)
{
	struct mempolicy *mpol;
	struct folio *folio;
	pgoff_t ilx;

	mpol = htmpfs_mpol_at(inode, index, order, &ilx);
	folio = folio_alloc_mpol(gfp, order, mpol, ilx, numa_node_id());
	mpol_cond_put(mpol);
	return folio;
}

/**
 * htmpfs_set_policy - mbind() on a shared mapping: the file's policy
 * @vma: the mapping
 * @mpol: the policy for the range it maps
 *
 * Return: 0 or -errno.
 */
int htmpfs_set_policy(struct vm_area_struct *vma, struct mempolicy *mpol)
{
	return mpol_set_shared_policy(&HTMPFS_I(file_inode(vma->vm_file))->policy,
				      vma, mpol);
}

/**
 * htmpfs_get_policy - the file's policy at an address of a mapping
 * @vma: the mapping
 * @addr: the address
 * @ilx: set to the interleave bias (the caller adds the offset)
 *
 * Return: the policy, with a reference, or NULL for the task's.
 */
struct mempolicy *htmpfs_get_policy(struct vm_area_struct *vma,
				    unsigned long addr, pgoff_t *ilx)
{
	struct inode *inode = file_inode(vma->vm_file);
	pgoff_t index = vma->vm_pgoff + ((addr - vma->vm_start) >> PAGE_SHIFT);

	*ilx = inode->i_ino;
	return mpol_shared_policy_lookup(&HTMPFS_I(inode)->policy, index);
}
