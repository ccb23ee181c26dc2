#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One memory cgroup at its limit must not take apart another's huge folios
# (issue 37, defect 2). Cgroup a writes 16 files of 4 KiB, each in a huge
# folio of its own (2 MiB less 4 KiB of holes). Cgroup b, limited to 8 MiB,
# then writes 6.5 MiB: its fourth huge folio cannot be charged, and the
# hugetmpfs falls back to smaller folios. The holes it may free for that are
# b's own only: a's 16 huge folios stay whole, with all their holes, and
# every byte of both reads back. (tmpfs has no hole shrinker: nothing to
# mirror.)
# timeout: 300
set -u
. "$(dirname "$0")/lib.sh"
root=/sys/fs/cgroup
a=$root/t-holes-memcg-a b=$root/t-holes-memcg-b
m=/mnt/t-holes-memcg

grep -qw memory $root/cgroup.controllers || { echo "no memory controller"; exit 2; }
echo +memory >$root/cgroup.subtree_control || exit 2
trap 'umount $m 2>/dev/null; rmdir $a $b 2>/dev/null' EXIT
mkdir -p $m
mount -t hugetmpfs -o huge=always none $m || exit 2
mkdir $a $b || exit 2
sys=/sys/fs/hugetmpfs/$(mountpoint -d $m)
stat0() { echo "$(<$sys/$1)"; }

src=$(seed 37 8)
# a: 16 files, 4 KiB each, the 16 pieces of the seed's first 64 KiB
in_cgroup $a python3 -c 'import sys
src = open(sys.argv[1], "rb").read(65536)
for i in range(16):
    with open("%s/a%d" % (sys.argv[2], i), "wb") as f:
        f.write(src[i * 4096:(i + 1) * 4096])' "$src" $m
check "a: 16 huge folios ($(stat0 huge_folios))" test "$(stat0 huge_folios)" = 16
holes=$((16 * (2048 - 4) * 1024))
check "a: their holes counted ($(stat0 free_hole_bytes))" \
	test "$(stat0 free_hole_bytes)" = $holes

# b: 6.5 MiB under an 8 MiB limit, from the seed's start
echo 8M >$b/memory.max
nomem0=$(stat0 huge_fallback_nomem)
in_cgroup $b dd if="$src" of=$m/b bs=64k count=104 status=none
check "b wrote 6.5 MiB" test "$(stat -c %s $m/b)" = $((104 << 16))
check "b: a huge folio could not be charged ($(stat0 huge_fallback_nomem) fallbacks)" \
	test "$(stat0 huge_fallback_nomem)" -gt "$nomem0"
echo "after b: huge_folios $(stat0 huge_folios), free_hole_bytes" \
	"$(stat0 free_hole_bytes), holes_freed $(stat0 holes_freed)," \
	"holes_moved $(stat0 holes_moved), holes_split $(stat0 holes_split)"
check "a's holes were not touched (moved $(stat0 holes_moved), freed $(stat0 holes_freed))" \
	test "$(stat0 holes_moved)" = 0 -a "$(stat0 holes_freed)" = 0
check "a's holes are all still counted" \
	test "$(stat0 free_hole_bytes)" = $holes
for i in $(seq 0 15); do
	check "a$i: still one huge folio" test_huge $m/a$i 1
done
# Every byte, against the generator
check "a: every byte" test "$(cat $m/a{0..15} | md5)" = \
	"$(head -c 65536 "$src" | md5)"
check "b: every byte" test "$(md5 $m/b)" = "$(head -c $((104 << 16)) "$src" | md5)"
done_checks t-holes-memcg
