// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs statistics in sysfs: module-wide totals in /sys/fs/hugetmpfs/
 * and one directory per mount, /sys/fs/hugetmpfs/<major>:<minor>/ (the
 * st_dev of the mount, as "mountpoint -d" prints it).
 */
#include <linux/kobject.h>
#include <linux/pagemap.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
#include <linux/writeback.h>
#include <uapi/linux/hugetmpfs.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

DEFINE_PER_CPU(struct htmpfs_events, htmpfs_event_totals);
static struct kset *htmpfs_kset;

static const char * const htmpfs_huge_names[] = {
	[HTMPFS_HUGE_NEVER]		= "never",
	[HTMPFS_HUGE_ALWAYS]		= "always",
	[HTMPFS_HUGE_WITHIN_SIZE]	= "within_size",
	[HTMPFS_HUGE_ADVISE]		= "advise",
};

/**
 * htmpfs_huge_name - the huge= option's name for a policy
 * @huge: policy
 *
 * Return: "never", "always", "within_size" or "advise".
 */
const char *htmpfs_huge_name(enum htmpfs_huge huge)
{
	return htmpfs_huge_names[huge];
}

static long htmpfs_events_sum(struct htmpfs_events __percpu *events,
			      enum htmpfs_stat stat)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(events, cpu)->n[stat];
	return sum;
}

/* The mount a statistics directory is for, or NULL for the totals */
static struct htmpfs_sb_info *htmpfs_kobj_sbi(struct kobject *kobj)
{
	if (kobj == &htmpfs_kset->kobj)
		return NULL;
	return container_of(kobj, struct htmpfs_sb_info, kobj);
}

/**
 * htmpfs_usage_inode - add up how a file's page cache is held
 * @inode: the file
 * @u: where its folios are counted, by kind
 */
void htmpfs_usage_inode(struct inode *inode, struct htmpfs_usage *u)
{
	XA_STATE(xas, &inode->i_mapping->i_pages, 0);
	struct folio *folio;

	rcu_read_lock();
	xas_for_each(&xas, folio, ULONG_MAX) {
		if (xas_retry(&xas, folio) || xa_is_value(folio))
			continue;
		/* Pinned, so its order and mapcount mean something. */
		if (!folio_try_get(folio)) {
			xas_reset(&xas);
			continue;
		}
		if (unlikely(folio != xas_reload(&xas))) {
			folio_put(folio);
			xas_reset(&xas);
			continue;
		}
		if (folio_test_pmd_mappable(folio)) {
			u->huge++;
			if (folio_entire_mapcount(folio))
				u->pmd_mapped++;
		} else if (folio_test_large(folio)) {
			u->large++;
			u->large_pages += folio_nr_pages(folio);
		} else {
			u->small++;
		}
		folio_put(folio);
		if (need_resched()) {
			xas_pause(&xas);
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
		}
	}
	rcu_read_unlock();
}

static bool htmpfs_usage_want(struct inode *inode)
{
	return READ_ONCE(inode->i_mapping->nrpages);
}

static int htmpfs_usage_one(struct inode *inode, void *u)
{
	htmpfs_usage_inode(inode, u);
	return 0;
}

static void htmpfs_usage(struct super_block *sb, struct htmpfs_usage *u)
{
	htmpfs_walk_inodes(sb, htmpfs_usage_want, htmpfs_usage_one, u);
}

struct htmpfs_stat_attr {
	struct kobj_attribute attr;
	enum htmpfs_stat stat;
};

static ssize_t htmpfs_stat_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct htmpfs_stat_attr *a = container_of(attr, struct htmpfs_stat_attr,
						  attr);
	struct htmpfs_sb_info *sbi = htmpfs_kobj_sbi(kobj);

	return sysfs_emit(buf, "%ld\n",
			  htmpfs_events_sum(sbi ? sbi->events :
					    &htmpfs_event_totals, a->stat));
}

