/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hugetmpfs: a RAM filesystem whose files live in (huge) page-cache folios.
 * Declarations shared by the files of the module, one file per concern:
 *   super.c  mount, options, superblock, module init
 *   inode.c  inode life cycle and attributes
 *   namei.c  directory operations
 *   file.c   address space and file I/O
 *   mmap.c   mapping and page faults
 *   policy.c huge-folio policy: huge=, per-file policy, the override
 *   truncate.c  hole punch and truncate: split, zero, free
 *   ioctl.c  the ioctls of <linux/hugetmpfs.h>
 *   alloc.c  folio allocation
 *   holes.c  hole records: which pages of huge folios hold data
 *   shrink.c the hole shrinker: gives the memory of holes back
 *   space.c  space accounting: size= and nr_inodes=
 *   stats.c  statistics in sysfs
 *   xattr.c  extended attributes and ACLs
 *   attr.c   chattr flags and statx attributes
 *   export.c file handles (name_to_handle_at, NFS export)
 *   mpol.c   NUMA placement: mpol= and mbind()
 *   quota.c  usrquota and grpquota, in memory
 *   collapse.c  rebuilding huge folios from small ones
 *   scan.c   the collapse thread: which files to collapse, and when
 *   cache.c  page cache slots: folios in, swap entries in their place
 *   swap.c   swap: out under reclaim, back in on use, and on swapoff
 *   walk.c   walking a mount's inodes; iputs that must not evict here
 */
#ifndef _HUGETMPFS_INTERNAL_H
#define _HUGETMPFS_INTERNAL_H

#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/kobject.h>
#include <linux/list_lru.h>
#include <linux/llist.h>
#include <linux/mempolicy.h>
#include <linux/quota.h>
#include <linux/workqueue.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/uidgid.h>
#include <linux/xattr.h>

#define HTMPFS_NAME	"hugetmpfs"

struct writeback_control;

/*
 * What keeps data safe. Memory, or swap, is the only copy of a file's data,
 * so every folio in a hugetmpfs page cache is, from its insertion (alloc.c,
 * cache.c) until truncate, hole punch, eviction or swap-out removes it:
 *  - dirty: nothing may treat it as clean cache and drop it (khugepaged,
 *    invalidation, drop_caches all skip dirty folios); reclaim hands a
 *    dirty folio to ->writepage, which puts it in swap (swap.c);
 *  - swap-backed: it sits on the anon LRU, and reclaim's writeback of it is
 *    swap's;
 *  - in a mapping marked AS_SWAP_BACKED: a split keeps tails past EOF,
 *    memory failure keeps a poisoned folio, and core mm leaves the swap
 *    entries in its slots alone (see kernel-prereq.patch).
 * No ->read_folio exists, so core mm cannot add folios of its own. The
 * split and punch paths check the first two with htmpfs_folio_safe().
 */

/*
 * As in tmpfs, nr_inodes limits metadata memory: each inode costs this much
 * of it and each extended attribute its estimated size.
 */
#define HTMPFS_BOGO_INODE_SIZE	1024

/* Symlink bodies longer than this cost a page of size=, as in tmpfs */
#define HTMPFS_SHORT_SYMLINK_LEN	128

/*
 * Large folios: where a PMD-sized folio cannot be had, allocation falls
 * back through these orders (1 MiB down to 16 KiB) before a single page.
 */
#define HTMPFS_LARGE_MIN_ORDER	2
#define HTMPFS_LARGE_MAX_ORDER	(HPAGE_PMD_ORDER - 1)
#define HTMPFS_NR_LARGE_ORDERS	(HTMPFS_LARGE_MAX_ORDER - HTMPFS_LARGE_MIN_ORDER + 1)

/* When a file gets huge folios, as in tmpfs's huge= option */
enum htmpfs_huge {
	HTMPFS_HUGE_NEVER,
	HTMPFS_HUGE_ALWAYS,
	HTMPFS_HUGE_WITHIN_SIZE,
	HTMPFS_HUGE_ADVISE,
	HTMPFS_HUGE_INHERIT = -1,	/* a file's: its mount's */
};

