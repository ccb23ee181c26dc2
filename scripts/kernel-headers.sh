#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What building an external module against a kernel needs (what a
# linux-headers package holds), packed once per built kernel tree with the
# kernel's own scripts/package/install-extmod-build, next to the tree. The
# guest unpacks it for DKMS and make install (tests/install-dkms.sh): much
# faster than compiling against the whole tree over 9p.
#
# usage: kernel-headers.sh KERNEL-TREE    prints the tarball's path
# The tarball holds build/ (the tree) and modules/ (modules.order,
# modules.builtin and modules.builtin.modinfo, for /lib/modules/$kver).
set -euo pipefail
kdir=$(cd "${1:?usage: kernel-headers.sh KERNEL-TREE}" && pwd)
# Named after this script's content: a change to it packs again.
out=$(dirname "$kdir")/extmod-build-$(sha256sum "$0" | cut -c1-12).tar.gz
[ -f "$kdir/Module.symvers" ] || { echo "headers: $kdir is not built" >&2; exit 1; }
if [ ! -f "$out" ] || [ "$kdir/Module.symvers" -nt "$out" ]; then
	work=$(mktemp -d /tmp/hugetmpfs-headers.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	(cd "$kdir" && srctree=. SRCARCH=x86 CC=gcc HOSTCC=gcc MAKE=make \
		sh scripts/package/install-extmod-build "$work/build") >&2
	# And what the kernel package puts in /lib/modules/$kver for depmod.
	mkdir -p "$work/modules"
	cp "$kdir"/modules.order "$kdir"/modules.builtin \
		"$kdir"/modules.builtin.modinfo "$work/modules/"
	rm -f "$(dirname "$kdir")"/extmod-build*.tar.gz
	tar -C "$work" -czf "$out.tmp" build modules
	mv "$out.tmp" "$out"
	echo "headers: packed $out ($(du -h "$out" | cut -f1))" >&2
fi
echo "$out"
