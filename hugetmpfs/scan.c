// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs collapse thread: one kernel thread for the module that rebuilds
 * huge folios (collapse.c) in files that got small pages where their policy
 * wants huge ones. It sleeps until there is work: files are queued when a
 * huge folio was wanted but a small one had to do (no huge page, the range
 * partly in use, no space), when a remount lets a mount have huge folios it
 * did not have, when huge_override stops denying them, and when a file's own
 * policy is set to one that wants them.
 * A queued file is scanned from its start, range by range, within a budget
 * of pages per pass (pages_to_scan) and a pause between passes
 * (scan_sleep_ms), both module-wide; each mount says whether the thread
 * works on it, how many holes a range may have, and how hard to try for a
 * huge page. Where the policy leaves it to the mapping (advise, and
 * within_size beyond EOF), a file counts as wanting huge folios while it is
 * mapped, once a mapping that asked for them (MADV_HUGEPAGE) faulted on a
 * small folio; that fault queues it.
 *
 * Splits by hole punch and by the hole shrinker do not queue a file: their
 * holes were freed on purpose, and a collapse would fill them again. The
 * next write into such a range, if it has to take a small page, does.
 *
 * Lifetimes: the queue holds no reference. The thread takes one (igrab())
 * while it works on a file, and counts it on the file's mount; eviction
 * takes a file off the queue; umount stops queueing on its mount, takes its
 * files off, and waits until the thread holds none of them.
 */
#include <linux/mm.h>
#include <linux/freezer.h>
#include <linux/huge_mm.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/pagemap.h>
#include <linux/swap.h>
#include <linux/wait.h>

#include "internal.h"

static DEFINE_SPINLOCK(htmpfs_scan_lock);	/* the queue, scan_* of mounts */
static LIST_HEAD(htmpfs_scan_list);
static DECLARE_WAIT_QUEUE_HEAD(htmpfs_scan_wait);	/* the thread's */
static DECLARE_WAIT_QUEUE_HEAD(htmpfs_scan_idle);	/* umount's */
static struct task_struct *htmpfs_scan_task;
static unsigned long htmpfs_scan_passes;	/* the thread's own */
/* A tunable changed: cut the pause short, so the new value counts now. */
static bool htmpfs_scan_kick;

static void htmpfs_scan_wake(void)
{
	WRITE_ONCE(htmpfs_scan_kick, true);
	wake_up(&htmpfs_scan_wait);
}

static bool htmpfs_scan_on = true;

static int htmpfs_scan_set_on(const char *val, const struct kernel_param *kp)
{
	int err = param_set_bool(val, kp);

	if (err)
		pr_warn("hugetmpfs: collapse_thread must be Y or N\n");
	else
		htmpfs_scan_wake();
	return err;
}

static const struct kernel_param_ops htmpfs_scan_on_ops = {
	.set = htmpfs_scan_set_on,
	.get = param_get_bool,
};

module_param_cb(collapse_thread, &htmpfs_scan_on_ops, &htmpfs_scan_on, 0644);
MODULE_PARM_DESC(collapse_thread, "the collapse thread works (Y) or only sleeps (N)");

static unsigned int htmpfs_scan_sleep_ms = 1000;
static unsigned int htmpfs_scan_pages = 64 * HPAGE_PMD_NR;

static int htmpfs_scan_set_uint(const char *val, const struct kernel_param *kp,
				unsigned int min, unsigned int max)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v < min || v > max) {
		pr_warn("hugetmpfs: %s must be %u to %u\n", kp->name, min, max);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	/* A shorter pause or a bigger budget: take it now. */
	htmpfs_scan_wake();
	return 0;
}

static int htmpfs_scan_set_sleep(const char *val, const struct kernel_param *kp)
{
	return htmpfs_scan_set_uint(val, kp, 0, 3600 * 1000);
}

static int htmpfs_scan_set_pages(const char *val, const struct kernel_param *kp)
{
	return htmpfs_scan_set_uint(val, kp, HPAGE_PMD_NR, 1U << 30);
}

static const struct kernel_param_ops htmpfs_scan_sleep_ops = {
	.set = htmpfs_scan_set_sleep,
	.get = param_get_uint,
};

static const struct kernel_param_ops htmpfs_scan_pages_ops = {
	.set = htmpfs_scan_set_pages,
	.get = param_get_uint,
};

module_param_cb(collapse_scan_sleep_ms, &htmpfs_scan_sleep_ops,
		&htmpfs_scan_sleep_ms, 0644);
MODULE_PARM_DESC(collapse_scan_sleep_ms, "pause of the collapse thread between passes (0 to 3600000 ms)");
module_param_cb(collapse_pages_to_scan, &htmpfs_scan_pages_ops,
		&htmpfs_scan_pages, 0644);
MODULE_PARM_DESC(collapse_pages_to_scan, "pages the collapse thread looks at per pass (512 to 2^30)");

/**
 * htmpfs_scan_queue - have the collapse thread look at a file
 * @inode: the file
 *
 * Cheap and safe from any context that may take a spinlock: does nothing if
 * the file is queued already or its mount does not want the thread.
 */