/* Mount options, as parsed and as applied */
struct htmpfs_options {
	umode_t mode;
	kuid_t uid;
	kgid_t gid;
	enum htmpfs_huge huge;
	long max_inodes;	/* 0: no limit */
	long max_blocks;	/* pages; 0: no limit */
	bool inode64;		/* else inode numbers fit in 32 bits */
	bool holes_free;	/* huge_holes=free: not kept until pressure */
	bool noswap;		/* its files stay in memory */
	unsigned int quota_types;	/* QTYPE_MASK_USR, _GRP: quotas on */
	long long usr_bhard, usr_ihard;	/* usrquota_*_hardlimit: defaults */
	long long grp_bhard, grp_ihard;	/* grpquota_*_hardlimit */
};

/* Events counted per mount and in total, shown in sysfs (stats.c) */
enum htmpfs_stat {
	HTMPFS_STAT_HUGE_ALLOC,			/* PMD-sized folios made */
	HTMPFS_STAT_HUGE_FALLBACK_NOMEM,	/* no huge page to be had */
	HTMPFS_STAT_HUGE_FALLBACK_POPULATED,	/* 2 MiB range partly in use */
	HTMPFS_STAT_HUGE_FALLBACK_NOSPACE,	/* size= leaves no room */
	HTMPFS_STAT_SPLITS,			/* huge folios split by us */
	HTMPFS_STAT_HOLES_FREED,		/* hole pages freed */
	HTMPFS_STAT_HOLES_MOVED,		/* data pages moved out of a block */
	HTMPFS_STAT_HOLES_BLOCKS_RETURNED,	/* huge folios freed whole */
	HTMPFS_STAT_HOLES_SPLIT,		/* split, data pages kept in place */
	HTMPFS_STAT_HOLES_SKIPPED_MAPPED,	/* not freed this time: mapped */
	HTMPFS_STAT_HOLES_SKIPPED_BUSY,		/* ... locked, pinned, no memory */
	HTMPFS_STAT_COLLAPSE_SCANNED,		/* ranges the thread tried */
	HTMPFS_STAT_COLLAPSED,			/* 2 MiB ranges made huge folios */
	HTMPFS_STAT_COLLAPSE_SPARSE,		/* not: more holes than allowed */
	HTMPFS_STAT_COLLAPSE_BUSY,		/* not: pinned, locked, in flight */
	HTMPFS_STAT_COLLAPSE_NOMEM,		/* not: no huge page to be had */
	HTMPFS_STAT_COLLAPSE_NOSPACE,		/* not: size= or quota reached */
	HTMPFS_STAT_COLLAPSE_CHARGE,		/* not: memory cgroup full */
	HTMPFS_STAT_SWAP_OUT,			/* pages written to swap */
	HTMPFS_STAT_SWAP_IN,			/* pages back from swap */
	HTMPFS_STAT_SWAP_SPLITS,		/* large folios split for it */
	HTMPFS_STAT_SWAP_OUT_WHOLE,		/* large folios written whole */
	HTMPFS_STAT_SWAP_IN_WHOLE,		/* ... back whole (swap cache) */
	/* Large folios made, one counter per order from the smallest */
	HTMPFS_STAT_LARGE_ALLOC,
	HTMPFS_NR_STATS = HTMPFS_STAT_LARGE_ALLOC + HTMPFS_NR_LARGE_ORDERS
};

/* Per-CPU event counters, summed when read */
struct htmpfs_events {
	long n[HTMPFS_NR_STATS];
};

/* Levels kept exact per mount, for the limits (space.c) */
enum htmpfs_level {
	HTMPFS_LEVEL_INODES,	/* inodes in use */
	HTMPFS_LEVEL_ISPACE,	/* bytes of nr_inodes in use */
	HTMPFS_LEVEL_BLOCKS,	/* pages of size= in use */
	HTMPFS_LEVEL_HOLES,	/* pages of huge folios holding no data */
	HTMPFS_LEVEL_SWAPPED,	/* pages in swap */
	HTMPFS_NR_LEVELS
};

