#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The collapse thread (scan.c). Files (64 MiB) written in small pages under
# huge=never, one left alone and one kept mapped by a process, are queued
# when a remount allows huge folios; the thread makes at least 99% of both
# PMD-sized folios, their data unchanged (checksums, after drop_caches),
# and the process, without remapping, then sees the same bytes through PMD
# entries (ShmemPmdMapped). Under huge=advise, a file in small pages mapped
# by a process that asked for huge pages (MADV_HUGEPAGE) gets them the same
# way, and one mapped without asking is left alone. A new pace takes effect
# at once, not after the pause under way (an hour here). A range busy for
# a moment is swept again after the pause. Then fsx, with the thread running flat out and
# collapsing any range with data: every operation consistent; and a umount
# while the thread works on the mount. The runner
# keeps the thread off for the other tests (their layouts are theirs to
# check); this test turns it on and back off.
# timeout: 900
set -u
. "$(dirname "$0")/lib.sh"
p=/sys/module/hugetmpfs/parameters
sys=/sys/fs/hugetmpfs/$(mountpoint -d .)
size_mb=32
ranges=$((size_mb / 2))

restore() {
	echo N >$p/collapse_thread
	echo 1000 >$p/collapse_scan_sleep_ms
	echo 32768 >$p/collapse_pages_to_scan
	[ -n "${mapper:-}" ] && kill "$mapper" 2>/dev/null
	[ -n "${mapper_f:-}" ] && kill "$mapper_f" 2>/dev/null
	[ -n "${holder:-}" ] && kill "$holder" 2>/dev/null
	echo none >$p/huge_override
}
trap restore EXIT

not() { ! "$@"; }

# not_write VALUE FILE: writing VALUE to FILE fails
not_write() {
	! echo "$1" 2>/dev/null >"$2"
}

mount -o remount,huge=never . || exit 2
echo N >$p/collapse_thread
# huge=never gives small pages whatever the size of the writes.
gen-bytes 1 $size_mb >a
cp a b
sum=$(seed_md5 1 $size_mb)
check "written in small pages" test "$(huge_folios a)" = 0

# A process maps b shared, reads it all (PTEs), waits, reads it again.
mkfifo go
"$HT_TESTS/pmd-mapper.py" b go >mapper.out &
mapper=$!
wait_for 300 grep -q mapped mapper.out
check "the mapper mapped b" grep -q mapped mapper.out

collapsed=$(cat $sys/collapsed)
echo 10 >$p/collapse_scan_sleep_ms
echo $((64 * 512)) >$p/collapse_pages_to_scan
echo Y >$p/collapse_thread
mount -o remount,huge=always . || exit 2
# The thread's own pace decides when; the test only waits for it.
both_huge() {
	[ "$(huge_folios a)" -ge $((ranges * 99 / 100)) ] &&
	[ "$(huge_folios b)" -ge $((ranges * 99 / 100)) ]
}
wait_for 600 both_huge
echo "thread: a $(huge_folios a), b $(huge_folios b) of $ranges ranges huge;" \
	"collapsed $(( $(cat $sys/collapsed) - collapsed )), scanned $(cat $sys/collapse_scanned)"
check "a (unmapped): 99% huge" test "$(huge_folios a)" -ge $((ranges * 99 / 100))
check "b (mapped): 99% huge" test "$(huge_folios b)" -ge $((ranges * 99 / 100))
echo go >go
wait "$mapper"
mapper=
read -r digest kb <<<"$(tail -n1 mapper.out)"
check "the mapper reads the same data ($digest)" test "$digest" = "$sum"
check "through PMD entries now ($kb kB)" test "${kb:-0}" -ge $((size_mb * 1024 * 99 / 100))
echo 3 >/proc/sys/vm/drop_caches
check "a: data unchanged" test "$(md5 a)" = "$sum"
check "b: data unchanged" test "$(md5 b)" = "$sum"
rm -f a b go mapper.out

# Written while huge_override=deny held every mount to small pages: queued
# when it lets go.
echo deny >$p/huge_override
gen-bytes 3 4 | dd of=c bs=4k iflag=fullblock status=none
sum=$(seed_md5 3 4)
check "c: small pages under huge_override=deny" test "$(huge_folios c)" = 0
echo none >$p/huge_override
start=$SECONDS
wait_for 600 test_huge c 2
echo "c: huge $((SECONDS - start)) s after huge_override=none"
check "c: huge once huge_override=none" test "$(huge_folios c)" = 2
check "c: data unchanged" test "$(md5 c)" = "$sum"
rm -f c