void htmpfs_scan_queue(struct inode *inode)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(inode->i_sb);
	struct htmpfs_inode_info *info = HTMPFS_I(inode);
	bool wake = false;

	if (!S_ISREG(inode->i_mode) || !READ_ONCE(sbi->collapse_enabled) ||
	    !list_empty_careful(&info->scan_entry))
		return;
	spin_lock(&htmpfs_scan_lock);
	if (list_empty(&info->scan_entry) && !sbi->scan_stopping) {
		info->scan_next = 0;
		info->scan_pass = 0;
		info->scan_missed = false;
		info->scan_retries = 0;
		list_add_tail(&info->scan_entry, &htmpfs_scan_list);
		wake = true;
	}
	spin_unlock(&htmpfs_scan_lock);
	if (wake)
		wake_up(&htmpfs_scan_wait);
}

/**
 * htmpfs_scan_queue_sb - have the collapse thread look at a mount's files
 * @sb: the mount, whose policy now lets its files have huge folios
 */
void htmpfs_scan_queue_sb(struct super_block *sb)
{
	struct inode *inode;

	spin_lock(&sb->s_inode_list_lock);
	list_for_each_entry(inode, &sb->s_inodes, i_sb_list)
		if (READ_ONCE(inode->i_mapping->nrpages))
			htmpfs_scan_queue(inode);
	spin_unlock(&sb->s_inode_list_lock);
}

/**
 * htmpfs_scan_forget - take a file being evicted off the queue
 * @inode: the file
 */
void htmpfs_scan_forget(struct inode *inode)
{
	struct htmpfs_inode_info *info = HTMPFS_I(inode);

	spin_lock(&htmpfs_scan_lock);
	list_del_init(&info->scan_entry);
	spin_unlock(&htmpfs_scan_lock);
}

static bool htmpfs_scan_idle_sb(struct htmpfs_sb_info *sbi)
{
	bool idle;

	spin_lock(&htmpfs_scan_lock);
	idle = !sbi->scan_busy;
	spin_unlock(&htmpfs_scan_lock);
	return idle;
}

/**
 * htmpfs_scan_unmount - a mount is going away: the thread lets go of it
 * @sbi: the mount
 *
 * Before its inodes are evicted: none may be held by the thread then.
 */
void htmpfs_scan_unmount(struct htmpfs_sb_info *sbi)
{
	struct htmpfs_inode_info *info, *next;

	spin_lock(&htmpfs_scan_lock);
	sbi->scan_stopping = true;
	list_for_each_entry_safe(info, next, &htmpfs_scan_list, scan_entry)
		if (info->vfs_inode.i_sb == sbi->sb)
			list_del_init(&info->scan_entry);
	spin_unlock(&htmpfs_scan_lock);
	wait_event(htmpfs_scan_idle, htmpfs_scan_idle_sb(sbi));
}

/*
 * The next queued file, off the queue, with a reference; NULL if none, or
 * if the next one was left for the next pass (what is queued behind it
 * waits for that pass too).
 */
static struct inode *htmpfs_scan_take(void)
{
	struct htmpfs_inode_info *info;
	struct inode *inode = NULL;

	spin_lock(&htmpfs_scan_lock);
	while (!inode && !list_empty(&htmpfs_scan_list)) {
		info = list_first_entry(&htmpfs_scan_list,
					struct htmpfs_inode_info, scan_entry);
		if (info->scan_pass == htmpfs_scan_passes)
			break;
		list_del_init(&info->scan_entry);
		inode = igrab(&info->vfs_inode);	/* NULL: being evicted */
		if (inode)
			HTMPFS_SB(inode->i_sb)->scan_busy++;
	}
	spin_unlock(&htmpfs_scan_lock);
	return inode;
}

/* Done with a file for now; back on the queue if @more is left. */
static void htmpfs_scan_put(struct inode *inode, bool more)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(inode->i_sb);
	struct htmpfs_inode_info *info = HTMPFS_I(inode);
	bool wake;

	spin_lock(&htmpfs_scan_lock);
	if (more && list_empty(&info->scan_entry) && !sbi->scan_stopping)
		list_add_tail(&info->scan_entry, &htmpfs_scan_list);
	spin_unlock(&htmpfs_scan_lock);
	/* May evict it; its mount waits for scan_busy before evicting. */
	iput(inode);
	spin_lock(&htmpfs_scan_lock);
	wake = !--sbi->scan_busy && sbi->scan_stopping;
	spin_unlock(&htmpfs_scan_lock);
	if (wake)
		wake_up_all(&htmpfs_scan_idle);
}

/*
 * Does the file's policy want the range at @index huge? Where it leaves
 * that to the mapping, a file faulted through one that asked for huge pages
 * (MADV_HUGEPAGE) counts, as long as it is mapped.
 */