#define HTMPFS_STAT_ATTR(_name, _stat)					\
	static struct htmpfs_stat_attr htmpfs_attr_##_name = {		\
		.attr = __ATTR(_name, 0444, htmpfs_stat_show, NULL),	\
		.stat = _stat,						\
	}

HTMPFS_STAT_ATTR(huge_alloc, HTMPFS_STAT_HUGE_ALLOC);
HTMPFS_STAT_ATTR(huge_fallback_nomem, HTMPFS_STAT_HUGE_FALLBACK_NOMEM);
HTMPFS_STAT_ATTR(huge_fallback_populated, HTMPFS_STAT_HUGE_FALLBACK_POPULATED);
HTMPFS_STAT_ATTR(huge_fallback_nospace, HTMPFS_STAT_HUGE_FALLBACK_NOSPACE);
HTMPFS_STAT_ATTR(splits, HTMPFS_STAT_SPLITS);
HTMPFS_STAT_ATTR(holes_freed, HTMPFS_STAT_HOLES_FREED);
HTMPFS_STAT_ATTR(holes_moved, HTMPFS_STAT_HOLES_MOVED);
HTMPFS_STAT_ATTR(holes_blocks_returned, HTMPFS_STAT_HOLES_BLOCKS_RETURNED);
HTMPFS_STAT_ATTR(holes_split, HTMPFS_STAT_HOLES_SPLIT);
HTMPFS_STAT_ATTR(holes_skipped_mapped, HTMPFS_STAT_HOLES_SKIPPED_MAPPED);
HTMPFS_STAT_ATTR(holes_skipped_busy, HTMPFS_STAT_HOLES_SKIPPED_BUSY);
HTMPFS_STAT_ATTR(collapse_scanned, HTMPFS_STAT_COLLAPSE_SCANNED);
HTMPFS_STAT_ATTR(collapsed, HTMPFS_STAT_COLLAPSED);
HTMPFS_STAT_ATTR(collapse_fail_sparse, HTMPFS_STAT_COLLAPSE_SPARSE);
HTMPFS_STAT_ATTR(collapse_fail_busy, HTMPFS_STAT_COLLAPSE_BUSY);
HTMPFS_STAT_ATTR(collapse_fail_nomem, HTMPFS_STAT_COLLAPSE_NOMEM);
HTMPFS_STAT_ATTR(collapse_fail_nospace, HTMPFS_STAT_COLLAPSE_NOSPACE);
HTMPFS_STAT_ATTR(collapse_fail_charge, HTMPFS_STAT_COLLAPSE_CHARGE);
HTMPFS_STAT_ATTR(swap_out, HTMPFS_STAT_SWAP_OUT);
HTMPFS_STAT_ATTR(swap_in, HTMPFS_STAT_SWAP_IN);
HTMPFS_STAT_ATTR(swap_splits, HTMPFS_STAT_SWAP_SPLITS);
HTMPFS_STAT_ATTR(swap_out_whole, HTMPFS_STAT_SWAP_OUT_WHOLE);
HTMPFS_STAT_ATTR(swap_in_whole, HTMPFS_STAT_SWAP_IN_WHOLE);
/* Large folios made, per size: mainline's hugepages-<size>kB names */
#define HTMPFS_LARGE_ATTR(_kb, _order)					\
	static struct htmpfs_stat_attr htmpfs_attr_large_##_kb = {	\
		.attr = {						\
			.attr = { .name = "large_alloc_" #_kb "kB",	\
				  .mode = 0444 },			\
			.show = htmpfs_stat_show,			\
		},							\
		.stat = HTMPFS_STAT_LARGE_ALLOC + (_order) -		\
			HTMPFS_LARGE_MIN_ORDER,				\
	}
