#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Swap against core mm (issue 38): with most of a file in zram swap, every
# core path that treats page cache as droppable or looks into it runs on
# it, and the file must read back byte for byte from the generator after
# each: drop_caches 1 and 3, posix_fadvise DONTNEED and WILLNEED, mincore
# (some pages not resident), cachestat (resident and evicted pages add up
# to the file, some evicted), MADV_PAGEOUT and MADV_COLD through a mapping,
# move_pages(2) and migrate_pages(2) between the two nodes, and
# memory.reclaim with the multi-gen LRU on and off. On hugetmpfs
# (huge=always) and on tmpfs (huge=always), the same way.
# timeout: 900
set -u
. "$(dirname "$0")/lib.sh"
root=/sys/fs/cgroup
cg=$root/t-swap-core
m=/mnt/t-swap-core
zram=/sys/block/zram0
lru=/sys/kernel/mm/lru_gen/enabled
mb=4

[ -e $zram ] || { echo "no zram device (CONFIG_ZRAM)"; exit 77; }
[ -e /sys/devices/system/node/node1 ] || { echo "one NUMA node only"; exit 77; }
[ -w $lru ] || { echo "no multi-gen LRU (CONFIG_LRU_GEN)"; exit 77; }
grep -qw memory $root/cgroup.controllers || { echo "no memory controller"; exit 2; }
echo +memory >$root/cgroup.subtree_control || exit 2
was=$(<$lru)
restore() {
	umount $m 2>/dev/null
	zram_off
	rmdir $cg 2>/dev/null
	echo "$was" >$lru
}
trap restore EXIT
zram_on 256M || exit 2
mkdir -p $m $cg
sum=$(seed_md5 12 $mb)

# to_swap: push the cgroup's pages (f) to swap
to_swap() { echo $((mb * 2))M >$cg/memory.reclaim 2>/dev/null; }
# swapped: KiB of the cgroup in swap
swapped() { echo $(( $(<$cg/memory.swap.current) / 1024 )); }

for fs in hugetmpfs tmpfs; do
	mount -t $fs -o huge=always none $m || exit 2
	in_cgroup $cg dd if="$(seed 12 $mb)" of=$m/f bs=2M status=none
	for op in drop-caches-1 drop-caches-3 fadvise-dontneed \
		  fadvise-willneed mincore cachestat pageout cold move-pages \
		  migrate-pages reclaim-lru-gen-y reclaim-lru-gen-n; do
		# The reclaim ops' reclaim is to_swap's, with lru_gen set first.
		[[ $op = reclaim-lru-gen-* ]] && echo "${op##*-}" >$lru
		to_swap
		before=$(swapped)
		case $op in
		drop-caches-*) echo "${op##*-}" >/proc/sys/vm/drop_caches; out="" ;;
		reclaim-lru-gen-*) out="lru_gen $(<$lru)" ;;
		*) out=$(in_cgroup $cg "$HT_TESTS/swap-core.py" $op $m/f) ;;
		esac
		rc=$?
		echo "$fs $op: $before KiB in swap before; $out"
		check "$fs $op: some of f was in swap ($before KiB)" test "$before" -gt 0
		check "$fs $op: it ran ($out)" test $rc = 0
		check "$fs $op: f reads back" test "$(md5 $m/f)" = "$sum"
	done
	echo "$was" >$lru
	rm $m/f
	umount $m
done
done_checks t-swap-core
