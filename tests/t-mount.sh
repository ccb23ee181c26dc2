#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Mounting: options are applied and shown in /proc/mounts, remount changes
# huge=, bad options fail with EINVAL and a kernel log line naming them, and
# mount/unmount cycles work.
# timeout: 300
set -u
m=/mnt/t-mount
. "$(dirname "$0")/lib.sh"
# Builtins only where it is easy: each program started costs 0.1-0.5 s
# under TCG and KASAN.
opts() {
	local mp o
	while read -r _ mp _ o _; do
		[ "$mp" = "$m" ] && echo "$o"
	done </proc/mounts
}
has_opt() { [[ ,$(opts), == *,$1,* ]]; }
mounted() { [ -n "$(opts)" ]; }
refused() { ! "$@" 2>/dev/null; }
# matches TEXT ERE: TEXT holds a match of ERE, whatever the case
matches() { [[ ${1,,} =~ $2 ]]; }

NL=$'\n'
mkdir -p $m

check "default mount" mount -t hugetmpfs none $m
check "default huge=within_size shown" has_opt huge=within_size
check "root mode 1777" test "$(stat -c %a $m)" = 1777
check "remount huge=never" mount -o remount,huge=never $m
check "huge=never shown after remount" has_opt huge=never
check "umount" umount $m

check "mount with mode/uid/gid/huge" \
	mount -t hugetmpfs -o mode=0750,uid=1000,gid=1001,huge=always none $m
check "mode applied" test "$(stat -c %a:%u:%g $m)" = 750:1000:1001
for o in mode=750 uid=1000 gid=1001 huge=always; do
	check "$o shown" has_opt $o
done
check "umount" umount $m

# Bad options: EINVAL (mount(8) exits 32 and says "wrong fs type, bad option")
# and the kernel log names the option.
# The kernel log is read from a mark made before each mount, never cleared:
# the runner reads it after the test.
n=0
for bad in huge=sometimes bogus=1 mode=99x uid=abc huge nr_inodes=12q \
	   size=12q size=101% size= nr_blocks=7x inode64=1; do
	n=$((n + 1))
	echo "t-mount: mark $n" >/dev/kmsg
	out=$(mount -t hugetmpfs -o "$bad" none $m 2>&1)
	rc=$?
	check "bad option '$bad' refused" test $rc -ne 0
	check "bad option '$bad' not mounted" refused mounted
	check "bad option '$bad' reported: $out" \
		matches "$out" 'bad option|invalid argument'
	name=${bad%%=*}
	log=$(dmesg)
	log=${log##*"t-mount: mark $n"}
	check "kernel log names '$name'" matches "$log" "hugetmpfs[^$NL]*$name"
	mounted && umount $m
done

# nr_inodes: the root counts; the next create past the limit is ENOSPC.
check "mount nr_inodes=10" mount -t hugetmpfs -o nr_inodes=10 none $m
check "nr_inodes=10 shown" has_opt nr_inodes=10
for i in $(seq 1 9); do : >$m/f$i || check "create file $i of 9" false; done
out=$(touch $m/f10 2>&1)
check "10th inode refused" test ! -e $m/f10
check "with ENOSPC: $out" matches "$out" 'no space left'
check "statfs counts them (total free): $(stat -f -c "%c %d" $m)" test "$(stat -f -c "%c %d" $m)" = "10 0"
check "remount below use refused" refused mount -o remount,nr_inodes=5 $m
rm $m/f9
check "a freed inode can be reused" touch $m/g
check "remount nr_inodes=0 (no limit)" mount -o remount,nr_inodes=0 $m
check "unlimited again" touch $m/f10 $m/f11
check "umount" umount $m
check "nr_inodes=1k" mount -t hugetmpfs -o nr_inodes=1k none $m
check "nr_inodes=1k shown as 1024" has_opt nr_inodes=1024
check "umount" umount $m

# size= and nr_blocks= in bytes (k/m/g), percent of RAM or pages; shown in k.
check "mount size=4m" mount -t hugetmpfs -o size=4m none $m
check "size=4m shown as 4096k" has_opt size=4096k
check "statfs: 1024 blocks" test "$(stat -f -c %b $m)" = 1024
check "inode64 by default" has_opt inode64
check "remount nr_blocks=100" mount -o remount,nr_blocks=100 $m
check "nr_blocks=100 shown as size=400k" has_opt size=400k
check "remount size=1g" mount -o remount,size=1g $m
check "size=1g shown" has_opt size=1048576k
check "remount inode32" mount -o remount,inode32 $m
check "inode32 shown" has_opt inode32
touch $m/x
check "inode32: a 32-bit inode number" test "$(stat -c %i $m/x)" -lt 4294967296
check "umount" umount $m
check "mount size=10%" mount -t hugetmpfs -o size=10% none $m
mem=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
blocks=$(stat -f -c %b $m)
check "size=10% is a tenth of RAM ($blocks blocks of 4k, MemTotal $mem kB)" \
	test $((blocks * 4 * 10 / mem)) = 1
check "umount" umount $m
check "default mount" mount -t hugetmpfs none $m
check "default size not shown" refused matches "$(opts)" size=
blocks=$(stat -f -c %b $m)
check "default size is half of RAM ($blocks blocks, MemTotal $mem kB)" \
	test $(( (blocks * 8 + 8) / mem )) = 1
umount $m 2>/dev/null

# Many mount/unmount cycles with data in them.
cycles=0
for i in $(seq 1 8); do
	mount -t hugetmpfs none $m || break
	head -c $((i * 100000)) /dev/urandom >$m/f
	[ "$(stat -c %s $m/f)" = $((i * 100000)) ] || { umount $m; break; }
	umount $m || break
	cycles=$i
done
check "8 mount, write, umount cycles ($cycles done)" test $cycles = 8

done_checks t-mount
