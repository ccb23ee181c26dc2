#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Truncating into a huge folio splits it and gives back the pages past EOF,
# and the split must not "clean" dirty pages that were never accounted as
# dirty (kernel-prereq.patch): otherwise the global dirty count sinks and
# other filesystems' dirty data goes unseen by writeback throttling.
# timeout: 600
set -u
cd "$HT_MNT" || exit 2
mount -o remount,huge=always . || exit 2
sysdir=/sys/fs/hugetmpfs/$(mountpoint -d .)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

rounds=32
before=$(cat "$sysdir/huge_alloc")
for i in $(seq $rounds); do
	head -c 4M /dev/zero | tr '\0' 'x' >f || exit 2
	truncate -s 4097 f
	blocks=$(stat -c %b f)
	# 2 pages stay (4097 bytes); a split that kept the 2 MiB would show 4096
	[ "$blocks" -le 64 ] || fail "round $i: $blocks blocks held after truncate"
	[ "$(head -c 4097 f | tr -d x | wc -c)" = 0 ] || fail "round $i: data lost"
	rm f
done
made=$(( $(cat "$sysdir/huge_alloc") - before ))
echo "huge folios made: $made"
[ "$made" -ge $((rounds * 2)) ] || fail "expected $((rounds * 2)) huge folios"

# Dirty 64 MiB on the root ext4 without syncing: all of it must be counted
# as dirty or under writeback (it is far below the background threshold).
pages=$((64 * 256))
dd if=/dev/zero of=/var/tmp/dirty bs=1M count=64 status=none || exit 2
counted=$(( $(vmstat nr_dirty) + $(vmstat nr_writeback) ))
echo "dirty pages counted: $counted of $pages written"
[ "$counted" -ge $((pages * 9 / 10)) ] || fail "global dirty count is $counted, expected at least $((pages * 9 / 10))"
rm -f /var/tmp/dirty
exit $fails