HTMPFS_LARGE_ATTR(16, 2);
HTMPFS_LARGE_ATTR(32, 3);
HTMPFS_LARGE_ATTR(64, 4);
HTMPFS_LARGE_ATTR(128, 5);
HTMPFS_LARGE_ATTR(256, 6);
HTMPFS_LARGE_ATTR(512, 7);
HTMPFS_LARGE_ATTR(1024, 8);
static_assert(HTMPFS_LARGE_MIN_ORDER == 2 && HTMPFS_LARGE_MAX_ORDER == 8,
	      "one large_alloc_<size>kB counter per large order");

/* A level of one mount, or the module's total */
static long htmpfs_level_show(struct kobject *kobj, enum htmpfs_level level)
{
	struct htmpfs_sb_info *sbi = htmpfs_kobj_sbi(kobj);

	return sbi ? htmpfs_level(sbi, level) : htmpfs_level_total(level);
}

static ssize_t inodes_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%ld\n",
			  htmpfs_level_show(kobj, HTMPFS_LEVEL_INODES));
}

static struct kobj_attribute htmpfs_attr_inodes = __ATTR_RO(inodes);

/* A level in pages, shown in bytes */
#define HTMPFS_LEVEL_BYTES_ATTR(_name, _level)				\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%ld\n",					\
			  htmpfs_level_show(kobj, _level) << PAGE_SHIFT);	\
}									\
static struct kobj_attribute htmpfs_attr_##_name = __ATTR_RO(_name)

HTMPFS_LEVEL_BYTES_ATTR(used_bytes, HTMPFS_LEVEL_BLOCKS);
HTMPFS_LEVEL_BYTES_ATTR(free_hole_bytes, HTMPFS_LEVEL_HOLES);
HTMPFS_LEVEL_BYTES_ATTR(swap_bytes, HTMPFS_LEVEL_SWAPPED);

static ssize_t holes_migrate_max_show(struct kobject *kobj,
				      struct kobj_attribute *attr, char *buf)
{
	struct htmpfs_sb_info *sbi = container_of(kobj, struct htmpfs_sb_info,
						  kobj);

	return sysfs_emit(buf, "%u\n", READ_ONCE(sbi->holes_migrate_max));
}

static ssize_t holes_migrate_max_store(struct kobject *kobj,
				       struct kobj_attribute *attr,
				       const char *buf, size_t len)
{
	struct htmpfs_sb_info *sbi = container_of(kobj, struct htmpfs_sb_info,
						  kobj);
	unsigned int val;

	if (kstrtouint(buf, 0, &val) || val > HPAGE_PMD_NR) {
		pr_warn("hugetmpfs: holes_migrate_max must be 0 to %d\n",
			HPAGE_PMD_NR);
		return -EINVAL;
	}
	WRITE_ONCE(sbi->holes_migrate_max, val);
	return len;
}

static struct kobj_attribute htmpfs_attr_holes_migrate_max =
	__ATTR_RW(holes_migrate_max);

/* A per-mount tunable: an unsigned int, 0 to @max */
struct htmpfs_tunable_attr {
	struct kobj_attribute attr;
	size_t offset;		/* in struct htmpfs_sb_info */
	unsigned int max;
};

static unsigned int *htmpfs_tunable(struct kobject *kobj,
				    struct kobj_attribute *attr,
				    unsigned int *max)
{
	struct htmpfs_tunable_attr *t = container_of(attr,
					struct htmpfs_tunable_attr, attr);
	struct htmpfs_sb_info *sbi = container_of(kobj, struct htmpfs_sb_info,
						  kobj);

	*max = t->max;
	return (unsigned int *)((char *)sbi + t->offset);
}

static ssize_t htmpfs_tunable_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	unsigned int max;

	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(*htmpfs_tunable(kobj, attr, &max)));
}

static ssize_t htmpfs_tunable_store(struct kobject *kobj,
				    struct kobj_attribute *attr,
				    const char *buf, size_t len)
{
	unsigned int max, val, *field = htmpfs_tunable(kobj, attr, &max);

	if (kstrtouint(buf, 0, &val) || val > max) {
		pr_warn("hugetmpfs: %s must be 0 to %u\n", attr->attr.name, max);
		return -EINVAL;
	}
	WRITE_ONCE(*field, val);
	/* On again, or less picky: what waited may go now. */
	htmpfs_scan_queue_sb(container_of(kobj, struct htmpfs_sb_info,
					  kobj)->sb);
	return len;
}

