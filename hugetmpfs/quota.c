// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs quotas: usrquota and grpquota, kept in memory, as tmpfs has
 * them since 6.6.
 *
 * The kernel's quota code does the accounting and quotactl(2); a filesystem
 * without storage only has to keep what a dquot would otherwise write to a
 * quota file: the limits set on an id. They live in an xarray per quota
 * type, indexed by id, from the dquot's release until it is acquired again;
 * an id with no usage whose limits are the mount's defaults is forgotten.
 *
 * Space is charged where size= is (space.c), in pages, so a huge folio
 * charges its owner all it holds, 2 MiB, until the hole shrinker gives the
 * unused part back.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/quotaops.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include <uapi/linux/hugetmpfs.h>

#include "internal.h"

/* Past a soft limit, a week until it acts as a hard one, as on tmpfs */
#define HTMPFS_QUOTA_GRACE	(7 * 24 * 60 * 60)

/* The limits of one id, while no dquot holds them */
struct htmpfs_qlimits {
	qsize_t bhard, bsoft, ihard, isoft;
};

static struct xarray *htmpfs_quota_ids(struct super_block *sb, int type)
{
	return sb_dqinfo(sb, type)->dqi_priv;
}

/* The mount's default hard limits for @type: usrquota_*, grpquota_* */
static void htmpfs_quota_defaults(struct super_block *sb, int type,
				  qsize_t *bhard, qsize_t *ihard)
{
	const struct htmpfs_options *o = &HTMPFS_SB(sb)->opts;

	*bhard = type == USRQUOTA ? o->usr_bhard : o->grp_bhard;
	*ihard = type == USRQUOTA ? o->usr_ihard : o->grp_ihard;
}

static int htmpfs_quota_check_file(struct super_block *sb, int type)
{
	return 1;	/* there is no file: always "ours" */
}

static int htmpfs_quota_read_info(struct super_block *sb, int type)
{
	struct mem_dqinfo *info = sb_dqinfo(sb, type);
	struct xarray *ids = kmalloc(sizeof(*ids), GFP_NOFS);

	if (!ids)
		return -ENOMEM;
	xa_init(ids);
	info->dqi_priv = ids;
	info->dqi_max_spc_limit = HTMPFS_QUOTA_MAX;
	info->dqi_max_ino_limit = HTMPFS_QUOTA_MAX;
	info->dqi_bgrace = HTMPFS_QUOTA_GRACE;
	info->dqi_igrace = HTMPFS_QUOTA_GRACE;
	info->dqi_flags = 0;
	return 0;
}

static int htmpfs_quota_write_info(struct super_block *sb, int type)
{
	return 0;	/* nowhere to write it */
}

static int htmpfs_quota_free_info(struct super_block *sb, int type)
{
	struct xarray *ids = htmpfs_quota_ids(sb, type);
	struct htmpfs_qlimits *l;
	unsigned long id;

	sb_dqinfo(sb, type)->dqi_priv = NULL;
	xa_for_each(ids, id, l)
		kfree(l);
	xa_destroy(ids);
	kfree(ids);
	return 0;
}

static const struct quota_format_ops htmpfs_quota_format_ops = {
	.check_quota_file	= htmpfs_quota_check_file,
	.read_file_info		= htmpfs_quota_read_info,
	.write_file_info	= htmpfs_quota_write_info,
	.free_file_info		= htmpfs_quota_free_info,
};

static struct quota_format_type htmpfs_quota_format = {
	.qf_fmt_id	= HUGETMPFS_QFMT,
	.qf_ops		= &htmpfs_quota_format_ops,
	.qf_owner	= THIS_MODULE,
};

/*
 * A dquot comes into use: its limits from its id's entry, made now with
 * the mount's defaults if the id has none, so that letting it go needs no
 * memory.
 */
static int htmpfs_acquire_dquot(struct dquot *dquot)
{
	struct super_block *sb = dquot->dq_sb;
	struct quota_info *dqopt = sb_dqopt(sb);
	struct xarray *ids = htmpfs_quota_ids(sb, dquot->dq_id.type);
	qid_t id = from_kqid(&init_user_ns, dquot->dq_id);
	struct mem_dqblk *d = &dquot->dq_dqb;
	struct htmpfs_qlimits *l;
	int err = 0;

	mutex_lock(&dquot->dq_lock);
	/* Acquired by a racing dqget() meanwhile: its limits are current. */
	if (test_bit(DQ_ACTIVE_B, &dquot->dq_flags)) {
		mutex_unlock(&dquot->dq_lock);
		return 0;
	}
	down_write(&dqopt->dqio_sem);
	l = xa_load(ids, id);
	if (!l) {
		l = kzalloc(sizeof(*l), GFP_NOFS);
		err = l ? xa_err(xa_store(ids, id, l, GFP_NOFS)) : -ENOMEM;
		if (err) {
			kfree(l);
			goto out;
		}
		htmpfs_quota_defaults(sb, dquot->dq_id.type, &l->bhard,
				      &l->ihard);
	}
	spin_lock(&dquot->dq_dqb_lock);
	d->dqb_bhardlimit = l->bhard;
	d->dqb_bsoftlimit = l->bsoft;
	d->dqb_ihardlimit = l->ihard;
	d->dqb_isoftlimit = l->isoft;
	if (!l->bhard && !l->bsoft && !l->ihard && !l->isoft)
		set_bit(DQ_FAKE_B, &dquot->dq_flags);
	spin_unlock(&dquot->dq_dqb_lock);
	/* Filled before anyone sees it active. */
	smp_mb__before_atomic();
	set_bit(DQ_ACTIVE_B, &dquot->dq_flags);
out:
	up_write(&dqopt->dqio_sem);
	mutex_unlock(&dquot->dq_lock);
	return err;
}

