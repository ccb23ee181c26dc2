// SPDX-License-Identifier: GPL-2.0
/*
 * hugetmpfs mount, options and superblock; module entry points.
 */
#define pr_fmt(fmt) "hugetmpfs: " fmt

#include <linux/module.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/quotaops.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/statfs.h>
#include <linux/swap.h>
#include <linux/uuid.h>
#include <uapi/linux/hugetmpfs.h>

#include "internal.h"

enum htmpfs_param {
	OPT_MODE,
	OPT_UID,
	OPT_GID,
	OPT_HUGE,
	OPT_NR_INODES,
	OPT_SIZE,
	OPT_NR_BLOCKS,
	OPT_INODE32,
	OPT_INODE64,
	OPT_HUGE_HOLES,
	OPT_MPOL,
	OPT_QUOTA,
	OPT_USRQUOTA,
	OPT_GRPQUOTA,
	OPT_USR_BHARD,
	OPT_USR_IHARD,
	OPT_GRP_BHARD,
	OPT_GRP_IHARD,
	OPT_NOSWAP,
};

static const struct constant_table htmpfs_huge_table[] = {
	{ "never",	 HTMPFS_HUGE_NEVER },
	{ "always",	 HTMPFS_HUGE_ALWAYS },
	{ "within_size", HTMPFS_HUGE_WITHIN_SIZE },
	{ "advise",	 HTMPFS_HUGE_ADVISE },
	{}
};

static const struct constant_table htmpfs_holes_table[] = {
	{ "keep",	false },
	{ "free",	true },
	{}
};

static const struct fs_parameter_spec htmpfs_param_specs[] = {
	fsparam_u32oct("mode",	OPT_MODE),
	fsparam_u32("uid",	OPT_UID),
	fsparam_u32("gid",	OPT_GID),
	fsparam_enum("huge",	OPT_HUGE, htmpfs_huge_table),
	fsparam_string("nr_inodes", OPT_NR_INODES),
	fsparam_string("size",	OPT_SIZE),
	fsparam_string("nr_blocks", OPT_NR_BLOCKS),
	fsparam_flag("inode32",	OPT_INODE32),
	fsparam_flag("inode64",	OPT_INODE64),
	fsparam_enum("huge_holes", OPT_HUGE_HOLES, htmpfs_holes_table),
	fsparam_string("mpol",	OPT_MPOL),
	fsparam_flag("quota",	OPT_QUOTA),
	fsparam_flag("usrquota", OPT_USRQUOTA),
	fsparam_flag("grpquota", OPT_GRPQUOTA),
	fsparam_string("usrquota_block_hardlimit", OPT_USR_BHARD),
	fsparam_string("usrquota_inode_hardlimit", OPT_USR_IHARD),
	fsparam_string("grpquota_block_hardlimit", OPT_GRP_BHARD),
	fsparam_string("grpquota_inode_hardlimit", OPT_GRP_IHARD),
	fsparam_flag("noswap",	OPT_NOSWAP),
	{}
};

/* Which options the user gave, so that remount changes only those */
#define HTMPFS_SEEN_HUGE	BIT(0)
#define HTMPFS_SEEN_INODES	BIT(1)
#define HTMPFS_SEEN_BLOCKS	BIT(2)
#define HTMPFS_SEEN_INUMS	BIT(3)
#define HTMPFS_SEEN_HOLES	BIT(4)
#define HTMPFS_SEEN_MPOL	BIT(5)
#define HTMPFS_SEEN_QUOTA	BIT(6)
#define HTMPFS_SEEN_NOSWAP	BIT(7)

/* tmpfs's defaults: half of RAM, and an inode per two pages of it */
static long htmpfs_default_max_blocks(void)
{
	return totalram_pages() / 2;
}

static long htmpfs_default_max_inodes(void)
{
	return min(totalram_pages() - totalhigh_pages(), totalram_pages() / 2);
}

