// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs statistics in sysfs: module-wide totals in /sys/fs/hugetmpfs/
 * and one directory per mount, /sys/fs/hugetmpfs/<major>:<minor>/ (the
 * st_dev of the mount, as "mountpoint -d" prints it).
 */
#include <linux/kobject.h>
#include <linux/sysfs.h>

#include "internal.h"

static atomic_long_t htmpfs_totals[HTMPFS_NR_STATS];
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

/**
 * htmpfs_count_add - add to a mount's counter and to the module's total
 * @sbi: the mount
 * @stat: which counter
 * @delta: how much (negative for a level that goes down)
 */
void htmpfs_count_add(struct htmpfs_sb_info *sbi, enum htmpfs_stat stat,
		      long delta)
{
	atomic_long_add(delta, &sbi->stats[stat]);
	atomic_long_add(delta, &htmpfs_totals[stat]);
}

/**
 * htmpfs_count_below - count one more of a level, unless it reached a limit
 * @sbi: the mount
 * @stat: which level
 * @limit: the most it may be, or 0 for no limit
 *
 * Return: true if counted, false if the limit was reached.
 */
bool htmpfs_count_below(struct htmpfs_sb_info *sbi, enum htmpfs_stat stat,
			long limit)
{
	if (limit && atomic_long_inc_return(&sbi->stats[stat]) > limit) {
		atomic_long_dec(&sbi->stats[stat]);
		return false;
	}
	if (!limit)
		atomic_long_inc(&sbi->stats[stat]);
	atomic_long_inc(&htmpfs_totals[stat]);
	return true;
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
	atomic_long_t *stats = htmpfs_totals;

	if (kobj != &htmpfs_kset->kobj)
		stats = container_of(kobj, struct htmpfs_sb_info, kobj)->stats;
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&stats[a->stat]));
}

#define HTMPFS_STAT_ATTR(_name, _stat)					\
	static struct htmpfs_stat_attr htmpfs_attr_##_name = {		\
		.attr = __ATTR(_name, 0444, htmpfs_stat_show, NULL),	\
		.stat = _stat,						\
	}

HTMPFS_STAT_ATTR(huge_alloc, HTMPFS_STAT_HUGE_ALLOC);
HTMPFS_STAT_ATTR(huge_fallback_nomem, HTMPFS_STAT_HUGE_FALLBACK_NOMEM);
HTMPFS_STAT_ATTR(huge_fallback_populated, HTMPFS_STAT_HUGE_FALLBACK_POPULATED);
HTMPFS_STAT_ATTR(inodes, HTMPFS_STAT_INODES);

static ssize_t huge_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct htmpfs_sb_info *sbi = container_of(kobj, struct htmpfs_sb_info,
						  kobj);

	return sysfs_emit(buf, "%s\n",
			  htmpfs_huge_name(READ_ONCE(sbi->opts.huge)));
}

static struct kobj_attribute htmpfs_attr_huge = __ATTR_RO(huge);

static struct attribute *htmpfs_total_attrs[] = {
	&htmpfs_attr_huge_alloc.attr.attr,
	&htmpfs_attr_huge_fallback_nomem.attr.attr,
	&htmpfs_attr_huge_fallback_populated.attr.attr,
	&htmpfs_attr_inodes.attr.attr,
	NULL
};

static const struct attribute_group htmpfs_total_group = {
	.attrs = htmpfs_total_attrs,
};

static struct attribute *htmpfs_mount_attrs[] = {
	&htmpfs_attr_huge.attr,
	&htmpfs_attr_huge_alloc.attr.attr,
	&htmpfs_attr_huge_fallback_nomem.attr.attr,
	&htmpfs_attr_huge_fallback_populated.attr.attr,
	&htmpfs_attr_inodes.attr.attr,
	NULL
};
ATTRIBUTE_GROUPS(htmpfs_mount);

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
	err = sysfs_create_group(&htmpfs_kset->kobj, &htmpfs_total_group);
	if (err)
		kset_unregister(htmpfs_kset);
	return err;
}

/**
 * htmpfs_sysfs_exit - remove /sys/fs/hugetmpfs at module unload
 */
void htmpfs_sysfs_exit(void)
{
	sysfs_remove_group(&htmpfs_kset->kobj, &htmpfs_total_group);
	kset_unregister(htmpfs_kset);
}
