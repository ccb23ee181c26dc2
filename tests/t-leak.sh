#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Memory comes back: files written, mapped and removed, and a mount unmounted
# with data still in it, must leave the page cache where it started.
# timeout: 600
set -u
m=/mnt/t-leak
mb=256
# Shmem counts hugetmpfs pages and nothing else moves it in this guest (no
# other tmpfs writers); the per-CPU counters are folded first.
pages() {
	echo 1 >/proc/sys/vm/stat_refresh
	awk '$1 == "nr_shmem" { print $2 }' /proc/vmstat
}
inodes() { cat /sys/fs/hugetmpfs/inodes; }
settle() { sync; echo 3 >/proc/sys/vm/drop_caches; }

mkdir -p $m
settle
base=$(pages)
base_inodes=$(inodes)

mount -t hugetmpfs none $m || exit 2
mkdir -p $m/d/e
for i in $(seq 1000); do : >$m/d/e/small$i; done
ln -s f1 $m/link
for i in 1 2 3 4; do
	dd if=/dev/zero of=$m/f$i bs=1M count=$((mb / 4)) status=none || exit 2
done
python3 - "$m" <<'PY' || exit 2
import mmap, os, sys
for i in (1, 2):
    with open(os.path.join(sys.argv[1], "f%d" % i), "r+b") as f:
        mm = mmap.mmap(f.fileno(), 0)
        for off in range(0, len(mm), 4096):
            mm[off] = 0x5a
        mm.close()
PY
settle
full=$(pages)
rm $m/f1 $m/f2
umount $m || exit 2
settle
after=$(pages)
after_inodes=$(inodes)

echo "nr_shmem: before $base, with ${mb} MiB $full, after $after"
echo "hugetmpfs inodes in use: before $base_inodes, after $after_inodes"
fails=0
if [ -z "$base_inodes" ] || [ "$after_inodes" != "$base_inodes" ]; then
	echo "FAIL: inodes not evicted (or no /sys/fs/hugetmpfs/inodes)"
	fails=1
fi
if [ $((full - base)) -lt $((mb * 256 * 9 / 10)) ]; then
	echo "FAIL: the files were not counted in Shmem"
	fails=1
fi
# Allow 1 MiB of unrelated movement.
if [ $((after - base)) -gt 256 ]; then
	echo "FAIL: $(( (after - base) / 256 )) MiB of Shmem not given back"
	fails=1
fi
exit $fails