/**
 * struct htmpfs_sb_info - per-mount state
 * @opts: current mount options (huge= changes on remount)
 * @sb: the superblock, for statistics that walk its inodes
 * @next_ino: the last inode number given out
 * @limit_lock: makes a charge's check and add one step, against a remount
 *	changing the limit
 * @levels: what is in use, exactly
 * @events: event counters
 * @holes_lru: huge folios with holes, oldest first, per memcg and node
 * @holes_shrinker: frees them under memory pressure
 * @holes_migrate_max: a huge folio with at most this many pages of data has
 *	them moved out and is freed whole; one with more is split
 * @iputs: inodes whose last reference reclaim or a walk left to
 * @iput_work: a worker, so as not to evict them there (walk.c)
 * @kobj: the mount's directory in /sys/fs/hugetmpfs
 * @kobj_released: completed when sysfs has let go of @kobj
 * @mpol_lock: guards @mpol against a remount
 * @mpol: mpol=, the policy new files start with (NULL: default)
 * @collapse_enabled: the collapse thread works on this mount
 * @collapse_max_holes: it collapses ranges with at most this many holes
 * @collapse_defrag: it reclaims and compacts for a huge page
 * @large_fallback: without a huge folio, try large ones before a page
 * @scan_busy: files of this mount the thread holds (scan.c's lock)
 * @scan_stopping: unmounting: none may be queued or taken (ditto)
 */
struct htmpfs_sb_info {
	struct htmpfs_options opts;
	struct super_block *sb;
	atomic64_t next_ino;
	spinlock_t limit_lock;		/* a charge against a remount */
	atomic_long_t levels[HTMPFS_NR_LEVELS];
	struct htmpfs_events __percpu *events;
	struct list_lru holes_lru;
	struct shrinker *holes_shrinker;
	unsigned int holes_migrate_max;
	struct llist_head iputs;
	struct work_struct iput_work;
	struct kobject kobj;
	struct completion kobj_released;
	spinlock_t mpol_lock;		/* @mpol */
	struct mempolicy *mpol;
	unsigned int collapse_enabled;
	unsigned int collapse_max_holes;
	unsigned int collapse_defrag;
	unsigned int large_fallback;
	unsigned int scan_busy;
	bool scan_stopping;
};

static inline struct htmpfs_sb_info *HTMPFS_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

/**
 * struct htmpfs_inode_info - a hugetmpfs inode
 * @lock: protects @alloced and @swapped
 * @alloced: pages of the mount's space this file is charged for; the page
 *	cache may already have freed some (see htmpfs_recalc())
 * @swapped: of those, pages in swap (swap.c)
 * @swap_errors: pages that could not be read back from swap: their slots
 *	hold a poisoned entry, which reads EIO until truncated (swap.c)
 * @xattr_space: bytes of nr_inodes its extended attributes are charged for
 * @policy: its NUMA policy, per range (mpol.c)
 * @dquot: its quotas' dquots (quota.c)
 * @holes: records of its huge folios' holes, by 2 MiB range (holes.c);
 *	its lock guards @holes_gen and @holes_mapped_w too
 * @holes_gen: generation of the last record made
 * @holes_mapped_w: the file has been mapped shared and writable
 * @iput_node: on the mount's iputs
 * @fsflags: FS_*_FL, under the inode lock
 * @crtime: birth time
 * @huge: its own huge-folio policy (enum htmpfs_huge), or
 *	HTMPFS_HUGE_INHERIT: its mount's
 * @scan_entry: on the collapse thread's queue (scan.c)
 * @scan_next: where the thread goes on in it
 * @scan_pass: the thread's pass that left it for the next one (its cgroup
 *	was full, or a range was busy)
 * @scan_missed: a range was busy in the sweep under way
 * @scan_retries: sweeps done again for busy ranges since it was queued
 * @huge_advised: faulted through a MADV_HUGEPAGE mapping (mmap.c)
 * @xattrs: extended attributes
 * @dir_offsets: for a directory, readdir positions that stay put while
 *	entries come and go
 * @vfs_inode: the VFS inode
 */
