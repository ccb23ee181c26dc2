#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak: swap at full size. A zram swap device; a memory cgroup with
# memory.max a quarter of SOAK_SWAP_MB (default 1024, so 256M). A process
# of the cgroup maps half of SOAK_SWAP_MB and reads it back after
# memory.reclaim swapped it out under it. fsx (the project's,
# SOAK_SWAP_OPS operations, default 10,000) from the cgroup under each
# policy, its files going to swap and back as it runs. Then under each
# huge= policy SOAK_SWAP_MB written from the cgroup goes mostly to swap and
# reads back byte for byte, by read() and through a mapping, also on tmpfs
# in the same boot. swapoff at the end brings back what is left. Progress,
# and each failed check, go to the console log as they happen.
# timeout: 36000
set -u
. "$(dirname "$0")/lib.sh"
root=/sys/fs/cgroup
cg=$root/soak-swap
m=/mnt/soak-swap
zram=/sys/block/zram0
mb=${SOAK_SWAP_MB:-1024}
ops=${SOAK_SWAP_OPS:-10000}

[ -e $zram ] || { echo "no zram device (CONFIG_ZRAM)"; exit 77; }
echo +memory >$root/cgroup.subtree_control || exit 2

restore() {
	umount $m 2>/dev/null
	swapoff /dev/zram0 2>/dev/null
	echo 1 >$zram/reset
	rmdir $cg 2>/dev/null
}
trap restore EXIT

in_cg() { in_cgroup "$cg" "$@"; }

echo $((mb * 3))M >$zram/disksize || exit 2
mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 || exit 2
mkdir -p $m
mkdir $cg || exit 2
limit=$((mb / 4))M
echo $limit >$cg/memory.max

seed=1
# A process maps half as much and reads it again after reclaim took it.
half=$((mb / 2))
mount -t hugetmpfs -o huge=always none $m || exit 2
sys=/sys/fs/hugetmpfs/$(mountpoint -d $m)
gen-bytes $seed $half | in_cg dd of=$m/f bs=2M iflag=fullblock status=none
sum=$(gen-bytes $seed $half | md5)
out0=$(cat $sys/swap_out)
echo max >$cg/memory.max
progress "mapped: reading $half MiB through a mapping"
got=$(in_cg python3 - $m/f $cg $((half * 3 / 4)) <<'EOF'
import hashlib, mmap, sys
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
m.madvise(22)    # MADV_POPULATE_READ
try:
    open(sys.argv[2] + "/memory.reclaim", "w").write(sys.argv[3] + "M")
except OSError:
    pass
print(hashlib.md5(m).hexdigest())
EOF
)
check "mapped: reclaim swapped mapped pages" test "$(cat $sys/swap_out)" -gt "$out0"
check "mapped: reads back" test "$got" = "$sum"
progress "mapped: done; $checks checks so far, $fails failed"
rm $m/f
umount $m

# fsx from the cgroup, its files going to swap and back: 4 files of up to
# 8 MiB and its model of them, in 16 MiB.
echo 16M >$cg/memory.max
for huge in always within_size never; do
	mount -t hugetmpfs -o huge=$huge none $m || exit 2
	sys=/sys/fs/hugetmpfs/$(mountpoint -d $m)
	progress "fsx under huge=$huge: $ops operations"
	check "fsx under huge=$huge with swap" \
		in_cg fsx -s $seed -n "$ops" -m 8 -f 4 -l 256 $m
	progress "fsx under huge=$huge: $(cat $sys/swap_out) pages out," \
		"$(cat $sys/swap_in) in; $checks checks so far, $fails failed"
	check "fsx under huge=$huge: pages went to swap" test "$(cat $sys/swap_out)" -gt 0
	umount $m
	seed=$((seed + 1))
done

# Each policy, and tmpfs, at full size; the longest part, so last.
echo $limit >$cg/memory.max
for fs in hugetmpfs:always hugetmpfs:within_size hugetmpfs:never \
	  tmpfs:always tmpfs:never; do
	mount -t "${fs%:*}" -o huge="${fs#*:}" none $m || exit 2
	progress "$fs: writing $mb MiB from the cgroup"
	start=$SECONDS
	gen-bytes $seed "$mb" | in_cg dd of=$m/f bs=2M iflag=fullblock status=none
	sum=$(gen-bytes $seed "$mb" | md5)
	progress "$fs: written in $((SECONDS - start)) s; $(awk '$1 == "/dev/zram0" { print $4 }' /proc/swaps) KiB in swap"
	check "$fs: in swap" test "$(awk '$1 == "/dev/zram0" { print $4 }' /proc/swaps)" -gt $((mb * 1024 / 2))
	check "$fs: reads back" test "$(md5 $m/f)" = "$sum"
	check "$fs: reads back through a mapping" test "$(mmap_md5 $cg $m/f)" = "$sum"
	rm $m/f
	umount $m
	progress "$fs: done; $checks checks so far, $fails failed"
	seed=$((seed + 1))
done

check "swapoff" swapoff /dev/zram0
check "nothing OOM-killed" grep -qx "oom_kill 0" $cg/memory.events
done_checks soak-swap
