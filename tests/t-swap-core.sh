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
	rm -f $out_file
	rmdir $cg 2>/dev/null
	echo "$was" >$lru
}
trap restore EXIT
zram_on 256M || exit 2
mkdir -p $m $cg
sum=$(seed_md5 12 $mb)
ops="drop-caches-1 drop-caches-3 fadvise-dontneed fadvise-willneed mincore
cachestat pageout cold move-pages migrate-pages reclaim-lru-gen-y
reclaim-lru-gen-n"
ops=$(echo $ops)
ran=""
out_file=/tmp/t-swap-core.$$
for fs in hugetmpfs tmpfs; do
	mount -t $fs -o huge=always none $m || exit 2
	in_cgroup $cg dd if="$(seed 12 $mb)" of=$m/f bs=2M status=none
	in_cgroup $cg "$HT_TESTS/swap-core.py" $cg $m/f $ops >$out_file
	while IFS='|' read -r op before rc out got; do
		echo "$fs $op: $before KiB in swap before; $out"
		check "$fs $op: some of f was in swap ($before KiB)" test "$before" -gt 0
		check "$fs $op: it ran ($out)" test "$rc" = 0
		check "$fs $op: f reads back" test "$got" = "$sum"
		ran+=" $op"
	done <$out_file
	check "$fs: every operation ran" test "$ran" = " $ops"
	ran=""
	echo "$was" >$lru
	rm $m/f
	umount $m
done
done_checks t-swap-core
