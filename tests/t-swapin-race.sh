#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A page coming back from swap is not a hole. read(2) and truncate's
# partial-page zeroing look up a page, find its swap entry, and look again
# to tell a hole from a page in swap: if another task brought the page back
# in between, the second look finds a folio, which once read as a hole
# (zeroes). Four readers read a file in zram swap page by page, in the same
# order, so that they meet on pages being swapped in; every page must read
# as the generator wrote it, round after round. Then truncate: the file in
# swap is cut 100 bytes into a page while readers read that page, from the
# last page down, and grown again: the tail of that page must be zeroes
# (tmpfs and hugetmpfs zero it; taking the page for a hole left it as it
# was). The same on tmpfs.
# timeout: 600
set -u
. "$(dirname "$0")/lib.sh"
root=/sys/fs/cgroup
cg=$root/t-swapin-race
m=/mnt/t-swapin-race
zram=/sys/block/zram0
cluster=/proc/sys/vm/page-cluster
mb=4

[ -e $zram ] || { echo "no zram device (CONFIG_ZRAM)"; exit 2; }
grep -qw memory $root/cgroup.controllers || { echo "no memory controller"; exit 2; }
echo +memory >$root/cgroup.subtree_control || exit 2
was=$(<$cluster)
trap 'umount $m 2>/dev/null; zram_off; rmdir $cg 2>/dev/null
	echo $was >$cluster' EXIT
zram_off 2>/dev/null	# what a test cut short may have left
zram_on 256M || exit 2
# No readahead: each reader swaps in the page it meets, one at a time.
echo 0 >$cluster
mkdir -p $m $cg
src=$(seed 21 $mb)

for fs in hugetmpfs tmpfs; do
	mount -t $fs -o huge=never none $m || exit 2
	in_cgroup $cg dd if="$src" of=$m/f bs=1M status=none
	in_cgroup $cg "$HT_TESTS/swapin-race" -p 4 -r 4 $cg $m/f "$src"
	rc=$?
	check "$fs: the file went to swap before most rounds" test $rc != 3
	check "$fs: every reader read every page as written" test $rc = 0
	check "$fs: f reads back" test "$(md5 $m/f)" = "$(seed_md5 21 $mb)"
	in_cgroup $cg dd if="$src" of=$m/f bs=1M status=none
	# -r 3: up to three tries at getting the file into swap first
	in_cgroup $cg "$HT_TESTS/swapin-race" -T -p 2 -r 3 $cg $m/f "$src"
	rc=$?
	check "$fs: cut: the file went to swap first" test $rc != 3
	check "$fs: cut: each page cut while read has a zeroed tail" test $rc = 0
	rm $m/f
	umount $m
done
done_checks t-swapin-race
