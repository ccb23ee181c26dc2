#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the hugetmpfs guest: the patched kernel, the debootstrap root image
# (copy-on-write, never modified) and a 9p payload with the module.
#
# usage: qemu-run.sh [options] [-- command...]
#   --kernel FILE    bzImage (default $HUGETMPFS_KERNEL)
#   --rootfs FILE    root image (default $HUGETMPFS_ROOTFS)
#   --module FILE    hugetmpfs.ko (default $HUGETMPFS_MODULE)
#   --add DIR        copy DIR into the payload, seen in the guest as /payload/<name>
#   --share DIR      host directory seen in the guest as /mnt/host (9p, read-write)
#   --cmd STRING     shell command to run after the mount, instead of a shell
#   --timeout SECS   kill the guest after SECS (default 1800; 0 = none)
#   --mem SIZE       guest memory (default $HUGETMPFS_MEM or 4G)
#   --smp N          guest CPUs (default 2)
#   --numa N         NUMA nodes sharing memory and CPUs evenly (default
#                    $HUGETMPFS_NUMA or 2, as on a two-socket server; 1: none)
#   --log FILE       console log (default: a new file under $HUGETMPFS_CACHE/logs)
#   --out DIR        after the run, copy the payload's files (results) there
#
# HUGETMPFS_ACCEL=kvm uses KVM; the default is TCG, which works everywhere.
# HUGETMPFS_APPEND adds kernel command line arguments.
# Exits with the guest command's status; 124 on timeout, 125 if the guest
# died without reporting one.
set -euo pipefail

kernel=${HUGETMPFS_KERNEL:-}
rootfs=${HUGETMPFS_ROOTFS:-}
module=${HUGETMPFS_MODULE:-}
cache=${HUGETMPFS_CACHE:-/var/cache/hugetmpfs}
mem=${HUGETMPFS_MEM:-4G}
accel=${HUGETMPFS_ACCEL:-tcg}
numa=${HUGETMPFS_NUMA:-2}
smp=2 timeout_s=1800 cmd="" share="" log="" out=""
adds=()

die() { echo "qemu-run: error: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--rootfs) rootfs=$2; shift 2 ;;
	--module) module=$2; shift 2 ;;
	--add) adds+=("$2"); shift 2 ;;
	--share) share=$2; shift 2 ;;
	--cmd) cmd=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--numa) numa=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--) shift; cmd="$*"; break ;;
	-h|--help) sed -n '3,/^set /p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done

[ -f "$kernel" ] || die "no kernel image (--kernel or HUGETMPFS_KERNEL): '$kernel'"
[ -f "$rootfs" ] || die "no root image (--rootfs or HUGETMPFS_ROOTFS): '$rootfs'"
[ -f "$module" ] || die "no module (--module or HUGETMPFS_MODULE): '$module'"
[ -z "$share" ] || [ -d "$share" ] || die "--share: '$share' is not a directory"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is not installed"
case $mem in
*G) mem_mb=$(( ${mem%G} * 1024 )) ;;
*M) mem_mb=${mem%M} ;;
*) die "--mem: '$mem' is not a size in M or G" ;;
esac
case $numa in
''|*[!0-9]*|0) die "--numa: '$numa' is not a number of nodes" ;;
esac
[ $((smp % numa)) = 0 ] && [ $((mem_mb % numa)) = 0 ] ||
	die "--numa $numa must divide the CPUs ($smp) and the memory (${mem_mb}M)"

here=$(cd "$(dirname "$0")" && pwd)
payload=$(mktemp -d /tmp/hugetmpfs-payload.XXXXXX)
trap 'rm -rf "$payload"' EXIT
chmod 755 "$payload"
install -m 0755 "$here/guest-init" "$payload/guest-init"
install -m 0644 "$module" "$payload/hugetmpfs.ko"
for d in "${adds[@]}"; do
	cp -a "$d" "$payload/"
done
[ -z "$cmd" ] || printf '%s\n' "$cmd" >"$payload/cmd"

