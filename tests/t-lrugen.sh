#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reclaim of a mapped file, with the multi-gen LRU on (as Debian's kernels
# have it) and off, on hugetmpfs and on tmpfs (issue 37). A process of a
# memory cgroup maps a file written from the generator and reads every page;
# memory.reclaim pushes the file to zram swap while it is mapped (MGLRU's
# page-table walk skipped hugetmpfs's VMAs, which are not shmem's, until the
# prerequisite's seventh part); the mapping and the file then read back
# every byte. /proc/PID/smaps counts the mapping's swap
# (the prerequisite teaches smaps hugetmpfs's swap entries, as tmpfs's).
# timeout: 600
set -u
. "$(dirname "$0")/lib.sh"
root=/sys/fs/cgroup
cg=$root/t-lrugen
m=/mnt/t-lrugen
zram=/sys/block/zram0
lru=/sys/kernel/mm/lru_gen/enabled
mb=4

[ -e $zram ] || { echo "no zram device (CONFIG_ZRAM)"; exit 2; }
[ -w $lru ] || { echo "no multi-gen LRU (CONFIG_LRU_GEN)"; exit 2; }
grep -qw memory $root/cgroup.controllers || { echo "no memory controller"; exit 2; }
echo +memory >$root/cgroup.subtree_control || exit 2
was=$(<$lru)
restore() {
	[ -n "${mapper:-}" ] && kill "$mapper" 2>/dev/null
	umount $m 2>/dev/null
	zram_off
	rmdir $cg 2>/dev/null
	echo "$was" >$lru
}
trap restore EXIT
zram_on 128M || exit 2
mkdir -p $m $cg
src=$(seed 11 $mb)
sum=$(seed_md5 11 $mb)

for gen in y n; do
	echo $gen >$lru || exit 2
	for fs in hugetmpfs tmpfs; do
		mount -t $fs -o huge=always none $m || exit 2
		in_cgroup $cg dd if="$src" of=$m/f bs=2M status=none
		t=$(mktemp -d)
		mkfifo $t/go
		in_cgroup $cg "$HT_TESTS/pmd-mapper.py" $m/f $t/go >$t/out &
		mapper=$!
		check "lru_gen=$gen $fs: f is mapped" wait_for 300 grep -q mapped $t/out
		# The file's swap, as smaps counts it in the mapping's Swap line
		pid=$(pgrep -f "pmd-mapper.py $m/f")
		file_swap_kb() {
			awk -v f="$m/f" '$6 == f { in_f = 1; next }
				/^[0-9a-f]+-[0-9a-f]+ / { in_f = 0 }
				in_f && $1 == "Swap:" { kb += $2 }
				END { print kb + 0 }' /proc/$pid/smaps
		}
		# Reclaim activates mapped pages it finds young before it
		# swaps them: passes more, as its heuristics need.
		reclaim() {
			echo $((mb * 2))M >$cg/memory.reclaim 2>/dev/null
			[ "$(file_swap_kb)" -gt $((mb * 1024 / 4)) ]
		}
		retry 8 reclaim
		kb=$(file_swap_kb)
		echo "lru_gen=$gen $fs: $kb kB of the mapped file in swap"
		check "lru_gen=$gen $fs: mapped pages went to swap, smaps says ($kb kB)" \
			test "$kb" -gt $((mb * 1024 / 4)) -a "$kb" -le $((mb * 1024))
		echo go >$t/go
		wait $mapper
		mapper=
		read -r digest _ <<<"$(tail -n1 $t/out)"
		rm -r $t
		check "lru_gen=$gen $fs: the mapping reads back" test "$digest" = "$sum"
		check "lru_gen=$gen $fs: the file reads back" test "$(md5 $m/f)" = "$sum"
		rm $m/f
		umount $m
	done
done
done_checks t-lrugen