/* A size: bytes with an optional k/m/g/t suffix, or a percentage of RAM. */
static int htmpfs_parse_size(const char *str, long *pages)
{
	unsigned long long n;
	char *rest;

	n = memparse(str, &rest);
	if (rest == str)
		return -EINVAL;
	if (*rest == '%') {
		if (rest[1] || n > 100)
			return -EINVAL;
		/* Rounded as tmpfs rounds it, so the two agree. */
		n = div_u64((n << PAGE_SHIFT) * totalram_pages(), 100);
		*pages = DIV_ROUND_UP_ULL(n, PAGE_SIZE);
		return 0;
	}
	if (*rest || n > (unsigned long long)LONG_MAX << PAGE_SHIFT)
		return -EINVAL;
	*pages = DIV_ROUND_UP_ULL(n, PAGE_SIZE);
	return 0;
}

struct htmpfs_fs_context {
	struct htmpfs_options opts;
	unsigned int seen;
	struct mempolicy *mpol;	/* mpol=, if HTMPFS_SEEN_MPOL */
};

/* The quota options: which quotas, and the default hard limits of ids */
static int htmpfs_parse_quota(struct fs_context *fc,
			      struct fs_parameter *param, int opt)
{
	struct htmpfs_fs_context *ctx = fc->fs_private;
	struct htmpfs_options *o = &ctx->opts;
	unsigned long long n;
	char *rest;

	if (!IS_ENABLED(CONFIG_QUOTA))
		return invalfc(fc, "'%s': no quota support in this kernel",
			       param->key);
	/* As tmpfs: an unprivileged mounter would set its own limits. */
	if (fc->user_ns != &init_user_ns)
		return invalfc(fc, "'%s': no quotas in user namespace mounts",
			       param->key);
	switch (opt) {
	case OPT_QUOTA:
		o->quota_types |= QTYPE_MASK_USR | QTYPE_MASK_GRP;
		ctx->seen |= HTMPFS_SEEN_QUOTA;
		return 0;
	case OPT_USRQUOTA:
		o->quota_types |= QTYPE_MASK_USR;
		ctx->seen |= HTMPFS_SEEN_QUOTA;
		return 0;
	case OPT_GRPQUOTA:
		o->quota_types |= QTYPE_MASK_GRP;
		ctx->seen |= HTMPFS_SEEN_QUOTA;
		return 0;
	}
	/* The default limits alone turn nothing on, as on tmpfs. */
	n = memparse(param->string, &rest);
	if (rest == param->string || *rest || !n || n > HTMPFS_QUOTA_MAX)
		return invalfc(fc, "Bad value for '%s': %s", param->key,
			       param->string);
	switch (opt) {
	case OPT_USR_BHARD:
		o->usr_bhard = n;
		break;
	case OPT_USR_IHARD:
		o->usr_ihard = n;
		break;
	case OPT_GRP_BHARD:
		o->grp_bhard = n;
		break;
	case OPT_GRP_IHARD:
		o->grp_ihard = n;
		break;
	}
	return 0;
}