#define HTMPFS_TUNABLE_ATTR(_name, _field, _max)			\
	static struct htmpfs_tunable_attr htmpfs_attr_##_name = {	\
		.attr = __ATTR(_name, 0644, htmpfs_tunable_show,	\
			       htmpfs_tunable_store),			\
		.offset = offsetof(struct htmpfs_sb_info, _field),	\
		.max = _max,						\
	}

HTMPFS_TUNABLE_ATTR(collapse_enabled, collapse_enabled, 1);
HTMPFS_TUNABLE_ATTR(collapse_max_holes, collapse_max_holes, HPAGE_PMD_NR - 1);
HTMPFS_TUNABLE_ATTR(collapse_defrag, collapse_defrag, 1);
HTMPFS_TUNABLE_ATTR(large_fallback, large_fallback, 1);

/*
 * Levels that only a walk of the page cache can tell: the kernel frees and
 * splits folios (truncate, hole punch, migration) without telling us.
 */
#define HTMPFS_USAGE_ATTR(_name, _expr)					\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	struct htmpfs_sb_info *sbi = container_of(kobj,			\
					struct htmpfs_sb_info, kobj);	\
	struct htmpfs_usage u = {};					\
									\
	htmpfs_usage(sbi->sb, &u);					\
	return sysfs_emit(buf, "%ld\n", _expr);			\
}									\
static struct kobj_attribute htmpfs_attr_##_name = __ATTR_RO(_name)

HTMPFS_USAGE_ATTR(huge_folios, u.huge);
HTMPFS_USAGE_ATTR(pmd_mapped, u.pmd_mapped);
HTMPFS_USAGE_ATTR(large_folios, u.large);

static ssize_t huge_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct htmpfs_sb_info *sbi = container_of(kobj, struct htmpfs_sb_info,
						  kobj);

	return sysfs_emit(buf, "%s\n",
			  htmpfs_huge_name(READ_ONCE(sbi->opts.huge)));
}

static struct kobj_attribute htmpfs_attr_huge = __ATTR_RO(huge);

/* Counters kept per mount and in total */
static struct attribute *htmpfs_counter_attrs[] = {
	&htmpfs_attr_huge_alloc.attr.attr,
	&htmpfs_attr_huge_fallback_nomem.attr.attr,
	&htmpfs_attr_huge_fallback_populated.attr.attr,
	&htmpfs_attr_huge_fallback_nospace.attr.attr,
	&htmpfs_attr_splits.attr.attr,
	&htmpfs_attr_holes_freed.attr.attr,
	&htmpfs_attr_holes_moved.attr.attr,
	&htmpfs_attr_holes_blocks_returned.attr.attr,
	&htmpfs_attr_holes_split.attr.attr,
	&htmpfs_attr_holes_skipped_mapped.attr.attr,
	&htmpfs_attr_holes_skipped_busy.attr.attr,
	&htmpfs_attr_collapse_scanned.attr.attr,
	&htmpfs_attr_collapsed.attr.attr,
	&htmpfs_attr_collapse_fail_sparse.attr.attr,
	&htmpfs_attr_collapse_fail_busy.attr.attr,
	&htmpfs_attr_collapse_fail_nomem.attr.attr,
	&htmpfs_attr_collapse_fail_nospace.attr.attr,
	&htmpfs_attr_collapse_fail_charge.attr.attr,
	&htmpfs_attr_swap_out.attr.attr,
	&htmpfs_attr_swap_in.attr.attr,
	&htmpfs_attr_swap_splits.attr.attr,
	&htmpfs_attr_swap_out_whole.attr.attr,
	&htmpfs_attr_swap_in_whole.attr.attr,
	&htmpfs_attr_large_16.attr.attr,
	&htmpfs_attr_large_32.attr.attr,
	&htmpfs_attr_large_64.attr.attr,
	&htmpfs_attr_large_128.attr.attr,
	&htmpfs_attr_large_256.attr.attr,
	&htmpfs_attr_large_512.attr.attr,
	&htmpfs_attr_large_1024.attr.attr,
	&htmpfs_attr_inodes.attr,
	&htmpfs_attr_used_bytes.attr,
	&htmpfs_attr_free_hole_bytes.attr,
	&htmpfs_attr_swap_bytes.attr,
	NULL
};

