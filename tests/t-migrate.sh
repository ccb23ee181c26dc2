#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compaction migrates hugetmpfs folios (swap-backed page cache in a mapping
# that is not shmem's): data, Shmem accounting and the mount's space must
# come through unchanged, with small pages (huge=never) and huge folios,
# mapped and not.
# timeout: 300
set -u
. "$(dirname "$0")/lib.sh"
shmem() { awk '/^Shmem:/ { print $2 }' /proc/meminfo; }
used() { cat "/sys/fs/hugetmpfs/$(mountpoint -d .)/used_bytes"; }

cat /proc/sys/vm/compact_unevictable_allowed | grep -q 1 ||
	echo 1 >/proc/sys/vm/compact_unevictable_allowed
for huge in never always; do
	mount -o remount,huge=$huge . || exit 2
	head -c $((64 << 20)) /dev/urandom >f
	sum=$(md5sum <f)
	# Keep half of it mapped (and faulted in) while compacting.
	python3 -c '
import mmap, os, sys, time
fd = os.open("f", os.O_RDONLY)
m = mmap.mmap(fd, 32 << 20, prot=mmap.PROT_READ)
sum(m[i] for i in range(0, 32 << 20, 4096))
sys.stdout.write("mapped\n"); sys.stdout.flush()
time.sleep(30)
' >mapped.out &
	pid=$!
	for _ in $(seq 50); do grep -q mapped mapped.out 2>/dev/null && break; sleep 0.2; done
	before_shmem=$(shmem) before_used=$(used)
	moved0=$(awk '/^compact_migrate_scanned/ { print $2 }' /proc/vmstat)
	echo 1 >/proc/sys/vm/compact_memory
	echo 1 >/proc/sys/vm/compact_memory
	moved1=$(awk '/^compact_migrate_scanned/ { print $2 }' /proc/vmstat)
	kill $pid
	wait $pid 2>/dev/null
	echo "huge=$huge: compaction scanned $((moved1 - moved0)) pages; Shmem $before_shmem -> $(shmem) kB"
	check "huge=$huge: compaction ran" test "$moved1" -gt "$moved0"
	check "huge=$huge: data unchanged" test "$(md5sum <f)" = "$sum"
	check "huge=$huge: used_bytes unchanged" test "$(used)" = "$before_used"
	# Shmem moves with other users of shmem; allow 1 MiB of noise.
	d=$(( $(shmem) - before_shmem ))
	check "huge=$huge: Shmem unchanged ($d kB)" test "${d#-}" -le 1024
	rm -f f mapped.out
done
done_checks t-migrate
