#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Hole pages never go to swap (issue 37, defect 5). A huge folio with holes
# is split for swap-out and its pages come back to ->writepage one by one:
# those its record calls holes must be freed there, not written. Two files
# under huge=always, each one huge folio: h holds 1 MiB of data, 1 MiB of
# holes inside i_size, and 4 KiB at its end; p holds 64 KiB, the rest of its
# folio past EOF. memory.reclaim pushes them to zram swap while a process
# maps them (so that swap-out, not the hole shrinker, meets them): swap_bytes, and
# the cgroup's memory.swap.current, must stay within the 1 MiB + 68 KiB of
# data, size= count no more than the data and the holes left in memory, and
# every byte must read back from the generator.
# timeout: 300
set -u
. "$(dirname "$0")/lib.sh"
root=/sys/fs/cgroup
cg=$root/t-swap-holes
m=/mnt/t-swap-holes
zram=/sys/block/zram0

[ -e $zram ] || { echo "no zram device (CONFIG_ZRAM)"; exit 2; }
grep -qw memory $root/cgroup.controllers || { echo "no memory controller"; exit 2; }
echo +memory >$root/cgroup.subtree_control || exit 2
trap '[ -n "${mapper:-}" ] && kill $mapper; umount $m 2>/dev/null; zram_off
	rmdir $cg 2>/dev/null' EXIT
zram_on 256M || exit 2
mkdir -p $m $cg
mount -t hugetmpfs -o huge=always none $m || exit 2
sys=/sys/fs/hugetmpfs/$(mountpoint -d $m)
stat0() { echo "$(<$sys/$1)"; }

src=$(seed 5 2)
in_cgroup $cg python3 -c 'import os, sys
src = open(sys.argv[1], "rb").read()
fd = os.open(sys.argv[2] + "/h", os.O_CREAT | os.O_WRONLY)
os.pwrite(fd, src[:1 << 20], 0)
os.pwrite(fd, src[(2 << 20) - 4096:], (2 << 20) - 4096)
fd = os.open(sys.argv[2] + "/p", os.O_CREAT | os.O_WRONLY)
os.pwrite(fd, src[:65536], 0)' "$src" $m
data=$(( (256 + 1 + 16) * 4096 ))
check "two huge folios ($(stat0 huge_folios))" test "$(stat0 huge_folios)" = 2
check "767 holes counted ($(stat0 free_hole_bytes) bytes)" \
	test "$(stat0 free_hole_bytes)" = $(( (255 + 496) * 4096 ))

# Mapped while reclaim runs: the hole shrinker skips mapped folios, so
# ->writepage is first to see them (reclaim unmaps a folio just before).
t=$(mktemp -d)
mkfifo $t/go
python3 -c 'import mmap, sys
maps = []
for path in sys.argv[2:]:
    f = open(path, "rb")
    m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    for off in range(0, len(m), 4096):
        m[off]
    maps.append(m)
print("mapped", flush=True)
open(sys.argv[1]).read()' $t/go $m/h $m/p >$t/out &
mapper=$!
check "a process maps h and p" wait_for 300 grep -q mapped $t/out
splits0=$(stat0 swap_splits)
echo 64M >$cg/memory.reclaim 2>/dev/null
echo go >$t/go
wait $mapper
mapper=
rm -r $t
echo "swap_splits $(stat0 swap_splits), swap_out $(stat0 swap_out)," \
	"swap_bytes $(stat0 swap_bytes), memory.swap.current" \
	"$(<$cg/memory.swap.current), free_hole_bytes $(stat0 free_hole_bytes)"
check "the folios were split for swap" test "$(stat0 swap_splits)" -gt "$splits0"
check "data went to swap" test "$(stat0 swap_bytes)" -gt 0
check "no hole went to swap: swap_bytes $(stat0 swap_bytes) <= $data" \
	test "$(stat0 swap_bytes)" -le $data
check "nor to the cgroup's swap" test "$(<$cg/memory.swap.current)" -le $data
check "size= counts data, and holes still in memory ($(stat0 used_bytes) bytes)" \
	test "$(stat0 used_bytes)" -le $((data + $(stat0 free_hole_bytes)))
check "h: every byte" test "$(md5 $m/h)" = "$(python3 -c 'import sys
s = open(sys.argv[1], "rb").read()
sys.stdout.buffer.write(s[:1 << 20] + bytes(1 << 20)[4096:] + s[-4096:])' \
	"$src" | md5)"
check "p: every byte" test "$(md5 $m/p)" = "$(head -c 65536 "$src" | md5)"
# Back from swap, the holes are still holes
seek=$(python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
print(os.lseek(fd, 0, os.SEEK_HOLE), os.lseek(fd, 1 << 20, os.SEEK_DATA))' $m/h)
check "h: SEEK_HOLE and SEEK_DATA see the hole ($seek)" \
	test "$seek" = "$((1 << 20)) $(( (2 << 20) - 4096 ))"
rm $m/h $m/p
check "nothing left in swap" test "$(stat0 swap_bytes)" = 0
done_checks t-swap-holes
