#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make install and make uninstall, as someone building by hand runs them,
# staged into a scratch DESTDIR on the host against the test kernel's tree:
# nothing is loaded, and nothing outside the scratch directory is touched.
# The guest's install suite (tests/install-dkms.sh) covers DKMS and the
# Debian package, which is where the module gets loaded.
#
# usage: check-make-install.sh KERNEL-TREE
set -uo pipefail
kdir=$(cd "${1:?usage: check-make-install.sh KERNEL-TREE}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
krel=$(cat "$kdir/include/config/kernel.release")
work=$(mktemp -d /tmp/hugetmpfs-make-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The tests' check and done_checks.
. "$top/tests/lib.sh"
not() { ! "$@"; }

# A copy of the release tree, as a user unpacks it.
mkdir "$work/src"
cp -R "$top/Makefile" "$top/dkms.conf" "$top/hugetmpfs" "$top/include" \
	"$top/man" "$top/tools" "$work/src/"
dest=$work/root
args=(-C "$work/src" KERNELRELEASE="$krel" INSTALL_KDIR="$kdir"
      DESTDIR="$dest" PREFIX=/usr)
if ! make "${args[@]}" install >"$work/log" 2>&1; then
	tail -n 30 "$work/log"
	echo "make install: FAIL: make install"
	exit 1
fi
ko=$dest/lib/modules/$krel/extra/hugetmpfs.ko
check "the module in extra/" test -f "$ko"
check "its version is dkms.conf's" test "$(modinfo -F version "$ko")" = \
	"$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")"
check "built for $krel" grep -q "^vermagic: *$krel " <(modinfo "$ko")
check "depmod indexed it" grep -q "^extra/hugetmpfs.ko:" \
	"$dest/lib/modules/$krel/modules.dep"
check "the filesystem alias, for mount to load it" grep -q "^alias fs-hugetmpfs hugetmpfs$" \
	"$dest/lib/modules/$krel/modules.alias"
check "the man page" test -f "$dest/usr/share/man/man5/hugetmpfs.5"
check "hugetmpfsctl" test -x "$dest/usr/sbin/hugetmpfsctl"
check "hugetmpfsctl --help" grep -q "^SYNOPSIS" <("$dest/usr/sbin/hugetmpfsctl" --help)
if ! make "${args[@]}" uninstall >>"$work/log" 2>&1; then
	tail -n 30 "$work/log"
	echo "make install: FAIL: make uninstall"
	exit 1
fi
check "uninstall: no module" test ! -e "$ko"
check "uninstall: depmod forgot it" not grep -q "^extra/hugetmpfs.ko:" \
	"$dest/lib/modules/$krel/modules.dep"
check "uninstall: no man page" test ! -e "$dest/usr/share/man/man5/hugetmpfs.5"
check "uninstall: no hugetmpfsctl" test ! -e "$dest/usr/sbin/hugetmpfsctl"
done_checks "make install"