static int htmpfs_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct htmpfs_fs_context *ctx = fc->fs_private;
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fc, htmpfs_param_specs, param, &result);
	if (opt < 0) {
		/*
		 * fs_parse() logged the reason to the fs_context; with fsopen()
		 * that log goes to user space only, so name it here as well.
		 */
		if (fc->log.log && strcmp(param->key, "source"))
			pr_warn("bad mount option '%s'\n", param->key);
		return opt;
	}

	switch (opt) {
	case OPT_MODE:
		ctx->opts.mode = result.uint_32 & S_IALLUGO;
		break;
	case OPT_UID:
		ctx->opts.uid = make_kuid(current_user_ns(), result.uint_32);
		/* In a user namespace: only an owner it can map. */
		if (!uid_valid(ctx->opts.uid) ||
		    !kuid_has_mapping(fc->user_ns, ctx->opts.uid))
			return invalfc(fc, "Invalid value for 'uid': %u",
				       result.uint_32);
		break;
	case OPT_GID:
		ctx->opts.gid = make_kgid(current_user_ns(), result.uint_32);
		if (!gid_valid(ctx->opts.gid) ||
		    !kgid_has_mapping(fc->user_ns, ctx->opts.gid))
			return invalfc(fc, "Invalid value for 'gid': %u",
				       result.uint_32);
		break;
	case OPT_HUGE:
		ctx->opts.huge = result.uint_32;
		ctx->seen |= HTMPFS_SEEN_HUGE;
		break;
	case OPT_NR_INODES: {
		char *rest;
		unsigned long long n = memparse(param->string, &rest);

		if (rest == param->string || *rest ||
		    n > LONG_MAX / HTMPFS_BOGO_INODE_SIZE)
			return invalfc(fc, "Bad value for 'nr_inodes': %s",
				       param->string);
		ctx->opts.max_inodes = n;
		ctx->seen |= HTMPFS_SEEN_INODES;
		break;
	}
	case OPT_SIZE:
		if (htmpfs_parse_size(param->string, &ctx->opts.max_blocks))
			return invalfc(fc, "Bad value for 'size': %s",
				       param->string);
		ctx->seen |= HTMPFS_SEEN_BLOCKS;
		break;
	case OPT_NR_BLOCKS: {
		char *rest;
		unsigned long long n = memparse(param->string, &rest);

		if (rest == param->string || *rest || n > LONG_MAX)
			return invalfc(fc, "Bad value for 'nr_blocks': %s",
				       param->string);
		ctx->opts.max_blocks = n;
		ctx->seen |= HTMPFS_SEEN_BLOCKS;
		break;
	}
	case OPT_INODE32:
	case OPT_INODE64:
		if (opt == OPT_INODE64 && sizeof(ino_t) < 8)
			return invalfc(fc, "inode64: ino_t is 32 bits here");
		ctx->opts.inode64 = opt == OPT_INODE64;
		ctx->seen |= HTMPFS_SEEN_INUMS;
		break;
	case OPT_NOSWAP:
		/* As tmpfs: pinning memory is for the host's administrator. */
		if (fc->user_ns != &init_user_ns || !capable(CAP_SYS_ADMIN))
			return invalfc(fc, "noswap: not in unprivileged mounts");
		ctx->opts.noswap = true;
		ctx->seen |= HTMPFS_SEEN_NOSWAP;
		break;
	case OPT_HUGE_HOLES:
		ctx->opts.holes_free = result.uint_32;
		ctx->seen |= HTMPFS_SEEN_HOLES;
		break;
	case OPT_MPOL: {
		struct mempolicy *mpol;
		int err = htmpfs_mpol_parse(param->string, &mpol);

		if (err == -EINVAL)
			return invalfc(fc, "Bad value for 'mpol': %s",
				       param->string);
		if (err)
			return err;
		mpol_put(ctx->mpol);
		ctx->mpol = mpol;
		ctx->seen |= HTMPFS_SEEN_MPOL;
		break;
	}
	case OPT_QUOTA:
	case OPT_USRQUOTA:
	case OPT_GRPQUOTA:
	case OPT_USR_BHARD:
	case OPT_USR_IHARD:
	case OPT_GRP_BHARD:
	case OPT_GRP_IHARD:
		return htmpfs_parse_quota(fc, param, opt);
	}
	return 0;
}

