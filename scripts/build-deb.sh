#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the hugetmpfs-dkms Debian package with Debian's own tools, from a
# release tree of the project (what a user downloads: the module's sources,
# dkms.conf, the Makefile, the man page and debian/; not the test pipeline).
# Rebuilt only when those inputs change.
#
# usage: build-deb.sh OUTDIR
# Leaves in OUTDIR: hugetmpfs-dkms_VERSION_all.deb and hugetmpfs-VERSION/,
# the release tree (for dkms add and make install in the guest's test).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "${1:?usage: build-deb.sh OUTDIR}"
out=$(cd "$1" && pwd)
files=(Makefile dkms.conf hugetmpfs include man tools debian)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
[ -n "$version" ] || { echo "deb: no PACKAGE_VERSION in dkms.conf" >&2; exit 1; }

key=$(cd "$top" && find "${files[@]}" "$0" -type f \
	! -name '*.o' ! -name '*.ko' -print0 | sort -z |
	xargs -0 sha256sum | sha256sum | cut -c1-16)
deb=$out/hugetmpfs-dkms_${version}_all.deb
if [ -f "$deb" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
	echo "$deb"
	exit 0
fi

rm -rf "${out:?}"/*
mkdir -p "$out/build"
tree=$out/build/hugetmpfs-$version
mkdir -p "$tree"
(cd "$top" && cp -R "${files[@]}" "$tree/")
echo "deb: building hugetmpfs-dkms $version" >&2
(cd "$tree" && dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1) || {
	tail -30 "$out/build.log" >&2
	echo "deb: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
}
mv "$out/build/hugetmpfs-dkms_${version}_all.deb" "$out/"
# A fresh release tree, without dpkg-buildpackage's leftovers.
mkdir -p "$out/hugetmpfs-$version"
(cd "$top" && cp -R "${files[@]}" "$out/hugetmpfs-$version/")
rm -rf "$out/build"
echo "$key" >"$out/key"
echo "$deb"
