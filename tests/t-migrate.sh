#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compaction migrates hugetmpfs folios (swap-backed page cache in a mapping
# that is not shmem's): data, Shmem accounting and the mount's space must
# come through unchanged, with small pages (huge=never) and huge folios,
# half of the file mapped while it happens. /proc/self/pagemap tells how
# many mapped pages actually moved.
# timeout: 300
set -u
. "$(dirname "$0")/lib.sh"
shmem() { awk '/^Shmem:/ { print $2 }' /proc/meminfo; }
used() { cat "/sys/fs/hugetmpfs/$(mountpoint -d .)/used_bytes"; }
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

echo 1 >/proc/sys/vm/compact_unevictable_allowed
for huge in never always; do
	mount -o remount,huge=$huge . || exit 2
	head -c $((64 << 20)) /dev/urandom >f
	sum=$(md5sum <f)
	before_shmem=$(shmem) before_used=$(used)
	scanned=$(vmstat compact_migrate_scanned)
	# Map and fault in half of it, compact, and see which pages moved.
	moved=$(python3 -c '
import mmap, os, struct
n = (32 << 20) // 4096
fd = os.open("f", os.O_RDONLY)
m = mmap.mmap(fd, 32 << 20, prot=mmap.PROT_READ)
sum(m[i] for i in range(0, 32 << 20, 4096))
def pfns():
    start = None
    for line in open("/proc/self/maps"):
        if line.rstrip().endswith("/f"):
            start = int(line.split("-")[0], 16)
            break
    with open("/proc/self/pagemap", "rb") as p:
        p.seek(start // 4096 * 8)
        raw = p.read(n * 8)
    return [v & ((1 << 55) - 1) for v in struct.unpack("%dQ" % n, raw)]
a = pfns()
for _ in range(2):
    open("/proc/sys/vm/compact_memory", "w").write("1")
b = pfns()
print(sum(1 for x, y in zip(a, b) if x != y))
')
	echo "huge=$huge: $moved of 8192 mapped pages moved; Shmem $before_shmem -> $(shmem) kB"
	check "huge=$huge: compaction ran" test "$(vmstat compact_migrate_scanned)" -gt "$scanned"
	check "huge=$huge: pagemap read ($moved)" test -n "$moved"
	check "huge=$huge: data unchanged" test "$(md5sum <f)" = "$sum"
	check "huge=$huge: used_bytes unchanged" test "$(used)" = "$before_used"
	# Shmem moves with other users of shmem; allow 1 MiB of noise.
	d=$(( $(shmem) - before_shmem ))
	check "huge=$huge: Shmem unchanged ($d kB)" test "${d#-}" -le 1024
	rm -f f
done
done_checks t-migrate
