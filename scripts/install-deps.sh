#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the host packages the build, the guest and the checks need, once.
# usage: install-deps.sh [bench]   (bench: also what make bench's charts need)
set -euo pipefail

pkgs=(linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
      cpio kmod xz-utils lz4 rsync qemu-system-x86 debootstrap e2fsprogs
      sparse python3)
# fstests, built on the host (make fstests, and its subset in make check)
pkgs+=(autoconf automake libtool make gcc pkg-config xfslibs-dev uuid-dev
       libattr1-dev libacl1-dev libaio-dev liburing-dev libgdbm-dev
       libgdbm-compat-dev libcap-dev)
# the hugetmpfs-dkms Debian package (make deb, and its test in make check)
pkgs+=(dpkg-dev debhelper dh-dkms)
[ "${1:-}" != bench ] || pkgs+=(python3-matplotlib)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}; run as root or install them" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
