#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The stamp make check leaves when the install suite (the guest's DKMS and
# Debian package tests, make install on the host) has passed, named after
# everything installing depends on: the packaging and its scripts, the build
# files and the list of module sources (not their content: the module's own
# build in make check compiles that, with the same compiler and kernel), the
# kernel tree (its path holds its cache key) and the guest image.
#
# usage: install-stamp.sh KERNEL-TREE ROOTFS-IMAGE    prints the stamp's path
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=${1:?usage: install-stamp.sh KERNEL-TREE ROOTFS-IMAGE}
rootfs=${2:?usage: install-stamp.sh KERNEL-TREE ROOTFS-IMAGE}
cache=${HUGETMPFS_CACHE:-/var/cache/hugetmpfs}
cd "$top"
key=$( {
	echo "$kdir" "$(basename "$rootfs")"
	ls hugetmpfs include/uapi/linux
	cat Makefile dkms.conf hugetmpfs/Kbuild man/hugetmpfs.5 tools/*.c \
		tests/install-dkms.sh tests/run-tests tests/lib.sh \
		scripts/build-deb.sh scripts/kernel-headers.sh \
		scripts/check-make-install.sh scripts/install-stamp.sh
	find debian -type f | LC_ALL=C sort | xargs cat
} | sha256sum | cut -c1-16)
echo "$cache/install-$key.ok"