struct htmpfs_inode_info {
	spinlock_t lock;	/* @alloced, @swapped */
	long alloced;
	long swapped;
	long swap_errors;
	long xattr_space;
	struct shared_policy policy;
#ifdef CONFIG_QUOTA
	struct dquot __rcu *dquot[MAXQUOTAS];
#endif
	struct xarray holes;
	unsigned int holes_gen;
	bool holes_mapped_w;
	struct llist_node iput_node;
	unsigned int fsflags;
	struct timespec64 crtime;
	int huge;
	struct list_head scan_entry;
	pgoff_t scan_next;
	unsigned long scan_pass;
	bool scan_missed;
	unsigned int scan_retries;
	bool huge_advised;
	struct simple_xattrs xattrs;
	struct offset_ctx dir_offsets;
	struct inode vfs_inode;
};

static inline struct htmpfs_inode_info *HTMPFS_I(struct inode *inode)
{
	return container_of(inode, struct htmpfs_inode_info, vfs_inode);
}

/* The invariant above, for VM_WARN_ON_FOLIO() */
static inline bool htmpfs_folio_safe(struct folio *folio)
{
	return folio_test_dirty(folio) && folio_test_swapbacked(folio);
}

/* Does the folio hold a page with a memory error? */
static inline bool htmpfs_folio_poisoned(struct folio *folio)
{
	return folio_test_hwpoison(folio) ||
	       (folio_test_large(folio) && folio_test_has_hwpoisoned(folio));
}

extern const struct export_operations htmpfs_export_ops;
extern const struct inode_operations htmpfs_dir_inode_ops;
extern const struct inode_operations htmpfs_file_inode_ops;
extern const struct inode_operations htmpfs_symlink_inode_ops;
extern const struct inode_operations htmpfs_special_inode_ops;
extern const struct file_operations htmpfs_file_ops;
extern const struct address_space_operations htmpfs_aops;
extern const struct xattr_handler * const htmpfs_xattr_handlers[];

/* inode.c */
int htmpfs_inode_cache_init(void);
void htmpfs_inode_cache_destroy(void);
struct inode *htmpfs_alloc_inode(struct super_block *sb);
void htmpfs_free_inode(struct inode *inode);
void htmpfs_evict_inode(struct inode *inode);
int htmpfs_reserve_inode(struct super_block *sb);
void htmpfs_unreserve_inode(struct super_block *sb);
struct inode *htmpfs_new_inode(struct super_block *sb, struct mnt_idmap *idmap,
			       const struct inode *dir, umode_t mode, dev_t dev);
int htmpfs_setattr(struct mnt_idmap *idmap, struct dentry *dentry,
		   struct iattr *attr);
int htmpfs_getattr(struct mnt_idmap *idmap, const struct path *path,
		   struct kstat *stat, u32 request_mask, unsigned int flags);

/* namei.c */
struct offset_ctx *htmpfs_offset_ctx(struct inode *dir);

/* xattr.c */
long htmpfs_xattr_space(const char *name, size_t size);
int htmpfs_init_security(struct inode *inode, struct inode *dir,
			 const struct qstr *qstr);
ssize_t htmpfs_listxattr(struct dentry *dentry, char *buffer, size_t size);

/* mmap.c */
int htmpfs_mmap(struct file *file, struct vm_area_struct *vma);

/* policy.c: a leaf, which calls no other file of the module */
bool htmpfs_huge_allowed(struct inode *inode, pgoff_t index, loff_t write_end,
			 struct vm_area_struct *vma);
bool htmpfs_huge_denied(void);
enum htmpfs_huge htmpfs_file_huge(struct inode *inode);
bool htmpfs_huge_from_user(u32 val, int *huge);
u32 htmpfs_huge_to_user(int huge);
int htmpfs_override_set(const char *val);
int htmpfs_override_show(char *buf);