static int htmpfs_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(dentry->d_sb);
	long max = READ_ONCE(sbi->opts.max_blocks);
	long used;

	buf->f_type = HUGETMPFS_MAGIC;
	buf->f_bsize = PAGE_SIZE;
	buf->f_namelen = NAME_MAX;
	/* fanotify's filesystem-wide watches need one, as on tmpfs. */
	buf->f_fsid = uuid_to_fsid(dentry->d_sb->s_uuid.b);
	/* Without a limit, report zeros as tmpfs does: "unlimited". */
	if (max) {
		buf->f_blocks = max;
		buf->f_bfree = max_t(long, 0, max -
			htmpfs_level(sbi, HTMPFS_LEVEL_BLOCKS));
		buf->f_bavail = buf->f_bfree;
	}
	max = READ_ONCE(sbi->opts.max_inodes);
	if (max) {
		buf->f_files = max;
		/* Extended attributes use up inodes too, as on tmpfs. */
		used = DIV_ROUND_UP(htmpfs_level(sbi, HTMPFS_LEVEL_ISPACE),
				    HTMPFS_BOGO_INODE_SIZE);
		buf->f_ffree = max_t(long, 0, max - used);
	}
	return 0;
}

static int htmpfs_show_options(struct seq_file *m, struct dentry *root)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(root->d_sb);
	const struct htmpfs_options *o = &sbi->opts;

	if (o->mode != (0777 | S_ISVTX))
		seq_printf(m, ",mode=%03o", o->mode);
	if (!uid_eq(o->uid, GLOBAL_ROOT_UID))
		seq_printf(m, ",uid=%u", from_kuid_munged(&init_user_ns, o->uid));
	if (!gid_eq(o->gid, GLOBAL_ROOT_GID))
		seq_printf(m, ",gid=%u", from_kgid_munged(&init_user_ns, o->gid));
	/* As tmpfs: the limits only when they are not the defaults. */
	if (READ_ONCE(o->max_blocks) != htmpfs_default_max_blocks())
		seq_printf(m, ",size=%luk",
			   READ_ONCE(o->max_blocks) << (PAGE_SHIFT - 10));
	if (READ_ONCE(o->max_inodes) != htmpfs_default_max_inodes())
		seq_printf(m, ",nr_inodes=%ld", READ_ONCE(o->max_inodes));
	seq_printf(m, ",huge=%s", htmpfs_huge_name(READ_ONCE(o->huge)));
	seq_printf(m, ",inode%d", READ_ONCE(o->inode64) ? 64 : 32);
	if (READ_ONCE(o->holes_free))
		seq_puts(m, ",huge_holes=free");
	if (o->noswap)
		seq_puts(m, ",noswap");
	htmpfs_mpol_show(m, sbi);
	if (sb_has_quota_active(root->d_sb, USRQUOTA))
		seq_puts(m, ",usrquota");
	if (sb_has_quota_active(root->d_sb, GRPQUOTA))
		seq_puts(m, ",grpquota");
	if (o->usr_bhard)
		seq_printf(m, ",usrquota_block_hardlimit=%lld", o->usr_bhard);
	if (o->usr_ihard)
		seq_printf(m, ",usrquota_inode_hardlimit=%lld", o->usr_ihard);
	if (o->grp_bhard)
		seq_printf(m, ",grpquota_block_hardlimit=%lld", o->grp_bhard);
	if (o->grp_ihard)
		seq_printf(m, ",grpquota_inode_hardlimit=%lld", o->grp_ihard);
	return 0;
}

static const struct super_operations htmpfs_super_ops = {
	.alloc_inode	= htmpfs_alloc_inode,
	.free_inode	= htmpfs_free_inode,
	.evict_inode	= htmpfs_evict_inode,
	.drop_inode	= generic_delete_inode,
	.statfs		= htmpfs_statfs,
	.show_options	= htmpfs_show_options,
	.put_super	= htmpfs_quota_unmount,
#ifdef CONFIG_QUOTA
	.get_dquots	= htmpfs_get_dquots,
#endif
};

