#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Collapse in a memory cgroup at its limit. A collapse charges the huge
# folio where the data is charged. f (16 MiB in small pages) is written from
# a cgroup that is then left less than 2 MiB of room: the collapse thread's
# tries on f fail (collapse_fail_charge) while it collapses g, a file of the
# root cgroup queued with it; the ioctl fails with ENOMEM; nothing is
# OOM-killed; f reads back as written. Once the limit is lifted the thread
# collapses f on its own, still charged to the cgroup, which is uncharged
# when f goes. tmpfs in the same boot: MADV_COLLAPSE from a process of a
# cgroup without room fails (EBUSY), and succeeds once there is room.
# timeout: 600
set -u
. "$(dirname "$0")/lib.sh"
p=/sys/module/hugetmpfs/parameters
root=/sys/fs/cgroup
cg=$root/t-collapse-memcg
m=/mnt/t-collapse-memcg

grep -qw memory $root/cgroup.controllers || { echo "no memory controller"; exit 2; }
echo +memory >$root/cgroup.subtree_control || exit 2

restore() {
	echo N >$p/collapse_thread
	echo 1000 >$p/collapse_scan_sleep_ms
	umount $m $m-tmpfs 2>/dev/null
	rmdir $cg 2>/dev/null
}
trap restore EXIT

mkdir -p $m $m-tmpfs
mount -t hugetmpfs -o huge=never none $m || exit 2
sys=/sys/fs/hugetmpfs/$(mountpoint -d $m)
mkdir $cg || exit 2
# Only dd joins the cgroup: f is all it keeps charged there.
gen-bytes 1 16 |
	bash -c "echo \$\$ >$cg/cgroup.procs && exec dd of=$m/f bs=4k iflag=fullblock status=none"
gen-bytes 2 4 | dd of=$m/g bs=4k iflag=fullblock status=none
fsum=$(seed_md5 1 16) gsum=$(seed_md5 2 4)
check "f: small pages" test_huge $m/f 0
check "g: small pages" test_huge $m/g 0
# Whatever else the cgroup holds that reclaim could free, gone now.
echo 16M >$cg/memory.reclaim 2>/dev/null
cur=$(cat $cg/memory.current)
check "f: charged to the cgroup ($cur bytes)" test "$cur" -ge $((16 << 20))
echo $((cur + (1 << 20))) >$cg/memory.max

charge0=$(cat $sys/collapse_fail_charge)
charge_fails() { [ "$(cat $sys/collapse_fail_charge)" -ge $((charge0 + $1)) ]; }
echo 10 >$p/collapse_scan_sleep_ms
echo Y >$p/collapse_thread
mount -o remount,huge=always $m || exit 2
check "f: the thread's tries fail on the cgroup's limit" wait_for 300 charge_fails 3
check "g (root cgroup): collapsed meanwhile" wait_for 300 test_huge $m/g 2
check "f: still small pages" test_huge $m/f 0
check "f: as written" test "$(md5 $m/f)" = "$fsum"
out=$(hugetmpfsctl collapse $m/f 2>&1)
rc=$?
echo "ioctl in the full cgroup: exit $rc: $out"
check "ioctl: fails" test $rc = 1
check "ioctl: ENOMEM" grep -q "Cannot allocate memory" <<<"$out"
check "nothing OOM-killed" grep -qx "oom_kill 0" $cg/memory.events

echo max >$cg/memory.max
check "f: collapsed by the thread once the limit is lifted" \
	wait_for 300 test_huge $m/f 8
check "f: as written" test "$(md5 $m/f)" = "$fsum"
check "g: as written" test "$(md5 $m/g)" = "$gsum"
cur=$(cat $cg/memory.current)
check "f: still charged to the cgroup ($cur bytes)" test "$cur" -ge $((16 << 20))
rm $m/f $m/g
cur=$(cat $cg/memory.current)
check "uncharged on unlink ($cur bytes left)" test "$cur" -lt $((4 << 20))
umount $m

# tmpfs: MADV_COLLAPSE charges the caller's cgroup. Written in small
# pages under huge=never; huge=advise then aligns the mapping to 2 MiB and
# keeps khugepaged away (no MADV_HUGEPAGE here).
mount -t tmpfs -o huge=never none $m-tmpfs || exit 2
gen-bytes 3 4 | dd of=$m-tmpfs/t bs=4k iflag=fullblock status=none
mount -o remount,huge=advise $m-tmpfs || exit 2
tsum=$(seed_md5 3 4)
out=$(python3 - $cg $m-tmpfs/t <<'EOF'
import errno, mmap, os, sys
cg, path = sys.argv[1:]
with open(cg + "/cgroup.procs", "w") as f:
    f.write(str(os.getpid()))
f = open(path, "r+b")
m = mmap.mmap(f.fileno(), 0)
for off in range(0, len(m), 4096):
    m[off]
try:
    open(cg + "/memory.reclaim", "w").write("16M")
except OSError:
    pass
cur = int(open(cg + "/memory.current").read())
open(cg + "/memory.max", "w").write(str(cur + (3 << 19)))
try:
    m.madvise(25)       # MADV_COLLAPSE
    print("full: collapsed")
except OSError as e:
    print("full:", errno.errorcode[e.errno])
open(cg + "/memory.max", "w").write("max")
m.madvise(25)
print("room: collapsed")
EOF
)
echo "tmpfs MADV_COLLAPSE: $out"
check "tmpfs: MADV_COLLAPSE fails in the full cgroup" grep -q "full: EBUSY" <<<"$out"
check "tmpfs: and succeeds with room" grep -q "room: collapsed" <<<"$out"
check "tmpfs: as written" test "$(md5 $m-tmpfs/t)" = "$tsum"
umount $m-tmpfs
done_checks t-collapse-memcg