/* truncate.c */
void htmpfs_punch(struct inode *inode, loff_t start, loff_t end);
void htmpfs_truncate(struct inode *inode, loff_t size);

/* ioctl.c */
long htmpfs_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* alloc.c */

/* What htmpfs_get_folio() does with a hole */
enum htmpfs_fill {
	HTMPFS_FILL_NONE,	/* report it: return NULL */
	HTMPFS_FILL_ZERO,	/* fill it with a zeroed, uptodate folio */
	/*
	 * The same with a small folio, whatever the policy: a reservation
	 * of part of a 2 MiB range, that a huge folio would pad with holes.
	 */
	HTMPFS_FILL_ZERO_SMALL,
	/*
	 * Fill it with a folio that is neither zeroed nor uptodate, for a
	 * write that overwrites it: the caller must zero what it did not
	 * write and mark it uptodate before unlocking it (htmpfs_write_end()).
	 * Lockless readers take a folio that is not uptodate for a hole.
	 */
	HTMPFS_FILL_WRITE,
};

struct folio *htmpfs_get_folio(struct inode *inode, pgoff_t index,
			       loff_t write_end, struct vm_area_struct *vma,
			       enum htmpfs_fill fill);

/* holes.c (holes.h has what shrink.c needs besides) */
struct htmpfs_holes;
int htmpfs_holes_init(void);
void htmpfs_holes_exit(void);
struct htmpfs_holes *htmpfs_holes_new(struct inode *inode, struct folio *folio);
int htmpfs_holes_add(struct inode *inode, struct folio *folio,
		     struct htmpfs_holes *h);
void htmpfs_holes_free_new(struct htmpfs_holes *h);
void htmpfs_holes_fill(struct inode *inode, struct folio *folio, loff_t start,
		       loff_t end);
void htmpfs_holes_mmap(struct vm_area_struct *vma);
void htmpfs_holes_evict(struct inode *inode);
pgoff_t htmpfs_holes_next_data(struct inode *inode, pgoff_t index);
pgoff_t htmpfs_holes_next_hole(struct inode *inode, pgoff_t index,
			       pgoff_t last);
long htmpfs_holes_pages(struct inode *inode);
bool htmpfs_holes_is_hole(struct inode *inode, struct folio *folio,
			  pgoff_t index, bool scan);
void htmpfs_holes_dropped(struct inode *inode, pgoff_t index);
void htmpfs_holes_present(struct inode *inode, struct folio *folio);
bool htmpfs_holes_any(struct inode *inode, struct folio *folio);

/* mpol.c: NUMA placement (without CONFIG_NUMA, folios come from anywhere) */
#ifdef CONFIG_NUMA
int htmpfs_mpol_parse(const char *value, struct mempolicy **mpol);
void htmpfs_mpol_set_sb(struct htmpfs_sb_info *sbi, struct mempolicy *mpol);
void htmpfs_mpol_show(struct seq_file *m, struct htmpfs_sb_info *sbi);
void htmpfs_mpol_inode_init(struct inode *inode, bool file);
void htmpfs_mpol_evict(struct inode *inode);
struct folio *htmpfs_mpol_alloc(struct inode *inode, gfp_t gfp,
				unsigned int order, pgoff_t index);
struct mempolicy *htmpfs_mpol_at(struct inode *inode, pgoff_t index,
				 unsigned int order, pgoff_t *ilx);
int htmpfs_set_policy(struct vm_area_struct *vma, struct mempolicy *mpol);
struct mempolicy *htmpfs_get_policy(struct vm_area_struct *vma,
				    unsigned long addr, pgoff_t *ilx);
#else
static inline int htmpfs_mpol_parse(const char *value, struct mempolicy **mpol)
{
	return -EINVAL;
}

static inline void htmpfs_mpol_set_sb(struct htmpfs_sb_info *sbi,
				      struct mempolicy *mpol)
{
}

static inline void htmpfs_mpol_show(struct seq_file *m,
				    struct htmpfs_sb_info *sbi)
{
}

static inline void htmpfs_mpol_inode_init(struct inode *inode, bool file)
{
}

