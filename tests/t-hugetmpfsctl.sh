#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hugetmpfsctl as a user runs it: stat shows a file written in small pages
# (huge=never), collapse makes it huge folios and says how many, stat then
# shows them; policy sets and shows a file's own policy, which then decides
# for new folios over the mount's; bad usage exits 2, a failed operation 1
# with the reason (a file on tmpfs: not hugetmpfs); --help is a manual.
# timeout: 300
set -u
. "$(dirname "$0")/lib.sh"
ctl=hugetmpfsctl

# field FILE NAME: a number from "hugetmpfsctl stat FILE"
field() {
	$ctl stat "$1" | sed -n "s/.*$2 \([0-9]*\).*/\1/p"
}

mount -o remount,huge=never . || exit 2
gen-bytes 1 8 >f
sum=$(seed_md5 1 8)
check "stat: 8 MiB" test "$(field f size)" = 8388608
check "stat: all small pages" test "$(field f 'small pages')" = 2048
check "stat: no huge folio" test "$(field f 'huge folios')" = 0
out=$($ctl collapse f)
check "collapse: '$out'" test "$out" = "f: 4 ranges collapsed, 0 already huge"
check "stat: 4 huge folios after" test "$(field f 'huge folios')" = 4
check "stat: no small page after" test "$(field f 'small pages')" = 0
echo 3 >/proc/sys/vm/drop_caches
check "data unchanged" test "$(md5 f)" = "$sum"
out=$($ctl collapse f 0 4M)
check "again: '$out'" test "$out" = "f: 0 ranges collapsed, 2 already huge"

# A file's own policy
check "policy: inherit at first" test "$($ctl policy f)" = "f: inherit"
: >g
check "policy g always" test "$($ctl policy g always)" = "g: always"
head -c 4M /dev/zero | tr '\0' x >>g
check "g: huge folios on a huge=never mount" test "$(field g 'huge folios')" = 2
check "stat shows both" grep -q "policy always (own: always)" <<<"$($ctl stat g)"
$ctl policy g sometimes >/dev/null 2>&1
check "a bad policy: exit status 2" test $? = 2
check "policy g inherit" test "$($ctl policy g inherit)" = "g: inherit"

# Not hugetmpfs: the reason, exit status 1
mkdir -p /mnt/t-hugetmpfsctl
mount -t tmpfs tmpfs /mnt/t-hugetmpfsctl || exit 2
: >/mnt/t-hugetmpfsctl/t
err=$($ctl stat /mnt/t-hugetmpfsctl/t 2>&1 >/dev/null)
check "tmpfs: exit status 1" test $? = 1
check "tmpfs: says why ('$err')" grep -q "not on a hugetmpfs mount" <<<"$err"
umount /mnt/t-hugetmpfsctl
$ctl collapse f 1Q >/dev/null 2>&1
check "a bad size: exit status 2" test $? = 2
check "--help is a manual" grep -q "^SYNOPSIS" <<<"$($ctl --help)"

rm -f f g
done_checks t-hugetmpfsctl