static int htmpfs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct htmpfs_fs_context *ctx = fc->fs_private;
	struct htmpfs_sb_info *sbi;
	struct inode *root;
	uuid_t uuid;
	int err;

	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	if (!sbi)
		return -ENOMEM;
	sbi->opts = ctx->opts;
	sbi->sb = sb;
	htmpfs_iputs_init(sbi);
	spin_lock_init(&sbi->limit_lock);
	spin_lock_init(&sbi->mpol_lock);
	sbi->collapse_enabled = 1;
	sbi->collapse_max_holes = HTMPFS_COLLAPSE_MAX_HOLES;
	sbi->collapse_defrag = 1;
	sbi->large_fallback = 1;
	htmpfs_mpol_set_sb(sbi, ctx->mpol);
	ctx->mpol = NULL;
	sb->s_fs_info = sbi;
	/* kill_sb frees it, whatever fails below. */
	sbi->events = alloc_percpu(struct htmpfs_events);
	if (!sbi->events)
		return -ENOMEM;
	err = htmpfs_holes_mount(sbi);
	if (err)
		return err;

	sb->s_maxbytes = MAX_LFS_FILESIZE;
	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_magic = HUGETMPFS_MAGIC;
	sb->s_op = &htmpfs_super_ops;
	sb->s_xattr = htmpfs_xattr_handlers;
	sb->s_export_op = &htmpfs_export_ops;
	/*
	 * SB_I_VERSION: NFSv4's change attribute counts changes rather than
	 * reading ctime, which two changes in one tick share. SB_NOSEC: a
	 * write skips looking for suid bits and security xattrs once the
	 * VFS has seen that the file has none. Both as tmpfs.
	 */
	sb->s_flags |= SB_POSIXACL | SB_I_VERSION | SB_NOSEC;
	sb->s_time_gran = 1;
	err = htmpfs_quota_mount(sb);
	if (err)
		return err;
	/* FS_IOC_GETFSUUID and FS_IOC_GETFSSYSFSPATH, answered by the VFS */
	generate_random_uuid(uuid.b);
	super_set_uuid(sb, uuid.b, sizeof(uuid));
	super_set_sysfs_name_generic(sb, "%u:%u", MAJOR(sb->s_dev),
				     MINOR(sb->s_dev));

	root = htmpfs_new_inode(sb, &nop_mnt_idmap, NULL,
				S_IFDIR | sbi->opts.mode, 0);
	if (IS_ERR(root))
		return PTR_ERR(root);
	root->i_uid = sbi->opts.uid;
	root->i_gid = sbi->opts.gid;
	sb->s_root = d_make_root(root);
	if (!sb->s_root)
		return -ENOMEM;
	return htmpfs_sysfs_add_sb(sb);
}

/*
 * Mounts from user namespaces are allowed, as tmpfs allows them, where the
 * memory can go to swap; without CONFIG_SWAP it is unevictable, and an
 * unprivileged user could pin RAM: the administrator opts in.
 */
static bool htmpfs_userns_mount = IS_ENABLED(CONFIG_SWAP);
module_param_named(userns_mount, htmpfs_userns_mount, bool, 0644);
MODULE_PARM_DESC(userns_mount,
		 "allow mounts from user namespaces (default Y, as tmpfs; N without CONFIG_SWAP)");

static int htmpfs_get_tree(struct fs_context *fc)
{
	if (fc->user_ns != &init_user_ns && !READ_ONCE(htmpfs_userns_mount)) {
		errorfc(fc, "mounts from user namespaces are off (parameter userns_mount)");
		return -EPERM;
	}
	return get_tree_nodev(fc, htmpfs_fill_super);
}