static inline void htmpfs_mpol_evict(struct inode *inode)
{
}

static inline struct folio *htmpfs_mpol_alloc(struct inode *inode, gfp_t gfp,
					      unsigned int order,
					      pgoff_t index)
{
	return folio_alloc(gfp, order);
}

static inline struct mempolicy *htmpfs_mpol_at(struct inode *inode,
					       pgoff_t index,
					       unsigned int order,
					       pgoff_t *ilx)
{
	*ilx = 0;
	return NULL;
}
#endif

/* quota.c: quotas (without CONFIG_QUOTA, the quota options are refused) */
#define HTMPFS_QUOTA_MAX	0x7fffffffffffffffLL	/* bytes or inodes */
#ifdef CONFIG_QUOTA
extern const struct dquot_operations htmpfs_dquot_ops;
void htmpfs_quota_init(void);
void htmpfs_quota_exit(void);
int htmpfs_quota_mount(struct super_block *sb);
void htmpfs_quota_unmount(struct super_block *sb);
struct dquot __rcu **htmpfs_get_dquots(struct inode *inode);
#else
static inline void htmpfs_quota_init(void)
{
}

static inline void htmpfs_quota_exit(void)
{
}

static inline int htmpfs_quota_mount(struct super_block *sb)
{
	return 0;
}

static inline void htmpfs_quota_unmount(struct super_block *sb)
{
}
#endif

/* shrink.c */
int htmpfs_holes_mount(struct htmpfs_sb_info *sbi);
void htmpfs_holes_unmount(struct htmpfs_sb_info *sbi);
void htmpfs_holes_destroy(struct htmpfs_sb_info *sbi);
void htmpfs_holes_punched(struct inode *inode, loff_t lo, loff_t hi);
void htmpfs_holes_release(struct inode *inode);
long htmpfs_holes_reclaim(struct htmpfs_sb_info *sbi, struct mem_cgroup *memcg,
			  long pages);

/* collapse.c */

/* What became of a 2 MiB range that was to be collapsed */
enum htmpfs_collapse {
	HTMPFS_COLLAPSED,		/* one PMD-sized folio now */
	HTMPFS_COLLAPSE_HUGE,		/* already was */
	HTMPFS_COLLAPSE_EMPTY,		/* all hole, or past EOF: nothing to do */
	HTMPFS_COLLAPSE_SPARSE,		/* more holes than allowed */
	HTMPFS_COLLAPSE_BUSY,		/* pinned, locked, under I/O, poisoned */
	HTMPFS_COLLAPSE_NOMEM,		/* no huge page to be had */
	HTMPFS_COLLAPSE_CHARGE,		/* the data's memory cgroup is full */
	HTMPFS_COLLAPSE_NOSPACE,	/* the holes would pass size= or quota */
};

enum htmpfs_collapse htmpfs_collapse(struct inode *inode, pgoff_t index,
				     unsigned int max_holes, gfp_t gfp);

/* scan.c */
#define HTMPFS_COLLAPSE_MAX_HOLES	64	/* default of collapse_max_holes */
#define HTMPFS_SCAN_RETRIES		10	/* sweeps again for busy ranges */
int htmpfs_scan_init(void);
void htmpfs_scan_exit(void);
void htmpfs_scan_queue(struct inode *inode);
void htmpfs_scan_queue_sb(struct super_block *sb);
void htmpfs_scan_forget(struct inode *inode);
void htmpfs_scan_unmount(struct htmpfs_sb_info *sbi);

/* walk.c */
void htmpfs_iputs_init(struct htmpfs_sb_info *sbi);
void htmpfs_iputs_flush(struct htmpfs_sb_info *sbi);
void htmpfs_iput_deferred(struct inode *inode);
int htmpfs_walk_inodes(struct super_block *sb, bool (*want)(struct inode *),
		       int (*fn)(struct inode *, void *), void *arg);

/* cache.c */
int htmpfs_add_to_cache(struct address_space *mapping, struct folio *folio,
			pgoff_t index, void *expected);
