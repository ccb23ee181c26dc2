/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hugetmpfs: a RAM filesystem whose files live in (huge) page-cache folios.
 * Declarations shared by the files of the module, one file per concern:
 *   super.c  mount, options, superblock, module init
 *   inode.c  inode life cycle and attributes
 *   namei.c  directory operations
 *   file.c   address space and file I/O
 *   mmap.c   mapping and page faults
 */
#ifndef _HUGETMPFS_INTERNAL_H
#define _HUGETMPFS_INTERNAL_H

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/uidgid.h>

#define HTMPFS_NAME	"hugetmpfs"

/* When a file gets huge folios, as in tmpfs's huge= option */
enum htmpfs_huge {
	HTMPFS_HUGE_NEVER,
	HTMPFS_HUGE_ALWAYS,
	HTMPFS_HUGE_WITHIN_SIZE,
	HTMPFS_HUGE_ADVISE,
};

/* Mount options, as parsed and as applied */
struct htmpfs_options {
	umode_t mode;
	kuid_t uid;
	kgid_t gid;
	enum htmpfs_huge huge;
};

/**
 * struct htmpfs_sb_info - per-mount state
 * @opts: current mount options (huge= changes on remount)
 */
struct htmpfs_sb_info {
	struct htmpfs_options opts;
};

static inline struct htmpfs_sb_info *HTMPFS_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

extern const struct inode_operations htmpfs_dir_inode_ops;
extern const struct inode_operations htmpfs_file_inode_ops;
extern const struct inode_operations htmpfs_symlink_inode_ops;
extern const struct file_operations htmpfs_file_ops;
extern const struct address_space_operations htmpfs_aops;

/* inode.c */
int htmpfs_inode_cache_init(void);
void htmpfs_inode_cache_destroy(void);
struct inode *htmpfs_alloc_inode(struct super_block *sb);
void htmpfs_free_inode(struct inode *inode);
void htmpfs_evict_inode(struct inode *inode);
struct inode *htmpfs_new_inode(struct super_block *sb, struct mnt_idmap *idmap,
			       const struct inode *dir, umode_t mode, dev_t dev);
int htmpfs_setattr(struct mnt_idmap *idmap, struct dentry *dentry,
		   struct iattr *attr);
int htmpfs_getattr(struct mnt_idmap *idmap, const struct path *path,
		   struct kstat *stat, u32 request_mask, unsigned int flags);

/* mmap.c */
int htmpfs_mmap(struct file *file, struct vm_area_struct *vma);

#endif /* _HUGETMPFS_INTERNAL_H */