# huge=advise leaves it to the mapping: e is mapped by a process that asked
# for huge pages, f by one that did not; both were written in small pages.
mount -o remount,huge=advise . || exit 2
gen-bytes 4 4 | dd of=e bs=4k iflag=fullblock status=none
cp e f
sum=$(seed_md5 4 4)
mkfifo go go-f
"$HT_TESTS/pmd-mapper.py" --hugepage e go >mapper.out &
mapper=$!
"$HT_TESTS/pmd-mapper.py" f go-f >mapper-f.out &
mapper_f=$!
wait_for 300 grep -q mapped mapper.out
wait_for 300 grep -q mapped mapper-f.out
check "e: huge while mapped with MADV_HUGEPAGE" wait_for 600 test_huge e 2
check "f: mapped without it, left in small pages" test "$(huge_folios f)" = 0
echo go >go
echo go >go-f
wait "$mapper" "$mapper_f"
mapper= mapper_f=
read -r digest kb <<<"$(tail -n1 mapper.out)"
check "e: the mapper reads the same data ($digest)" test "$digest" = "$sum"
check "e: through PMD entries now ($kb kB)" test "${kb:-0}" = 4096
check "e: data unchanged" test "$(md5 e)" = "$sum"
rm -f e f go go-f mapper.out mapper-f.out
mount -o remount,huge=always . || exit 2

# A new pace counts at once. One range per pass and an hour between
# passes: g gets one range done, then the thread sleeps. A pause of 10 ms
# then has it do the other three, without waiting out the hour.
echo 3600000 >$p/collapse_scan_sleep_ms
echo 512 >$p/collapse_pages_to_scan
echo deny >$p/huge_override
gen-bytes 5 8 | dd of=g bs=4k iflag=fullblock status=none
sum=$(seed_md5 5 8)
scanned=$(cat $sys/collapse_scanned)
echo none >$p/huge_override
scanned_more() { [ "$(cat $sys/collapse_scanned)" -ge $((scanned + $1)) ]; }
check "g: the first range tried" wait_for 300 scanned_more 1
check "g: then the thread pauses" test "$(cat $sys/collapse_scanned)" = $((scanned + 1))
echo 10 >$p/collapse_scan_sleep_ms
check "g: the other three tried once the pause is 10 ms" wait_for 300 scanned_more 4
check "g: data unchanged" test "$(md5 g)" = "$sum"
rm -f g
echo 32768 >$p/collapse_pages_to_scan

# A range held for a moment (a pipe holds one of its pages) is swept again
# after the pause. With an hour's pause, h's first pass collapses three of
# its four ranges; once the page is let go, a new pace ends the pause and
# the second sweep collapses the fourth.
echo 3600000 >$p/collapse_scan_sleep_ms
echo deny >$p/huge_override
gen-bytes 6 8 | dd of=h bs=4k iflag=fullblock status=none
sum=$(seed_md5 6 8)
mkfifo go-h
"$HT_TESTS/hold-page" h 8192 go-h >hold.out &
holder=$!
check "h: a page held in a pipe" wait_for 300 grep -q held hold.out
busy=$(cat $sys/collapse_fail_busy)
echo none >$p/huge_override
check "h: three ranges collapsed" wait_for 300 test_huge h 3
check "h: the held one was busy" test "$(cat $sys/collapse_fail_busy)" -gt "$busy"
echo go >go-h
wait "$holder"
holder=
echo 3600000 >$p/collapse_scan_sleep_ms
check "h: collapsed on the next sweep, once let go" wait_for 300 test_huge h 4
check "h: data unchanged" test "$(md5 h)" = "$sum"
rm -f h go-h hold.out

# fsx while the thread collapses whatever it can, as often as it can.
echo 0 >$p/collapse_scan_sleep_ms
echo 511 >$sys/collapse_max_holes
before=$(cat $sys/collapsed)
check "fsx under the collapse thread" fsx -s 7 -n 1000 -m 24 -f 2 .
echo "fsx: the thread collapsed $(( $(cat $sys/collapsed) - before )) ranges meanwhile"
echo 64 >$sys/collapse_max_holes

# A mount going away while the thread works on it: umount waits for the
# thread to let go of its files, and none is left busy.
u=/mnt/t-collapse-thread-umount
mkdir -p $u
mount -t hugetmpfs -o huge=never none $u || exit 2
dd if=/dev/zero of=$u/f bs=4k count=16384 status=none
mount -o remount,huge=always $u
check "umount while the thread collapses" umount $u
check "no busy inodes after it" not grep -q "Busy inodes" <<<"$(dmesg)"
check "collapse_max_holes refuses 512" not_write 512 $sys/collapse_max_holes
check "collapse_scan_sleep_ms refuses -1" not_write -1 $p/collapse_scan_sleep_ms
done_checks t-collapse-thread