if [ -z "$log" ]; then
	mkdir -p "$cache/logs"
	log=$cache/logs/console-$(date +%Y%m%d-%H%M%S)-$$.log
fi
: >"$log"

case $accel in
# Without ERMS: TCG runs a "rep movsb" or "rep stosb" one byte per loop, and
# with ERMS the kernel copies to and from user space and clears every page
# that way; without it, 8 bytes a loop or plain moves.
tcg) accel_args=(-accel tcg,thread=multi -cpu max,-erms) ;;
kvm) [ -w /dev/kvm ] || die "HUGETMPFS_ACCEL=kvm but /dev/kvm is not usable"
     accel_args=(-accel kvm -cpu host) ;;
*) die "HUGETMPFS_ACCEL must be tcg or kvm, not '$accel'" ;;
esac
echo "qemu-run: accel=$accel smp=$smp mem=$mem numa=$numa console log: $log" >&2

# Under TCG a vCPU can stall for seconds when the host is busy: the lockup,
# RCU-stall and hung-task detectors get thresholds that only a real hang
# reaches (soft lockup at 120 s, RCU stall at 180 s, hung task at 300 s),
# all still well inside a test's timeout.
watchdogs="watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=180 sysctl.kernel.hung_task_timeout_secs=300"
# 4-level paging: TCG's "max" CPU has LA57, and 6.12's identify_cpu() clears
# the boot CPU's feature bits before reading them again; an interrupt in that
# window made KASAN take a 5-level direct-map address for a wild access
# (seen once in twelve boots, before the module loaded).
paging="no5lvl"
# A socket per node: CPUs sharing a cache on two nodes upset the scheduler.
args=(qemu-system-x86_64 "${accel_args[@]}" -smp "$smp,sockets=$numa" -m "$mem"
	-nodefaults -no-user-config -display none -no-reboot
	-kernel "$kernel"
	-append "root=/dev/vda rw console=ttyS0 init=/sbin/hugetmpfs-init panic=-1 loglevel=6 pci=noacpi $paging $watchdogs ${HUGETMPFS_APPEND:-}"
	-drive "file=$rootfs,format=raw,if=virtio,snapshot=on"
	-virtfs "local,path=$payload,mount_tag=payload,security_model=none,id=payload"
	-device virtio-rng-pci)
# Each node: its share of the memory and a contiguous run of CPUs.
if [ "$numa" -gt 1 ]; then
	per=$((smp / numa))
	for ((n = 0; n < numa; n++)); do
		args+=(-object "memory-backend-ram,id=mem$n,size=$((mem_mb / numa))M"
		       -numa "node,nodeid=$n,cpus=$((n * per))-$((n * per + per - 1)),memdev=mem$n")
	done
fi
[ -z "$share" ] ||
	args+=(-virtfs "local,path=$(cd "$share" && pwd),mount_tag=share,security_model=none,id=share")

if [ -z "$cmd" ] && [ -t 0 ]; then
	# Interactive: the serial console is the terminal; Ctrl-A X quits QEMU.
	args+=(-chardev "stdio,id=con,mux=on,signal=off,logfile=$log" -serial chardev:con
		-mon chardev=con,mode=readline)
else
	args+=(-chardev "stdio,id=con,logfile=$log" -serial chardev:con)
fi

rc=0
start=$SECONDS
if [ "$timeout_s" -gt 0 ]; then
	timeout -k 10 --foreground "$timeout_s" "${args[@]}" || rc=$?
else
	"${args[@]}" || rc=$?
fi
echo "qemu-run: guest ran $((SECONDS - start)) s (accel=$accel); console log: $log" >&2

if [ -n "$out" ]; then
	mkdir -p "$out"
	cp -a "$payload/." "$out/"
fi
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	echo "qemu-run: guest timed out after $timeout_s s" >&2
	exit 124
fi
if [ ! -f "$payload/status" ]; then
	echo "qemu-run: guest stopped without an exit status (qemu rc=$rc)" >&2
	exit 125
fi
status=$(cat "$payload/status")
echo "qemu-run: guest command exit status $status" >&2
exit "$status"