static bool htmpfs_scan_wanted(struct inode *inode, pgoff_t index)
{
	enum htmpfs_huge huge;

	if (htmpfs_huge_allowed(inode, index, 0, NULL))
		return true;
	huge = htmpfs_file_huge(inode);
	return (huge == HTMPFS_HUGE_ADVISE || huge == HTMPFS_HUGE_WITHIN_SIZE) &&
	       READ_ONCE(HTMPFS_I(inode)->huge_advised) &&
	       mapping_mapped(inode->i_mapping);
}

/*
 * Collapse what the file's policy wants huge, from where the last pass
 * stopped, within @budget pages. Return true if the file is done.
 */
static bool htmpfs_scan_inode(struct inode *inode, long *budget)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(inode->i_sb);
	struct htmpfs_inode_info *info = HTMPFS_I(inode);
	pgoff_t index = info->scan_next, end;
	enum htmpfs_collapse ret;
	gfp_t gfp;

	end = round_down(i_size_read(inode) >> PAGE_SHIFT, HPAGE_PMD_NR);
	for (; index < end; index += HPAGE_PMD_NR) {
		if (*budget <= 0 || kthread_should_stop() ||
		    !READ_ONCE(htmpfs_scan_on)) {
			info->scan_next = index;
			return false;
		}
		if (!READ_ONCE(sbi->collapse_enabled))
			return true;
		if (htmpfs_huge_denied() || !htmpfs_scan_wanted(inode, index)) {
			*budget -= 1;
			continue;
		}
		gfp = READ_ONCE(sbi->collapse_defrag) ? GFP_TRANSHUGE :
							 GFP_TRANSHUGE_LIGHT;
		ret = htmpfs_collapse(inode, index,
				      READ_ONCE(sbi->collapse_max_holes),
				      gfp | __GFP_NOWARN);
		htmpfs_count(sbi, HTMPFS_STAT_COLLAPSE_SCANNED);
		*budget -= ret == HTMPFS_COLLAPSE_HUGE ||
			   ret == HTMPFS_COLLAPSE_EMPTY ? 1 : HPAGE_PMD_NR;
		/* No huge page now: try again after a pause, from here. */
		if (ret == HTMPFS_COLLAPSE_NOMEM) {
			info->scan_next = index;
			*budget = 0;
			return false;
		}
		/* Its cgroup is full: the next pass tries again; others now. */
		if (ret == HTMPFS_COLLAPSE_CHARGE) {
			info->scan_next = index;
			info->scan_pass = htmpfs_scan_passes;
			return false;
		}
		/* Held for a moment, or in swap: see the end of the sweep. */
		if (ret == HTMPFS_COLLAPSE_BUSY)
			info->scan_missed = true;
		cond_resched();
	}
	/*
	 * A range was busy (a fault or I/O held a page, a page was in swap):
	 * sweep the file again after the pause, a few times. A page held for
	 * good (a long-term pin) must not keep the thread busy for ever; a
	 * new write, fault or swap-in queues the file afresh.
	 */
	if (info->scan_missed && info->scan_retries < HTMPFS_SCAN_RETRIES) {
		info->scan_missed = false;
		info->scan_retries++;
		info->scan_next = 0;
		info->scan_pass = htmpfs_scan_passes;
		return false;
	}
	return true;
}

static bool htmpfs_scan_pending(void)
{
	bool pending;

	spin_lock(&htmpfs_scan_lock);
	pending = !list_empty(&htmpfs_scan_list);
	spin_unlock(&htmpfs_scan_lock);
	return pending && READ_ONCE(htmpfs_scan_on);
}

static void htmpfs_scan_pass(void)
{
	long budget = READ_ONCE(htmpfs_scan_pages);
	struct inode *inode;

	htmpfs_scan_passes++;
	/* Folios just written are held by the per-CPU LRU batches. */
	lru_add_drain_all();
	while (budget > 0 && !kthread_should_stop() &&
	       (inode = htmpfs_scan_take()))
		htmpfs_scan_put(inode, !htmpfs_scan_inode(inode, &budget));
}

static int htmpfs_scan_thread(void *unused)
{
	set_freezable();
	while (!kthread_should_stop()) {
		wait_event_freezable(htmpfs_scan_wait,
				     htmpfs_scan_pending() ||
				     kthread_should_stop());
		if (kthread_should_stop())
			break;
		WRITE_ONCE(htmpfs_scan_kick, false);
		htmpfs_scan_pass();
		wait_event_freezable_timeout(htmpfs_scan_wait,
					     kthread_should_stop() ||
					     READ_ONCE(htmpfs_scan_kick),
					     msecs_to_jiffies(READ_ONCE(htmpfs_scan_sleep_ms)));
	}
	return 0;
}

/**
 * htmpfs_scan_init - start the collapse thread, at module load
 *
 * Return: 0 or -errno.
 */
int htmpfs_scan_init(void)
{
	htmpfs_scan_task = kthread_run(htmpfs_scan_thread, NULL,
				       "khugetmpfsd");
	return PTR_ERR_OR_ZERO(htmpfs_scan_task);
}

/**
 * htmpfs_scan_exit - stop the collapse thread, at module unload
 *
 * No mount is left, so nothing is queued or held.
 */
void htmpfs_scan_exit(void)
{
	kthread_stop(htmpfs_scan_task);
}
