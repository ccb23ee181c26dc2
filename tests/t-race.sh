#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The background mechanisms against user I/O (issue 38). Four workers
# (tests/race.c) write, write through mappings, read both ways, punch,
# fallocate and zero their slices of one huge=always file, and truncate,
# write and fallocate files of their own, while all of these run:
#  - the collapse thread without pauses, and a loop of the collapse ioctl;
#  - drop_caches 2 (the shrinkers, the hole shrinker among them);
#  - memory.reclaim of the workers' cgroup, with zram swap;
#  - migration: compaction, and migrate_pages(2) of the workers between
#    the two NUMA nodes.
# The timing is not deterministic, the outcome is: each worker checks every
# read against its model as it goes, and every byte at the end. The same on
# tmpfs huge=always, with khugepaged (no pauses) and MADV_COLLAPSE in the
# place of the collapse thread and ioctl. RACE_OPS (operations per worker)
# and RACE_SECONDS (run for that long instead: make soak's soak-race.sh;
# RACE_TMPFS_OPS and RACE_TMPFS_SECONDS for the tmpfs reference) override
# the defaults.
# timeout: 1200
set -u
. "$(dirname "$0")/lib.sh"
root=/sys/fs/cgroup
cg=$root/t-race
m=/mnt/t-race
zram=/sys/block/zram0
params=/sys/module/hugetmpfs/parameters
khd=/sys/kernel/mm/transparent_hugepage/khugepaged
ops=${RACE_OPS:-80}
# tmpfs is the reference that checks the test itself: fewer will do.
tmpfs_ops=${RACE_TMPFS_OPS:-30}
seconds=${RACE_SECONDS:-0}
tmpfs_seconds=${RACE_TMPFS_SECONDS:-$seconds}

