#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A memory.max-limited cgroup cannot exceed its limit by writing to a file,
# and the file's memory is charged to the writer's cgroup until the file
# goes: the same on hugetmpfs (huge=always) and on tmpfs. The writer is
# OOM-killed or sees an error; the OOM report that leaves in the kernel log
# is expected (the runner reads the log: anything else in it fails the test).
# timeout: 300
# expects: oom-kill
set -u
. "$(dirname "$0")/lib.sh"
root=/sys/fs/cgroup
cg=$root/t-memcg
limit=$((64 << 20))

grep -qw memory $root/cgroup.controllers || { echo "no memory controller"; exit 2; }
echo +memory >$root/cgroup.subtree_control || exit 2
trap 'rmdir $cg 2>/dev/null; umount /mnt/t-memcg-* 2>/dev/null' EXIT

for fs in hugetmpfs tmpfs; do
	d=/mnt/t-memcg-$fs
	mkdir -p $d
	mount -t $fs -o huge=always none $d || { check "mount $fs" false; continue; }
	mkdir $cg || exit 2
	echo $limit >$cg/memory.max
	# Data that is not zeros, so that what was written can be checked.
	# Only dd joins the cgroup, so the OOM killer has one process to choose
	# and $? is its status (no pipefail: yes ends by SIGPIPE).
	yes hugetmpfs-memcg 2>/dev/null | bash -c "echo \$\$ >$cg/cgroup.procs && exec dd iflag=fullblock of=$d/f bs=1M count=256 status=none" 2>/dev/null
	rc=$?
	size=$(stat -c %s $d/f)
	same=no
	yes hugetmpfs-memcg | head -c "$size" | cmp -s -n "$size" $d/f - && same=yes
	check "$fs: what was written reads back" test $same = yes
	peak=$(cat $cg/memory.peak)
	current=$(cat $cg/memory.current)
	echo "$fs: dd exit $rc, file $size bytes, cgroup peak $peak current $current, $(grep oom_kill $cg/memory.events | tr '\n' ' ')"
	check "$fs: the writer failed" test $rc -ne 0
	check "$fs: file ($size) within memory.max" test "$size" -le $limit
	check "$fs: the cgroup reached its limit (peak $peak)" \
		test "$peak" -ge $((limit - (4 << 20)))
	check "$fs: file ($size) charged to the writer's cgroup ($current)" \
		test "$current" -ge $((size - (1 << 20)))
	rm $d/f
	current=$(cat $cg/memory.current)
	check "$fs: uncharged on unlink ($current left)" test "$current" -lt $((4 << 20))
	rmdir $cg
	umount $d
done

done_checks t-memcg
