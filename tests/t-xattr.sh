#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Extended attributes in user., trusted. and security., and POSIX ACLs
# (setfacl/getfacl, default ACL inheritance, umask without one), the same on
# hugetmpfs and, for comparison, on tmpfs in the same boot.
# timeout: 300
set -u
fails=0
fail() { echo "FAIL ($fs): $*"; fails=$((fails + 1)); }

run_checks() {
	cd "$1" || exit 2
	: >f
	setfattr -n user.color -v blue f || fail "set user."
	setfattr -n trusted.t -v 1 f || fail "set trusted."
	setfattr -n security.s -v 2 f || fail "set security."
	[ "$(getfattr --only-values -n user.color f 2>/dev/null)" = blue ] || fail "get user."
	names=$(getfattr -m - -d f 2>/dev/null | grep -c '=')
	[ "$names" = 3 ] || fail "listxattr shows $names attributes, expected 3"
	setfattr -n user.color -v green f
	[ "$(getfattr --only-values -n user.color f)" = green ] || fail "replace"
	setfattr -x user.color f || fail "remove"
	getfattr -n user.color f >/dev/null 2>&1 && fail "removed attribute still there"
	big=$(head -c 60000 /dev/zero | tr '\0' a)
	setfattr -n user.big -v "$big" f || fail "60000-byte value"
	[ "$(getfattr --only-values -n user.big f | wc -c)" = 60000 ] || fail "big value length"

	umask 022
	mkdir acl
	setfacl -m u:1234:rwx acl || fail "setfacl"
	getfacl -p acl 2>/dev/null | grep -q '^user:1234:rwx' || fail "getfacl shows the entry"
	setfacl -d -m u:4321:r-x acl || fail "default ACL"
	: >acl/child
	getfacl -p acl/child 2>/dev/null | grep -q '^user:4321:r-x' || fail "default ACL inherited"
	mkdir plain
	: >plain/f
	[ "$(stat -c %a plain/f)" = 644 ] || fail "umask applied without a default ACL: $(stat -c %a plain/f)"
	chmod 600 acl/child
	getfacl -p acl/child 2>/dev/null | grep -q '^mask::---' || fail "chmod updates the ACL mask"
	cd /
}

fs=hugetmpfs
run_checks "$HT_MNT"
t=/mnt/t-xattr-tmpfs
mkdir -p $t
mount -t tmpfs tmpfs $t || exit 2
fs=tmpfs
run_checks $t
umount $t
echo "t-xattr: $fails failed"
exit $fails