[ -e $zram ] || { echo "no zram device (CONFIG_ZRAM)"; exit 77; }
[ -e /sys/devices/system/node/node1 ] || { echo "one NUMA node only: nothing to migrate between"; exit 77; }
grep -qw memory $root/cgroup.controllers || { echo "no memory controller"; exit 2; }
echo +memory >$root/cgroup.subtree_control || exit 2
ksleep=$(<$khd/scan_sleep_millisecs)
kalloc=$(<$khd/alloc_sleep_millisecs)
loops=()
stop_loops() {
	[ ${#loops[@]} = 0 ] && return
	kill "${loops[@]}" 2>/dev/null
	wait "${loops[@]}" 2>/dev/null
	loops=()
}
restore() {
	stop_loops
	echo "$ksleep" >$khd/scan_sleep_millisecs
	echo "$kalloc" >$khd/alloc_sleep_millisecs
	rm -f $stop
	umount $m 2>/dev/null
	zram_off
	rmdir $cg 2>/dev/null
}
trap restore EXIT
zram_on 512M || exit 2
mkdir -p $m $cg

# vmstat KEY: its count in /proc/vmstat (no process: acted() polls it)
vmstat() {
	local k v
	while read -r k v; do
		[ "$k" = "$1" ] && { echo "$v"; return; }
	done </proc/vmstat
}
stop=/tmp/t-race.stop.$$

# acted FS: swap-out, migration and (hugetmpfs) collapse all happened since
# the counts were taken
acted() {
	[ $(( $(vmstat pswpout) - swapped0 )) -gt 0 ] &&
		[ $(( $(vmstat pgmigrate_success) - migrated0 )) -gt 0 ] &&
		{ [ "$1" != hugetmpfs ] || [ "$(<$sys/collapsed)" -gt 0 ]; }
}

# start_loops FS: the mechanisms, in the background, until stop_loops
start_loops() {
	( while :; do echo 2 >/proc/sys/vm/drop_caches; sleep 0.5; done ) &
	loops+=($!)
	( while :; do echo 4M >$cg/memory.reclaim 2>/dev/null; sleep 0.3; done ) &
	loops+=($!)
	( while :; do echo 1 >/proc/sys/vm/compact_memory; sleep 1; done ) &
	loops+=($!)
	# migrate_pages(2) (256 on x86-64): every race process, node 0 <-> 1
	python3 -c 'import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
nodes = [ctypes.c_ulong(1), ctypes.c_ulong(2)]
n = 0
while True:
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            comm = open("/proc/%s/comm" % pid).read()
        except OSError:
            continue
        if comm == "race\n":
            libc.syscall(256, int(pid), 3, ctypes.byref(nodes[n & 1]),
                         ctypes.byref(nodes[~n & 1]))
    n += 1
    time.sleep(1)' &
	loops+=($!)
	if [ "$1" = hugetmpfs ]; then
		echo 0 >$params/collapse_scan_sleep_ms
		echo Y >$params/collapse_thread
		( while :; do hugetmpfsctl collapse $m/shared >/dev/null 2>&1
			sleep 0.3; done ) &
		loops+=($!)
	else
		echo 0 >$khd/scan_sleep_millisecs
		echo 0 >$khd/alloc_sleep_millisecs
		python3 -c 'import mmap, os, sys, time
while True:
    try:
        f = open(sys.argv[1], "r+b")
        m = mmap.mmap(f.fileno(), 0)
        try:
            m.madvise(25)       # MADV_COLLAPSE
        except OSError:
            pass
        m.close()
        f.close()
    except (OSError, ValueError):
        pass
    time.sleep(0.1)' $m/shared &
		loops+=($!)
	fi
}

seed=1
for fs in hugetmpfs tmpfs; do
	mount -t $fs -o huge=always none $m || exit 2
	[ $fs = hugetmpfs ] && sys=/sys/fs/hugetmpfs/$(mountpoint -d $m)
	migrated0=$(vmstat pgmigrate_success) swapped0=$(vmstat pswpout)
	start_loops $fs
	args=(-w 4 -s $seed)
	[ $fs = tmpfs ] && seconds=$tmpfs_seconds ops=$tmpfs_ops
	rm -f $stop
	if [ "$seconds" -gt 0 ]; then
		args+=(-t "$seconds")
	else
		args+=(-n "$ops" -f $stop)
	fi
	progress "$fs: race ${args[*]}"
	in_cgroup $cg race "${args[@]}" $m &
	rpid=$!
	# The workers go on past their operations until swap-out, migration
	# and (on hugetmpfs) collapse have each acted at least once: the
	# outcome may not depend on the machine's speed. The checks below
	# say which did not, if one never did.
	if [ "$seconds" = 0 ]; then
		for ((i = 0; i < 600; i++)); do
			acted $fs && break
			sleep 1
		done
		touch $stop
		progress "$fs: every mechanism had acted after ${i} s" \
			"(swapped out $(( $(vmstat pswpout) - swapped0 )), migrated" \
			"$(( $(vmstat pgmigrate_success) - migrated0 )))"
	fi
	wait $rpid
	rc=$?
	rm -f $stop
	stop_loops
	[ $fs = hugetmpfs ] && echo N >$params/collapse_thread
	migrated=$(( $(vmstat pgmigrate_success) - migrated0 ))
	swapped=$(( $(vmstat pswpout) - swapped0 ))
	stats=""
	if [ $fs = hugetmpfs ]; then
		for s in collapsed swap_out swap_in holes_freed splits; do
			stats+=" $s $(<$sys/$s)"
		done
	fi
	echo "$fs: pages migrated $migrated, swapped out $swapped;$stats"
	check "$fs: every worker consistent, every byte as modelled" test $rc = 0
	check "$fs: pages went to swap meanwhile ($swapped)" test $swapped -gt 0
	check "$fs: pages migrated meanwhile ($migrated)" test $migrated -gt 0
	if [ $fs = hugetmpfs ]; then
		check "$fs: ranges were collapsed meanwhile ($(<$sys/collapsed))" \
			test "$(<$sys/collapsed)" -gt 0
	fi
	rm -f $m/*
	umount $m
	seed=$((seed + 1))
done
done_checks t-race