void htmpfs_cache_to_swap(struct folio *folio);

/* Does anything, a folio or a swap entry, fill a slot of [@first, @last]? */
static inline bool htmpfs_range_used(struct address_space *mapping,
				     pgoff_t first, pgoff_t last)
{
	unsigned long index = first;

	return !!xa_find(&mapping->i_pages, &index, last, XA_PRESENT);
}

/* swap.c (without CONFIG_SWAP, no slot ever holds a swap entry) */
#ifdef CONFIG_SWAP
int htmpfs_swap_init(struct file_system_type *fs_type);
void htmpfs_swap_exit(void);
int htmpfs_writepage(struct page *page, struct writeback_control *wbc);
struct folio *htmpfs_swapin(struct inode *inode, pgoff_t index, void *entry);
void htmpfs_swap_free(struct inode *inode, pgoff_t first, pgoff_t last);
#else
static inline int htmpfs_swap_init(struct file_system_type *fs_type)
{
	return 0;
}

static inline void htmpfs_swap_exit(void)
{
}

static inline struct folio *htmpfs_swapin(struct inode *inode, pgoff_t index,
					  void *entry)
{
	return ERR_PTR(-EIO);
}

static inline void htmpfs_swap_free(struct inode *inode, pgoff_t first,
				    pgoff_t last)
{
}
#endif

/* attr.c */
void htmpfs_inherit_flags(struct inode *inode, const struct inode *dir);
int htmpfs_fileattr_get(struct dentry *dentry, struct fileattr *fa);
int htmpfs_fileattr_set(struct mnt_idmap *idmap, struct dentry *dentry,
			struct fileattr *fa);
void htmpfs_fill_statx_attrs(struct inode *inode, struct kstat *stat);

/* space.c */
void htmpfs_level_add(struct htmpfs_sb_info *sbi, enum htmpfs_level level,
		      long delta);
long htmpfs_level_total(enum htmpfs_level level);
bool htmpfs_space_charge(struct htmpfs_sb_info *sbi, enum htmpfs_level level,
			 long delta);
int htmpfs_charge_blocks(struct inode *inode, long pages);
void htmpfs_uncharge_blocks(struct inode *inode, long pages);
void htmpfs_record(struct inode *inode, long pages);
void htmpfs_recalc(struct inode *inode);
int htmpfs_space_set_limits(struct htmpfs_sb_info *sbi, struct fs_context *fc,
			    long max_blocks, long max_inodes);

static inline long htmpfs_level(struct htmpfs_sb_info *sbi,
				enum htmpfs_level level)
{
	return atomic_long_read(&sbi->levels[level]);
}

/* stats.c */
DECLARE_PER_CPU(struct htmpfs_events, htmpfs_event_totals);

/* Count @n events of @stat on a mount and in the module's total. */
static inline void htmpfs_count_add(struct htmpfs_sb_info *sbi,
				    enum htmpfs_stat stat, long n)
{
	this_cpu_add(sbi->events->n[stat], n);
	this_cpu_add(htmpfs_event_totals.n[stat], n);
}

static inline void htmpfs_count(struct htmpfs_sb_info *sbi,
				enum htmpfs_stat stat)
{
	htmpfs_count_add(sbi, stat, 1);
}

/* What a walk over page cache finds */
struct htmpfs_usage {
	long huge;		/* PMD-sized folios */
	long pmd_mapped;	/* of those, mapped by a PMD somewhere */
	long large;		/* large folios, between a page and PMD size */
	long large_pages;	/* pages in those */
	long small;		/* single pages */
};

const char *htmpfs_huge_name(enum htmpfs_huge huge);
void htmpfs_usage_inode(struct inode *inode, struct htmpfs_usage *u);
int htmpfs_sysfs_add_sb(struct super_block *sb);
void htmpfs_sysfs_del_sb(struct htmpfs_sb_info *sbi);
int htmpfs_sysfs_init(void);
void htmpfs_sysfs_exit(void);

#endif /* _HUGETMPFS_INTERNAL_H */
