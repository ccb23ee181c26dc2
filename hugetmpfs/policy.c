// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs huge-folio policy: which file ranges get a PMD-sized folio. The
 * mount's huge= option decides, as tmpfs's does, unless the file has a
 * policy of its own (HUGETMPFS_IOC_SET_HUGE), under a module-wide override
 * for emergencies and tests. A leaf: allocation, faults, swap-in and the
 * collapse thread ask it, and it asks no other file of the module.
 */
#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include <uapi/linux/hugetmpfs.h>

#include "internal.h"

enum htmpfs_override {
	HTMPFS_OVERRIDE_NONE,	/* each mount's huge= decides */
	HTMPFS_OVERRIDE_DENY,	/* no new huge folios anywhere */
	HTMPFS_OVERRIDE_FORCE,	/* huge folios wherever a mapping allows */
};

static const char * const htmpfs_override_names[] = {
	[HTMPFS_OVERRIDE_NONE]	= "none",
	[HTMPFS_OVERRIDE_DENY]	= "deny",
	[HTMPFS_OVERRIDE_FORCE]	= "force",
};

static int htmpfs_override;

/**
 * htmpfs_override_set - set the module-wide override (huge_override=)
 * @val: "none", "deny" or "force"
 *
 * super.c owns the parameter: when huge folios are allowed again, what got
 * small pages meanwhile is queued for the collapse thread from there, so
 * that this file calls no other.
 *
 * Return: 1 if this lifted "deny", else 0; -EINVAL (with a log line) for
 * anything else.
 */
int htmpfs_override_set(const char *val)
{
	int i = sysfs_match_string(htmpfs_override_names, val);

	if (i < 0) {
		pr_warn("hugetmpfs: huge_override must be none, deny or force\n");
		return -EINVAL;
	}
	return xchg(&htmpfs_override, i) == HTMPFS_OVERRIDE_DENY &&
	       i != HTMPFS_OVERRIDE_DENY;
}

/**
 * htmpfs_override_show - the module-wide override, for sysfs
 * @buf: the sysfs page
 *
 * Return: the length written.
 */
int htmpfs_override_show(char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  htmpfs_override_names[READ_ONCE(htmpfs_override)]);
}

/**
 * htmpfs_huge_denied - is making huge folios off, module-wide?
 *
 * Return: true under huge_override=deny.
 */
bool htmpfs_huge_denied(void)
{
	return READ_ONCE(htmpfs_override) == HTMPFS_OVERRIDE_DENY;
}

/**
 * htmpfs_file_huge - the huge-folio policy in force for a file
 * @inode: the file
 *
 * Return: its own policy (HUGETMPFS_IOC_SET_HUGE), else its mount's huge=.
 */
enum htmpfs_huge htmpfs_file_huge(struct inode *inode)
{
	int huge = READ_ONCE(HTMPFS_I(inode)->huge);

	if (huge != HTMPFS_HUGE_INHERIT)
		return huge;
	return READ_ONCE(HTMPFS_SB(inode->i_sb)->opts.huge);
}

/* The user interface's HUGETMPFS_HUGE_* values, from ours */
static const u32 htmpfs_huge_uapi[] = {
	[HTMPFS_HUGE_NEVER]		= HUGETMPFS_HUGE_NEVER,
	[HTMPFS_HUGE_ALWAYS]		= HUGETMPFS_HUGE_ALWAYS,
	[HTMPFS_HUGE_WITHIN_SIZE]	= HUGETMPFS_HUGE_WITHIN_SIZE,
	[HTMPFS_HUGE_ADVISE]		= HUGETMPFS_HUGE_ADVISE,
};

/**
 * htmpfs_huge_from_user - a policy from the user interface's value
 * @val: HUGETMPFS_HUGE_*
 * @huge: where to put the policy, or HTMPFS_HUGE_INHERIT
 *
 * Return: false if @val is no policy.
 */
bool htmpfs_huge_from_user(u32 val, int *huge)
{
	int i;

	*huge = HTMPFS_HUGE_INHERIT;
	if (val == HUGETMPFS_HUGE_INHERIT)
		return true;
	for (i = 0; i < ARRAY_SIZE(htmpfs_huge_uapi); i++) {
		if (htmpfs_huge_uapi[i] == val) {
			*huge = i;
			return true;
		}
	}
	return false;
}

/**
 * htmpfs_huge_to_user - a policy as the user interface says it
 * @huge: policy, or HTMPFS_HUGE_INHERIT
 *
 * Return: the HUGETMPFS_HUGE_* value.
 */
u32 htmpfs_huge_to_user(int huge)
{
	return huge == HTMPFS_HUGE_INHERIT ? HUGETMPFS_HUGE_INHERIT :
					     htmpfs_huge_uapi[huge];
}

/*
 * A write that extends the file from the start of an empty 2 MiB range over
 * at least half of it: a file written sequentially in large writes, which
 * within_size would otherwise fill with small pages, since each range is
 * partly written before i_size covers it. At most half of the folio is left
 * unused, and only at the end of the file. The write must begin in the
 * range's first page: one that begins further in leaves a hole before it
 * (fstests' sparse-file probe writes 50 KiB at 1.6 MiB), and tmpfs gives
 * that small pages.
 */
static bool htmpfs_appending_half(struct inode *inode, pgoff_t index,
				  loff_t write_end)
{
	loff_t start = (loff_t)index << PAGE_SHIFT;

	return IS_ALIGNED(index, HPAGE_PMD_NR) &&
	       i_size_read(inode) <= start &&
	       write_end - start >= HPAGE_PMD_SIZE / 2;
}

/**
 * htmpfs_huge_allowed - may the folio covering @index be PMD-sized?
 * @inode: the file
 * @index: page index being written or faulted
 * @write_end: end of the write in bytes, or 0 for a fault
 * @vma: the mapping being faulted, or NULL for write(2)
 *
 * MADV_NOHUGEPAGE (and PR_SET_THP_DISABLE) always win; then the module
 * override; then the file's own policy if it has one, else the mount's
 * huge= policy, with mainline tmpfs's meaning:
 * within_size wants the whole 2 MiB range inside i_size or the write (or an
 * appending write over half of it, see htmpfs_appending_half()), and
 * otherwise falls back to advise, which wants MADV_HUGEPAGE.
 *
 * Return: true if a PMD-sized folio should be tried.
 */
bool htmpfs_huge_allowed(struct inode *inode, pgoff_t index, loff_t write_end,
			 struct vm_area_struct *vma)
{
	unsigned long vm_flags = vma ? vma->vm_flags : 0;
	loff_t size;

	if (vma && vma_thp_disabled(vma, vm_flags))
		return false;

	switch (READ_ONCE(htmpfs_override)) {
	case HTMPFS_OVERRIDE_DENY:
		return false;
	case HTMPFS_OVERRIDE_FORCE:
		return true;
	}

	switch (htmpfs_file_huge(inode)) {
	case HTMPFS_HUGE_NEVER:
	case HTMPFS_HUGE_INHERIT:	/* resolved by htmpfs_file_huge() */
		return false;
	case HTMPFS_HUGE_ALWAYS:
		return true;
	case HTMPFS_HUGE_WITHIN_SIZE:
		size = max(write_end, i_size_read(inode));
		if (DIV_ROUND_UP(size, PAGE_SIZE) >=
		    round_up(index + 1, HPAGE_PMD_NR))
			return true;
		if (htmpfs_appending_half(inode, index, write_end))
			return true;
		fallthrough;
	case HTMPFS_HUGE_ADVISE:
		return vm_flags & VM_HUGEPAGE;
	}
	return false;
}
