#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: boot the non-debug kernel once, run bench/run-bench in the
# guest, and write bench/results/<kernel>-<date>[-quick]/ with the raw
# results (CSV, JSON), report.md and charts. Prints the report's path.
#
# usage: bench.sh --kernel F --rootfs F --module F --bins DIR [--quick]
#   HUGETMPFS_BENCH_MEM    guest memory (default 8G)
#   HUGETMPFS_ACCEL        tcg (default) or kvm
#   BENCH_ONLY='glob'      only the workloads whose names match
#   BENCH_ROUNDS=N         rounds (default: 5, quick 2)
#   BENCH_OUT=DIR          where results go (default bench/results)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kernel="" rootfs="" module="" bins="" mode=full
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--rootfs) rootfs=$2; shift 2 ;;
	--module) module=$2; shift 2 ;;
	--bins) bins=$2; shift 2 ;;
	--quick) mode=quick; shift ;;
	*) echo "bench: unknown option '$1'" >&2; exit 2 ;;
	esac
done
[ -d "$bins" ] || { echo "bench: no programs in '$bins'" >&2; exit 2; }

work=$(mktemp -d /tmp/hugetmpfs-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/stage/bench"
cp -a "$bins/." "$top/bench/run-bench" "$top/bench/report.py" "$work/stage/bench/"

rc=0
cache=${HUGETMPFS_CACHE:-/var/cache/hugetmpfs}
mkdir -p "$cache/logs"
log=$cache/logs/bench-$(date +%Y%m%d-%H%M%S).log
HUGETMPFS_MEM=${HUGETMPFS_BENCH_MEM:-8G} "$top/scripts/qemu-run.sh" \
	--kernel "$kernel" --rootfs "$rootfs" --module "$module" \
	--add "$work/stage/bench" --out "$work/result" --timeout 0 --log "$log" \
	--cmd "BENCH_ONLY='${BENCH_ONLY:-*}' BENCH_ROUNDS='${BENCH_ROUNDS:-}' /payload/bench/run-bench /payload/results $mode" ||
	rc=$?
res=$work/result/results
[ -f "$res/results.csv" ] || { echo "bench: the guest left no results (status $rc)" >&2; exit 1; }

kver=$(sed -n 's/^kernel //p' "$res/meta.txt")
stamp=$(date -u +%Y%m%d-%H%M)
dest=${BENCH_OUT:-$top/bench/results}/$kver-$stamp
[ "$mode" = full ] || dest=$dest-$mode
mkdir -p "$dest"
cp "$res/results.csv" "$res/plan.txt" "$res/meta.txt" "$dest/"
{
	echo "commit $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "accel ${HUGETMPFS_ACCEL:-tcg}"
	echo "guest_memory ${HUGETMPFS_BENCH_MEM:-8G}"
	echo "host_cpu $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo) ($(nproc) CPUs)"
} >"$dest/host.txt"
# Debian's python3, which has python3-matplotlib (not another on PATH).
py=/usr/bin/python3
[ -x $py ] || py=python3
$py "$top/bench/report.py" "$dest" >/dev/null
[ "$rc" -eq 0 ] || echo "bench: some runs failed (status $rc): see the report's problems" >&2
# A kernel report in the console log fails the run, whatever the figures.
if ! "$top/scripts/kernel-reports.sh" "$log" >"$dest/kernel-reports.txt"; then
	echo "bench: kernel reports in the console log ($log):" >&2
	cat "$dest/kernel-reports.txt" >&2
	[ "$rc" -ne 0 ] || rc=1
else
	rm -f "$dest/kernel-reports.txt"
fi
echo "$dest/report.md"
exit "$rc"
