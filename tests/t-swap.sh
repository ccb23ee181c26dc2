#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Swap. With a zram swap device, files of 16 MiB written from a memory
# cgroup limited to 8 MiB go partly to swap, with huge folios and with
# small pages, and read back byte for byte by read() and through a mapping;
# st_blocks and size= keep counting what is in swap. Huge folios go to swap
# whole, unless they hold holes. A MAP_PRIVATE copy stays private (pages
# reclaimed while mapped: t-lrugen.sh).
# SEEK_DATA/SEEK_HOLE see swapped data as data. Truncate, hole punch and
# unlink give the swap back, also where they cut a huge folio that is in
# swap whole. memory.swap.max=0 keeps pages in memory, and so does the
# noswap mount option. swapoff brings every page back, intact; umount gives
# the swap back. tmpfs in the same boot, the same way, for comparison.
# timeout: 1200
set -u
. "$(dirname "$0")/lib.sh"
root=/sys/fs/cgroup
cg=$root/t-swap
m=/mnt/t-swap
zram=/sys/block/zram0
mb=16

[ -e $zram ] || { echo "no zram device (CONFIG_ZRAM)"; exit 77; }
grep -qw memory $root/cgroup.controllers || { echo "no memory controller"; exit 2; }
echo +memory >$root/cgroup.subtree_control || exit 2

restore() {
	umount $m $m-tmpfs $m-noswap 2>/dev/null
	swapoff /dev/zram0 2>/dev/null
	echo 1 >$zram/reset
	rmdir $cg 2>/dev/null
}
trap restore EXIT

# KiB of the zram device in use, as /proc/swaps says
swap_used() {
	local dev _type _size used _prio
	while read -r dev _type _size used _prio; do
		[ "$dev" = /dev/zram0 ] && echo "$used"
	done </proc/swaps
}
# run CMD... in the cgroup
in_cg() { in_cgroup "$cg" "$@"; }
# write_in_cg FILE SEED: write seed SEED to FILE from the cgroup, in 2 MiB
# writes (within_size gives an appending writer huge folios); print its MD5
write_in_cg() {
	in_cg dd if="$(seed "$2" $mb)" of="$1" bs=2M status=none
	seed_md5 "$2" $mb
}

echo 512M >$zram/disksize || exit 2
mkswap /dev/zram0 >/dev/null || exit 2
swapon /dev/zram0 || exit 2
mkdir -p $m $m-tmpfs
mkdir $cg || exit 2
echo $((mb / 2))M >$cg/memory.max
mount -t hugetmpfs -o huge=always none $m || exit 2
sys=/sys/fs/hugetmpfs/$(mountpoint -d $m)
stat0() { echo "$(<$sys/$1)"; }

# 1. Huge folios and small pages: write from the cgroup, read back from
# outside it. (within_size makes huge folios of these appends as always
# does; the soak, soak-swap.sh, runs it too.)
for mode in always never; do
	mount -o remount,huge=$mode $m || exit 2
	out0=$(stat0 swap_out) in0=$(stat0 swap_in)
	sum=$(write_in_cg $m/f 1)
	out=$(($(stat0 swap_out) - out0))
	echo "$mode: $out pages to swap, $(stat0 swap_bytes) bytes there;" \
		"zram $(swap_used) KiB"
	check "$mode: pages went to swap" test $out -gt $((mb * 256 / 4))
	check "$mode: swap_bytes counts them" test "$(stat0 swap_bytes)" -gt 0
	check "$mode: /proc/swaps counts them" test "$(swap_used)" -gt $((mb * 1024 / 4))
	check "$mode: st_blocks counts swap" \
		test "$(stat -c %b $m/f)" -eq $((mb * 2048))
	check "$mode: so does size= (df)" \
		test "$(df -k --output=used $m | tail -n1)" -ge $((mb * 1024))
	check "$mode: reads back" test "$(md5 $m/f)" = "$sum"
	check "$mode: it came back from swap" test "$(stat0 swap_in)" -gt "$in0"
	rm $m/f
	check "$mode: unlink frees its swap" test "$(stat0 swap_bytes)" = 0
done

