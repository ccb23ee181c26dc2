#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A page that cannot be read back from swap is lost, not the file, nor
# swapoff (issue 37, defect 6), the same on hugetmpfs as on tmpfs: its slot
# is poisoned, it reads EIO from then on (writes too) until punched or
# truncated, its swap is given back (and on hugetmpfs its space, which tmpfs
# keeps counting until the punch), swapoff completes, and every other page
# reads back. fail_make_request fails every read of the
# zram swap device while the file is read, or while swapoff runs;
# page-cluster 0 reads only the page asked for.
#
# Then truncate and hole punch race swapoff (defect 7: they look in the
# swap cache, which swapoff frees): a bounded number of rounds, each
# checked against the generator.
# timeout: 600
set -u
. "$(dirname "$0")/lib.sh"
root=/sys/fs/cgroup
cg=$root/t-swap-error
m=/mnt/t-swap-error
zram=/sys/block/zram0
fmr=/sys/kernel/debug/fail_make_request
pages=256

[ -e $zram ] || { echo "no zram device (CONFIG_ZRAM)"; exit 2; }
[ -w $fmr/probability ] || { echo "no fail_make_request (CONFIG_FAIL_MAKE_REQUEST)"; exit 2; }
grep -qw memory $root/cgroup.controllers || { echo "no memory controller"; exit 2; }
echo +memory >$root/cgroup.subtree_control || exit 2
cluster=$(</proc/sys/vm/page-cluster)
restore() {
	echo 0 >$fmr/probability
	echo 0 >$zram/make-it-fail 2>/dev/null
	echo "$cluster" >/proc/sys/vm/page-cluster
	umount $m 2>/dev/null
	zram_off
	rmdir $cg 2>/dev/null
}
trap restore EXIT
echo 0 >/proc/sys/vm/page-cluster
echo 0 >$fmr/verbose
echo 1 >$fmr/interval
echo -1 >$fmr/times
echo 100 >$fmr/probability
mkdir -p $m $cg
src=$(seed 6 1)

# readback FILE: for each page, "eio" or whether it matches the generator
readback() {
	python3 -c 'import os, sys
src = open(sys.argv[1], "rb").read()
fd = os.open(sys.argv[2], os.O_RDONLY)
eio = bad = 0
for p in range(len(src) // 4096):
    try:
        b = os.pread(fd, 4096, p * 4096)
    except OSError:
        eio += 1
        continue
    bad += b != src[p * 4096:(p + 1) * 4096]
print(eio, bad)' "$src" "$1"
}

# The errors met by reads first, then by swapoff itself.
for how in read swapoff; do
for fs in hugetmpfs tmpfs; do
	zram_on 128M || exit 2
	mount -t $fs -o huge=never none $m || exit 2
	in_cgroup $cg dd if="$src" of=$m/f bs=64k status=none
	echo 16M >$cg/memory.reclaim 2>/dev/null
	fs="$fs ($how)"
	echo 1 >$zram/make-it-fail
	if [ "$how" = read ]; then
		read -r eio bad <<<"$(readback $m/f)"
		echo 0 >$zram/make-it-fail
		echo "$fs: $eio of $pages pages could not be read back, $bad wrong"
		check "$fs: some pages were in swap, and failed" test "$eio" -gt 0
		check "$fs: the others read back" test "$bad" = 0
		check "$fs: swapoff completes" swapoff /dev/zram0
	else
		check "$fs: swapoff completes, at its first try" swapoff /dev/zram0
		echo 0 >$zram/make-it-fail
	fi
	read -r eio2 bad <<<"$(readback $m/f)"
	[ "$how" = read ] || eio=$eio2
	echo "$fs: $eio2 pages lost"
	check "$fs: some pages were lost" test "$eio2" -gt 0
	check "$fs: the lost pages still read EIO ($eio2), the rest back ($bad wrong)" \
		test "$eio2" = "$eio" -a "$bad" = 0
	# hugetmpfs gives a lost page's space back at once; tmpfs keeps
	# counting it until it is punched or truncated.
	keep=$eio
	[[ $fs = hugetmpfs* ]] && keep=0
	check "$fs: st_blocks $(stat -c %b $m/f) counts $keep lost pages" \
		test "$(stat -c %b $m/f)" = $(( (pages - eio + keep) * 8 ))
	if [[ $fs = hugetmpfs* ]]; then
		sys=/sys/fs/hugetmpfs/$(mountpoint -d $m)
		check "$fs: no swap counted" test "$(<$sys/swap_bytes)" = 0
	fi
	# A write to a lost page fails; a punch frees it, a write then works.
	lost=$(python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
for p in range(256):
    try:
        os.pread(fd, 1, p * 4096)
    except OSError:
        break
try:
    os.pwrite(fd, b"w", p * 4096)
    print(p, "written")
except OSError as e:
    print(p, e.errno)
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.fallocate(fd, 3, ctypes.c_long(p * 4096), ctypes.c_long(4096)):
        print("punch", ctypes.get_errno())
    os.pwrite(fd, b"w", p * 4096)
    print(os.pread(fd, 2, p * 4096) == b"w\0")' $m/f)
	check "$fs: a write to a lost page fails with EIO, after a punch it works ($lost)" \
		test "$(echo $lost)" = "${lost%% *} 5 True"
	rm $m/f
	used=$(df -k --output=used $m | tail -n1)
	check "$fs: nothing left charged ($used kB)" test $used = 0
	umount $m
	echo 1 >$zram/reset
done
done
echo 0 >$fmr/probability

# Truncate and punch against swapoff, on hugetmpfs with huge folios that go
# to swap whole, then are cut by truncate (not at 2 MiB) and punch.
mount -t hugetmpfs -o huge=always none $m || exit 2
src=$(seed 7 8)
for round in 1 2 3; do
	zram_on 128M || exit 2
	in_cgroup $cg dd if="$src" of=$m/g bs=2M status=none
	echo 32M >$cg/memory.reclaim 2>/dev/null
	off=$(( (round * 500 + 3) * 4096 ))
	swapoff /dev/zram0 &
	fallocate -p -o $((4096 * 7)) -l $((4096 * 100)) $m/g
	truncate -s $off $m/g
	wait $!
	check "round $round: swapoff completes" test $? = 0
	check "round $round: g reads back" test "$(md5 $m/g)" = "$(python3 -c 'import sys
s = bytearray(open(sys.argv[1], "rb").read()[:int(sys.argv[2])])
s[4096 * 7:4096 * 107] = bytes(4096 * 100)
sys.stdout.buffer.write(s)' "$src" $off | md5)"
	rm $m/g
	echo 1 >$zram/reset
done
done_checks t-swap-error