static int htmpfs_reconfigure(struct fs_context *fc)
{
	struct htmpfs_fs_context *ctx = fc->fs_private;
	struct htmpfs_sb_info *sbi = HTMPFS_SB(fc->root->d_sb);
	int err;

	if ((ctx->seen & HTMPFS_SEEN_INUMS) && !ctx->opts.inode64 &&
	    atomic64_read(&sbi->next_ino) > U32_MAX)
		return invalfc(fc, "inode32: inode numbers past 2^32 in use");
	/* As tmpfs: quotas and their defaults are set when mounting. */
	if ((ctx->seen & HTMPFS_SEEN_QUOTA) &&
	    !sb_any_quota_loaded(fc->root->d_sb))
		return invalfc(fc, "Cannot enable quota on remount");
	if ((ctx->opts.usr_bhard && ctx->opts.usr_bhard != sbi->opts.usr_bhard) ||
	    (ctx->opts.usr_ihard && ctx->opts.usr_ihard != sbi->opts.usr_ihard) ||
	    (ctx->opts.grp_bhard && ctx->opts.grp_bhard != sbi->opts.grp_bhard) ||
	    (ctx->opts.grp_ihard && ctx->opts.grp_ihard != sbi->opts.grp_ihard))
		return invalfc(fc, "Cannot change global quota limit on remount");
	/* As tmpfs: it is the files' for their lifetime, from the mount. */
	if ((ctx->seen & HTMPFS_SEEN_NOSWAP) && !sbi->opts.noswap)
		return invalfc(fc, "noswap: Cannot disable swap on remount");

	/* Checked against what is in use and set in one step. */
	err = htmpfs_space_set_limits(sbi, fc,
				      ctx->seen & HTMPFS_SEEN_BLOCKS ?
				      ctx->opts.max_blocks : -1,
				      ctx->seen & HTMPFS_SEEN_INODES ?
				      ctx->opts.max_inodes : -1);
	if (err)
		return err;
	/* Like tmpfs: mode, uid and gid only apply when the root is made. */
	if (ctx->seen & HTMPFS_SEEN_INUMS)
		WRITE_ONCE(sbi->opts.inode64, ctx->opts.inode64);
	if ((ctx->seen & HTMPFS_SEEN_HUGE) && ctx->opts.huge != sbi->opts.huge) {
		WRITE_ONCE(sbi->opts.huge, ctx->opts.huge);
		/* Files made of small pages may have huge folios now. */
		if (ctx->opts.huge == HTMPFS_HUGE_ALWAYS ||
		    ctx->opts.huge == HTMPFS_HUGE_WITHIN_SIZE)
			htmpfs_scan_queue_sb(fc->root->d_sb);
	}
	if (ctx->seen & HTMPFS_SEEN_HOLES)
		WRITE_ONCE(sbi->opts.holes_free, ctx->opts.holes_free);
	/* As tmpfs: new files get it, existing ones keep theirs. */
	if (ctx->seen & HTMPFS_SEEN_MPOL) {
		htmpfs_mpol_set_sb(sbi, ctx->mpol);
		ctx->mpol = NULL;
	}
	return 0;
}

static void htmpfs_free_fc(struct fs_context *fc)
{
	struct htmpfs_fs_context *ctx = fc->fs_private;

	if (ctx)
		mpol_put(ctx->mpol);
	kfree(ctx);
}

static const struct fs_context_operations htmpfs_context_ops = {
	.free		= htmpfs_free_fc,
	.parse_param	= htmpfs_parse_param,
	.get_tree	= htmpfs_get_tree,
	.reconfigure	= htmpfs_reconfigure,
};

static int htmpfs_init_fs_context(struct fs_context *fc)
{
	struct htmpfs_fs_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->opts.mode = 0777 | S_ISVTX;
	ctx->opts.uid = current_fsuid();
	ctx->opts.gid = current_fsgid();
	ctx->opts.huge = HTMPFS_HUGE_WITHIN_SIZE;
	ctx->opts.max_blocks = htmpfs_default_max_blocks();
	ctx->opts.max_inodes = htmpfs_default_max_inodes();
	ctx->opts.inode64 = IS_ENABLED(CONFIG_64BIT);
	fc->fs_private = ctx;
	fc->ops = &htmpfs_context_ops;
	return 0;
}

