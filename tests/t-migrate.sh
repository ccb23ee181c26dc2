#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Migration moves hugetmpfs folios (swap-backed page cache in a mapping that
# is not shmem's): data, Shmem accounting and the mount's space must come
# through unchanged, with small pages (huge=never) and huge folios, half of
# the file mapped while it happens. Compaction may or may not find a page of
# the file worth moving, so soft offline (MADV_SOFT_OFFLINE, which splits a
# huge folio first) forces 16 mapped pages to move; /proc/self/pagemap shows
# that they did.
# timeout: 300
set -u
. "$(dirname "$0")/lib.sh"
shmem() {
	echo 1 >/proc/sys/vm/stat_refresh
	awk '/^Shmem:/ { print $2 }' /proc/meminfo
}
used() { cat "/sys/fs/hugetmpfs/$(mountpoint -d .)/used_bytes"; }
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

echo 1 >/proc/sys/vm/compact_unevictable_allowed
for huge in never always; do
	mount -o remount,huge=$huge . || exit 2
	gen-bytes 1 64 >f
	sum=$(seed_md5 1 64)
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
open("/proc/sys/vm/compact_memory", "w").write("1")
# One page in each 2 MiB of the mapping, not the first of its folio.
offline = [i * 512 + 7 for i in range(16)]
for p in offline:
    m.madvise(101, p * 4096, 4096)          # MADV_SOFT_OFFLINE
# Migration (and the split before it) unmapped them: fault them back.
sum(m[i] for i in range(0, 32 << 20, 4096))
b = pfns()
moved = sum(1 for x, y in zip(a, b) if x != y)
forced = sum(1 for p in offline if a[p] != b[p] and b[p])
print(moved, forced)
')
	set -- $moved
	echo "huge=$huge: ${1:-?} of 8192 mapped pages moved, ${2:-?} of 16 soft-offlined; Shmem $before_shmem -> $(shmem) kB"
	check "huge=$huge: compaction ran" test "$(vmstat compact_migrate_scanned)" -gt "$scanned"
	check "huge=$huge: the 16 soft-offlined pages moved (${2:-none})" test "${2:-0}" = 16
	check "huge=$huge: data unchanged" test "$(md5 f)" = "$sum"
	check "huge=$huge: used_bytes unchanged" test "$(used)" = "$before_used"
	# Shmem moves with other users of shmem; allow 1 MiB of noise.
	d=$(( $(shmem) - before_shmem ))
	check "huge=$huge: Shmem unchanged ($d kB)" test "${d#-}" -le 1024
	rm -f f
done
done_checks t-migrate
