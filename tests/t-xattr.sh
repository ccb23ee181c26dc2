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

# Extended attributes use up nr_inodes as on tmpfs: 8 inodes are 8 KiB, the
# root and a file take 2 KiB, each 3000-byte value about 3 KiB more.
inode_space_checks() {
	local d=/mnt/t-xattr-ni v free0 free1 free2
	v=$(head -c 3000 /dev/zero | tr '\0' a)
	mkdir -p $d
	mount -t "$fs" -o nr_inodes=8 none $d || { fail "mount nr_inodes=8"; return; }
	: >$d/f
	free0=$(stat -f -c %d $d)
	setfattr -n user.a -v "$v" $d/f || fail "first 3000-byte value"
	free1=$(stat -f -c %d $d)
	setfattr -n user.b -v "$v" $d/f || fail "second 3000-byte value"
	out=$(setfattr -n user.c -v "$v" $d/f 2>&1) && fail "third value fits in nr_inodes=8"
	echo "$out" | grep -q "No space left" || fail "third value: $out"
	setfattr -x user.a $d/f
	setfattr -x user.b $d/f
	free2=$(stat -f -c %d $d)
	echo "$fs: free inodes $free0, with one attribute $free1, after removal $free2"
	[ "$free1" -lt "$free0" ] || fail "an attribute uses up inodes ($free0 -> $free1)"
	[ "$free2" = "$free0" ] || fail "removal gives them back ($free0 -> $free2)"
	rm $d/f
	umount $d
	eval "free_$fs='$free0 $free1 $free2'"
}

fs=hugetmpfs
run_checks "$HT_MNT"
inode_space_checks
t=/mnt/t-xattr-tmpfs
mkdir -p $t
mount -t tmpfs tmpfs $t || exit 2
fs=tmpfs
run_checks $t
umount $t
inode_space_checks
# shellcheck disable=SC2154
[ "$free_hugetmpfs" = "$free_tmpfs" ] ||
	fail "free inodes differ: hugetmpfs $free_hugetmpfs, tmpfs $free_tmpfs"
echo "t-xattr: $fails failed"
exit $fails