/*
 * A dquot goes out of use: its entry keeps its limits, or goes if it is
 * what a new one would be anyway (no usage, the mount's limits).
 */
static int htmpfs_release_dquot(struct dquot *dquot)
{
	struct super_block *sb = dquot->dq_sb;
	struct quota_info *dqopt = sb_dqopt(sb);
	struct xarray *ids = htmpfs_quota_ids(sb, dquot->dq_id.type);
	qid_t id = from_kqid(&init_user_ns, dquot->dq_id);
	struct mem_dqblk *d = &dquot->dq_dqb;
	struct htmpfs_qlimits *l;
	qsize_t bhard, ihard;
	bool forget;

	mutex_lock(&dquot->dq_lock);
	/* Someone took it again meanwhile. */
	if (dquot_is_busy(dquot))
		goto out;
	htmpfs_quota_defaults(sb, dquot->dq_id.type, &bhard, &ihard);
	down_write(&dqopt->dqio_sem);
	l = xa_load(ids, id);
	if (WARN_ON_ONCE(!l))
		goto unlock;
	spin_lock(&dquot->dq_dqb_lock);
	forget = !d->dqb_curspace && !d->dqb_curinodes &&
		 !d->dqb_bsoftlimit && !d->dqb_isoftlimit &&
		 d->dqb_bhardlimit == bhard && d->dqb_ihardlimit == ihard;
	l->bhard = d->dqb_bhardlimit;
	l->bsoft = d->dqb_bsoftlimit;
	l->ihard = d->dqb_ihardlimit;
	l->isoft = d->dqb_isoftlimit;
	spin_unlock(&dquot->dq_dqb_lock);
	if (forget)
		kfree(xa_erase(ids, id));
unlock:
	clear_bit(DQ_ACTIVE_B, &dquot->dq_flags);
	up_write(&dqopt->dqio_sem);
out:
	mutex_unlock(&dquot->dq_lock);
	return 0;
}

/* Nothing to write back: the dquot, and then its entry, is the record. */
static int htmpfs_mark_dquot_dirty(struct dquot *dquot)
{
	return 0;
}

static int htmpfs_dquot_write_info(struct super_block *sb, int type)
{
	return 0;
}

/* The first id at or after *@qid that is in use or has limits kept */
static int htmpfs_get_next_id(struct super_block *sb, struct kqid *qid)
{
	struct quota_info *dqopt = sb_dqopt(sb);
	unsigned long id = from_kqid(&init_user_ns, *qid);
	int err = -ENOENT;

	if (!sb_has_quota_active(sb, qid->type))
		return -ESRCH;
	down_read(&dqopt->dqio_sem);
	if (xa_find(htmpfs_quota_ids(sb, qid->type), &id, U32_MAX,
		    XA_PRESENT)) {
		*qid = make_kqid(&init_user_ns, qid->type, id);
		err = 0;
	}
	up_read(&dqopt->dqio_sem);
	return err;
}

const struct dquot_operations htmpfs_dquot_ops = {
	.acquire_dquot	= htmpfs_acquire_dquot,
	.release_dquot	= htmpfs_release_dquot,
	.alloc_dquot	= dquot_alloc,
	.destroy_dquot	= dquot_destroy,
	.write_info	= htmpfs_dquot_write_info,
	.mark_dirty	= htmpfs_mark_dquot_dirty,
	.get_next_id	= htmpfs_get_next_id,
};

/**
 * htmpfs_quota_mount - turn on the quotas a new mount asked for
 * @sb: the mount, before its root inode is made
 *
 * Return: 0 or -errno.
 */
int htmpfs_quota_mount(struct super_block *sb)
{
	unsigned int types = HTMPFS_SB(sb)->opts.quota_types;
	int type, err;

	if (!types)
		return 0;
	sb->dq_op = &htmpfs_dquot_ops;
	sb->s_qcop = &dquot_quotactl_sysfile_ops;
	sb->s_quota_types = QTYPE_MASK_USR | QTYPE_MASK_GRP;
	/* No quota file and no device: nothing to sync or invalidate. */
	sb_dqopt(sb)->flags |= DQUOT_QUOTA_SYS_FILE | DQUOT_NOLIST_DIRTY;
	for (type = 0; type < MAXQUOTAS; type++) {
		if (!(types & (1 << type)))
			continue;
		err = dquot_load_quota_sb(sb, type, HUGETMPFS_QFMT,
					  DQUOT_USAGE_ENABLED |
					  DQUOT_LIMITS_ENABLED);
		if (err) {
			htmpfs_quota_unmount(sb);
			return err;
		}
	}
	return 0;
}

/**
 * htmpfs_quota_unmount - turn quotas off, once the inodes are gone
 * @sb: the mount, at unmount or after a failed mount (nothing on: no-op)
 */
void htmpfs_quota_unmount(struct super_block *sb)
{
	int type;

	for (type = 0; type < MAXQUOTAS; type++)
		dquot_quota_off(sb, type);
}

/**
 * htmpfs_get_dquots - super_operations.get_dquots
 * @inode: the inode
 *
 * Return: its dquot pointers.
 */
struct dquot __rcu **htmpfs_get_dquots(struct inode *inode)
{
	return HTMPFS_I(inode)->dquot;
}

/**
 * htmpfs_quota_init - register the in-memory quota format at module load
 */
void htmpfs_quota_init(void)
{
	register_quota_format(&htmpfs_quota_format);
}

/**
 * htmpfs_quota_exit - unregister it at module unload
 */
void htmpfs_quota_exit(void)
{
	unregister_quota_format(&htmpfs_quota_format);
}