static const struct attribute_group htmpfs_counter_group = {
	.attrs = htmpfs_counter_attrs,
};

/* Only per mount */
static struct attribute *htmpfs_mount_attrs[] = {
	&htmpfs_attr_huge.attr,
	&htmpfs_attr_huge_folios.attr,
	&htmpfs_attr_pmd_mapped.attr,
	&htmpfs_attr_holes_migrate_max.attr,
	&htmpfs_attr_collapse_enabled.attr.attr,
	&htmpfs_attr_collapse_max_holes.attr.attr,
	&htmpfs_attr_collapse_defrag.attr.attr,
	&htmpfs_attr_large_fallback.attr.attr,
	&htmpfs_attr_large_folios.attr,
	NULL
};

static const struct attribute_group htmpfs_mount_group = {
	.attrs = htmpfs_mount_attrs,
};

static const struct attribute_group *htmpfs_mount_groups[] = {
	&htmpfs_counter_group,
	&htmpfs_mount_group,
	NULL
};

static void htmpfs_sb_kobj_release(struct kobject *kobj)
{
	struct htmpfs_sb_info *sbi = container_of(kobj, struct htmpfs_sb_info,
						  kobj);

	complete(&sbi->kobj_released);
}

static const struct kobj_type htmpfs_sb_ktype = {
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= htmpfs_mount_groups,
	.release	= htmpfs_sb_kobj_release,
};

/**
 * htmpfs_sysfs_add_sb - create a mount's statistics directory
 * @sb: the new superblock, whose s_fs_info is set
 *
 * Return: 0 or a negative errno.
 */
int htmpfs_sysfs_add_sb(struct super_block *sb)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(sb);
	int err;

	init_completion(&sbi->kobj_released);
	sbi->kobj.kset = htmpfs_kset;
	err = kobject_init_and_add(&sbi->kobj, &htmpfs_sb_ktype, NULL, "%u:%u",
				   MAJOR(sb->s_dev), MINOR(sb->s_dev));
	if (err) {
		kobject_put(&sbi->kobj);
		wait_for_completion(&sbi->kobj_released);
	}
	return err;
}

/**
 * htmpfs_sysfs_del_sb - remove a mount's statistics directory
 * @sbi: the mount; may be freed once this returns
 */
void htmpfs_sysfs_del_sb(struct htmpfs_sb_info *sbi)
{
	kobject_del(&sbi->kobj);
	kobject_put(&sbi->kobj);
	wait_for_completion(&sbi->kobj_released);
}

/**
 * htmpfs_sysfs_init - create /sys/fs/hugetmpfs at module load
 *
 * Return: 0 or a negative errno.
 */
int htmpfs_sysfs_init(void)
{
	int err;

	htmpfs_kset = kset_create_and_add(HTMPFS_NAME, NULL, fs_kobj);
	if (!htmpfs_kset)
		return -ENOMEM;
	err = sysfs_create_group(&htmpfs_kset->kobj, &htmpfs_counter_group);
	if (err)
		kset_unregister(htmpfs_kset);
	return err;
}

/**
 * htmpfs_sysfs_exit - remove /sys/fs/hugetmpfs at module unload
 */
void htmpfs_sysfs_exit(void)
{
	sysfs_remove_group(&htmpfs_kset->kobj, &htmpfs_counter_group);
	kset_unregister(htmpfs_kset);
}