# 2. Huge folios and mappings, under huge=always. Written without a limit,
# so that it has huge folios, f is then pushed out by memory.reclaim.
mount -o remount,huge=always $m || exit 2
echo max >$cg/memory.max
sum=$(write_in_cg $m/f 2)
check "written in huge folios ($(huge_folios $m/f))" \
	test "$(huge_folios $m/f)" -gt 0
whole0=$(stat0 swap_out_whole) splits0=$(stat0 swap_splits)
echo $((mb / 2))M >$cg/memory.reclaim
check "reclaim swaps huge folios out whole ($(stat0 swap_out_whole))" \
	test "$(stat0 swap_out_whole)" -gt "$whole0"
# A huge folio with holes is split, its pages swapped one by one.
in_cg dd if="$(seed 8 1)" of=$m/h bs=1M status=none
hsum=$(seed_md5 8 1)
check "h: one huge folio, half of it holes" test_huge $m/h 1
echo $((mb * 2))M >$cg/memory.reclaim 2>/dev/null
check "a huge folio with holes is split to swap ($(stat0 swap_splits))" \
	test "$(stat0 swap_splits)" -gt "$splits0"
check "h reads back" test "$(md5 $m/h)" = "$hsum"
rm $m/h
# SEEK_DATA/SEEK_HOLE with most of f in swap
seek=$(python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
print(os.lseek(fd, 0, os.SEEK_DATA), os.lseek(fd, 0, os.SEEK_HOLE))' $m/f)
check "seek: swapped data is data ($seek, $(stat0 swap_bytes) bytes in swap)" \
	test "$seek" = "0 $((mb << 20))"
# Without a limit a process may map it all: memory.reclaim is the pressure.
check "mmap: reads back through a mapping" test "$(mmap_md5 $cg $m/f)" = "$sum"
# (A process's mapped pages reclaimed while it maps them, and read back
# through its mapping: t-lrugen.sh, with the multi-gen LRU on and off.)
# MAP_PRIVATE: a write makes a private copy, the file stays.
echo $((mb / 2))M >$cg/memory.reclaim
priv=$(in_cg python3 -c 'import mmap, sys
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, flags=mmap.MAP_PRIVATE,
              prot=mmap.PROT_READ | mmap.PROT_WRITE)
m[4096:4100] = b"priv"
print(m[4096:4100].decode())' $m/f)
check "MAP_PRIVATE: the copy is written" test "$priv" = priv
check "MAP_PRIVATE: the file is not" test "$(md5 $m/f)" = "$sum"

# 3. Truncate and punch give swap back, also where they cut in two a huge
# folio that is in swap whole. g is written in huge folios, then pushed
# out: the punch from 9 to 15 MiB and the truncate to 7 MiB + 12 KiB cut
# the 2 MiB ranges at 8, 14 and 6 MiB.
rm $m/f
in_cg dd if="$(seed 7 $mb)" of=$m/f bs=2M status=none
whole0=$(stat0 swap_out_whole)
echo $((mb * 2))M >$cg/memory.reclaim 2>/dev/null
check "g: huge folios in swap whole" \
	test "$(stat0 swap_out_whole)" -gt "$whole0"
before=$(stat0 swap_bytes)
in_cg fallocate -p -o $((9 << 20)) -l $((6 << 20)) $m/f
after=$(stat0 swap_bytes)
check "punch: frees swap ($before -> $after bytes)" test "$after" -lt "$before"
punched=$({ head -c $((9 << 20)) "$(seed 7 $mb)"
	head -c $((6 << 20)) /dev/zero
	tail -c +$(((15 << 20) + 1)) "$(seed 7 $mb)"; } | md5)
check "punch: the range reads as zeroes, the rest as written" \
	test "$(md5 $m/f)" = "$punched"
echo $((mb * 2))M >$cg/memory.reclaim 2>/dev/null
size=$(((7 << 20) + 12288))
truncate -s $size $m/f
check "truncate: frees swap ($(stat0 swap_bytes) bytes left)" \
	test "$(stat0 swap_bytes)" -lt "$after"
left=$(head -c $size "$(seed 7 $mb)" | md5)
check "truncate: what is left reads as written" test "$(md5 $m/f)" = "$left"
rm $m/f
check "unlink: no swap left ($(stat0 swap_bytes) bytes)" \
	test "$(stat0 swap_bytes)" = 0
# The swap slot caches keep a few slots each: well under 2 MiB.
check "unlink: /proc/swaps gives it back ($(swap_used) KiB)" \
	test "$(swap_used)" -lt 2048

# 4. memory.swap.max=0: nothing goes to swap, nothing is lost.
echo 0 >$cg/memory.swap.max
echo max >$cg/memory.max
sum=$(write_in_cg $m/f 3)
out0=$(stat0 swap_out)
echo $((mb / 2))M >$cg/memory.reclaim 2>/dev/null
check "swap.max=0: nothing went to swap" test "$(stat0 swap_out)" = "$out0"
echo max >$cg/memory.swap.max
echo $((mb / 2))M >$cg/memory.reclaim
check "swap.max lifted: reclaim swaps" test "$(stat0 swap_out)" -gt "$out0" ||
	echo "$(grep -E "^(shmem|active_anon|inactive_anon|unevictable) " \
		$cg/memory.stat | tr '\n' ' ') swap.current" \
		"$(cat $cg/memory.swap.current); $(tail -n1 /proc/swaps)"
check "swap.max: reads back" test "$(md5 $m/f)" = "$sum"

# 4b. noswap: a mount's files stay in memory; it is set when mounting only.
mkdir -p $m-noswap
mount -t hugetmpfs -o noswap none $m-noswap || exit 2
check "noswap: shown in the options" grep -q "$m-noswap hugetmpfs .*noswap" /proc/mounts
check "noswap: a remount cannot add it to another mount" \
	bash -c "! mount -o remount,noswap $m 2>/dev/null"
in_cg dd if="$(seed 5 $mb)" of=$m-noswap/f bs=2M status=none
nsum=$(seed_md5 5 $mb)
nsys=/sys/fs/hugetmpfs/$(mountpoint -d $m-noswap)
echo $((mb * 2))M >$cg/memory.reclaim 2>/dev/null
check "noswap: nothing went to swap" test "$(cat $nsys/swap_out)" = 0
check "noswap: reads back" test "$(md5 $m-noswap/f)" = "$nsum"
umount $m-noswap

# 5. swapoff brings everything back.
check "swapoff: pages in swap first" test "$(stat0 swap_bytes)" -gt 0
in0=$(stat0 swap_in)
check "swapoff completes" swapoff /dev/zram0
check "swapoff: nothing left in swap" test "$(stat0 swap_bytes)" = 0
check "swapoff: the pages came back" test "$(stat0 swap_in)" -gt "$in0"
check "swapoff: reads back" test "$(md5 $m/f)" = "$sum"
rm $m/f
umount $m
echo $((mb / 2))M >$cg/memory.max
swapon /dev/zram0 || exit 2

# 5b. umount with pages in swap gives the swap back.
mount -t hugetmpfs none $m || exit 2
write_in_cg $m/f 6 >/dev/null
used=$(swap_used)
check "umount: pages in swap first ($used KiB)" test "$used" -gt $((mb * 1024 / 4))
umount $m
check "umount: /proc/swaps gives it back ($(swap_used) KiB)" \
	test "$(swap_used)" -lt 2048

# 6. tmpfs, the same way.
mount -t tmpfs -o huge=always none $m-tmpfs || exit 2
used0=$(swap_used)
sum=$(write_in_cg $m-tmpfs/f 4)
check "tmpfs: pages went to swap ($(swap_used) KiB)" \
	test "$(swap_used)" -gt $((used0 + mb * 1024 / 4))
check "tmpfs: reads back" test "$(md5 $m-tmpfs/f)" = "$sum"
echo $((mb * 2))M >$cg/memory.reclaim 2>/dev/null
echo max >$cg/memory.max
check "tmpfs: through a mapping" test "$(mmap_md5 $cg $m-tmpfs/f)" = "$sum"
rm $m-tmpfs/f
check "tmpfs: unlink gives swap back ($(swap_used) KiB)" \
	test "$(swap_used)" -lt 2048
umount $m-tmpfs
check "tmpfs: swapoff" swapoff /dev/zram0
check "nothing OOM-killed" grep -qx "oom_kill 0" $cg/memory.events
done_checks t-swap
