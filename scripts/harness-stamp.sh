#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The stamp make check leaves when the harness suite (tests/harness-*: the
# benchmark harness at toy size, a one-test fstests run) has passed, named
# after everything those two check: the benchmark programs and their runner,
# the fstests build (its path holds its cache key) and the project's fstests
# scripts, the tests and the runner themselves, and the module's interface
# to them (mount options, statistics, huge_override, the uapi header). The
# module's inner workings are the t-* suite's business, which runs every
# time.
#
# usage: harness-stamp.sh KERNEL-TREE ROOTFS-IMAGE [FSTESTS-TARBALL]
#                                                  prints the stamp's path
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: harness-stamp.sh KERNEL-TREE ROOTFS-IMAGE [FSTESTS-TARBALL]"
kdir=${1:?$usage}
rootfs=${2:?$usage}
fstests=${3:-}
cache=${HUGETMPFS_CACHE:-/var/cache/hugetmpfs}
cd "$top"
export LC_ALL=C
key=$( {
	echo "$kdir" "$(basename "$rootfs")" "$fstests"
	# fstests/: every file but the results (a directory)
	cat bench/*.[ch] bench/run-bench bench/report.py \
		$(find fstests -maxdepth 1 -type f | sort) \
		tests/harness-* tests/run-tests tests/lib.sh \
		hugetmpfs/super.c hugetmpfs/stats.c hugetmpfs/policy.c \
		include/uapi/linux/*.h \
		scripts/check.sh scripts/harness-stamp.sh
} | sha256sum | cut -c1-16)
echo "$cache/harness-$key.ok"