static void htmpfs_kill_sb(struct super_block *sb)
{
	struct htmpfs_sb_info *sbi = HTMPFS_SB(sb);

	/* First, as its statistics walk the inodes about to go. */
	if (sbi && sbi->kobj.state_in_sysfs)	/* fill_super got that far */
		htmpfs_sysfs_del_sb(sbi);
	/* Nor may the shrinker or the collapse thread look at them. */
	if (sbi && sbi->holes_shrinker)
		htmpfs_holes_unmount(sbi);
	if (sbi) {
		htmpfs_scan_unmount(sbi);
		/* What reclaim and the walks left: before the inodes go. */
		htmpfs_iputs_flush(sbi);
	}
	/* Without a root, put_super will not run: quotas off here. */
	if (sbi && !sb->s_root)
		htmpfs_quota_unmount(sb);
	/* Drops the dentries that kept the tree alive, then the inodes. */
	kill_litter_super(sb);
	if (sbi && sbi->holes_lru.node)
		htmpfs_holes_destroy(sbi);
	if (sbi) {
		htmpfs_mpol_set_sb(sbi, NULL);
		free_percpu(sbi->events);
	}
	kfree(sbi);
}

static struct file_system_type htmpfs_fs_type = {
	.owner			= THIS_MODULE,
	.name			= HTMPFS_NAME,
	.init_fs_context	= htmpfs_init_fs_context,
	.parameters		= htmpfs_param_specs,
	.kill_sb		= htmpfs_kill_sb,
	/* As tmpfs: containers may mount it, and idmapped mounts work. */
	.fs_flags		= FS_USERNS_MOUNT | FS_ALLOW_IDMAP,
};

static void htmpfs_queue_mount(struct super_block *sb, void *unused)
{
	htmpfs_scan_queue_sb(sb);
}

/*
 * huge_override= (policy.c): once huge folios are allowed again, what got
 * small pages meanwhile is queued for the collapse thread, in every mount.
 */
static int htmpfs_override_param_set(const char *val,
				     const struct kernel_param *kp)
{
	int lifted = htmpfs_override_set(val);

	if (lifted > 0)
		iterate_supers_type(&htmpfs_fs_type, htmpfs_queue_mount, NULL);
	return min(lifted, 0);
}

static int htmpfs_override_param_get(char *buf, const struct kernel_param *kp)
{
	return htmpfs_override_show(buf);
}

static const struct kernel_param_ops htmpfs_override_ops = {
	.set = htmpfs_override_param_set,
	.get = htmpfs_override_param_get,
};

module_param_cb(huge_override, &htmpfs_override_ops, NULL, 0644);
MODULE_PARM_DESC(huge_override,
		 "none (mounts' huge= decides), deny (never huge) or force (always huge)");

static int __init htmpfs_init(void)
{
	int err;

	err = htmpfs_inode_cache_init();
	if (err)
		return err;
	err = htmpfs_holes_init();
	if (err)
		goto out_cache;
	htmpfs_quota_init();
	err = htmpfs_sysfs_init();
	if (err)
		goto out_quota;
	err = htmpfs_scan_init();
	if (err)
		goto out_sysfs;
	err = htmpfs_swap_init(&htmpfs_fs_type);
	if (err)
		goto out_scan;
	err = register_filesystem(&htmpfs_fs_type);
	if (err)
		goto out_swap;
	return 0;

out_swap:
	htmpfs_swap_exit();
out_scan:
	htmpfs_scan_exit();
out_sysfs:
	htmpfs_sysfs_exit();
out_quota:
	htmpfs_quota_exit();
	htmpfs_holes_exit();
out_cache:
	htmpfs_inode_cache_destroy();
	return err;
}

static void __exit htmpfs_exit(void)
{
	unregister_filesystem(&htmpfs_fs_type);
	htmpfs_swap_exit();
	htmpfs_scan_exit();
	htmpfs_sysfs_exit();
	htmpfs_quota_exit();
	htmpfs_holes_exit();
	htmpfs_inode_cache_destroy();
}

module_init(htmpfs_init);
module_exit(htmpfs_exit);
MODULE_DESCRIPTION("tmpfs on transparent huge pages");
MODULE_LICENSE("GPL");
MODULE_VERSION(HTMPFS_VERSION);
MODULE_ALIAS_FS(HTMPFS_NAME);
