#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak: several processes at once on a size-limited mount (size=512m,
# huge=always) for SOAK_MINUTES (default 5): stress-ng's file, mmap,
# fallocate and namespace stressors with their own data verification, while
# a file written beforehand must come through unchanged. The runner then
# checks the kernel log, unmounts, unloads the module and scans for leaks.
# timeout: 36000
set -u
. "$(dirname "$0")/lib.sh"
minutes=${SOAK_MINUTES:-5}
command -v stress-ng >/dev/null || { echo "no stress-ng in the guest"; exit 77; }
cd "$HT_MNT" || exit 2
mount -o remount,huge=always,size=512m . || exit 2

# 64 MiB that must survive everything below, byte for byte.
mkdir keep work
head -c $((64 << 20)) /dev/urandom >keep/data
sum=$(sha256sum <keep/data)

stress-ng --temp-path "$HT_MNT/work" --timeout "${minutes}m" --verify \
	--oom-avoid \
	--hdd 2 --hdd-bytes 64m \
	--mmap 2 --mmap-file --mmap-bytes 64m \
	--fallocate 2 --fallocate-bytes 64m \
	--seek 1 --seek-size 64m \
	--dentry 1 --link 1 --symlink 1 --rename 1 \
	--sendfile 1
rc=$?
check "stress-ng finished cleanly (status $rc)" test $rc = 0
check "the file written before is unchanged" \
	test "$(sha256sum <keep/data)" = "$sum"
rm -rf keep work
df -k . | tail -n1
check "space given back" test "$(stat -f -c '%b - %f' . | bc)" -lt 16
done_checks soak-stress
