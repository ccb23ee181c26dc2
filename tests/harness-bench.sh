#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The benchmark harness at toy size, so that it cannot rot unseen: every
# benchmark program once (run-bench toy), every figure present and a
# number (report.py --check), and the report written. Nothing is timed here:
# benchmarks never pass or fail on speed.
# timeout: 900
set -u
bench=/payload/bench
[ -x $bench/run-bench ] || { echo "no benchmark programs in $bench"; exit 2; }
out=$(mktemp -d /tmp/bench-toy.XXXXXX)
trap 'rm -rf "$out"' EXIT
shmem_enabled=$(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

$bench/run-bench "$out" toy || fail "run-bench toy reported failed runs"
python3 $bench/report.py --check "$out" || fail "results incomplete"
python3 $bench/report.py "$out" >/dev/null || fail "report.py failed"
[ -s "$out/report.md" ] || fail "no report.md"
# results.json has rows (a Python start costs seconds under TCG and KASAN;
# report.py --check read the same rows from results.csv)
grep -q '^ *"rows": \[$' "$out/results.json" || fail "results.json has no rows"
# The harness must leave the system as it found it.
grep -q "^order mounts rotated" "$out/meta.txt" ||
	fail "meta.txt does not say the mounts' order rotates"
# A failed run is left out of the medians and named: mark one of the toy's
# runs failed as run-bench would (its figures gone, a "failed" row).
f=$(awk -F, 'NR == 2 { print $1 "," $2 "," $3 }' "$out/results.csv")
mkdir "$out/failed"
cp "$out/plan.txt" "$out/meta.txt" "$out/failed/"
{ head -n1 "$out/results.csv"
  tail -n +2 "$out/results.csv" | grep -v "^$f,"
  echo "$f,failed,1,run"; } >"$out/failed/results.csv"
python3 $bench/report.py --check "$out/failed" >"$out/failed/check.txt" &&
	fail "report.py --check passed with a failed run"
IFS=, read -r _ w m <<<"$f"
grep -q "FAILED: $w on $m in round 1 (left out)" "$out/failed/check.txt" ||
	fail "report.py does not name the failed run"
[ "$(grep -c . "$out/failed/check.txt")" = 2 ] ||
	fail "a failed run's missing figures reported as missing: $(cat "$out/failed/check.txt")"
[ "$(cat /sys/module/hugetmpfs/parameters/huge_override)" = none ] ||
	fail "huge_override left changed"
[ "$(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled)" = "$shmem_enabled" ] ||
	fail "shmem_enabled left changed"
[ "$(cat /proc/sys/vm/nr_hugepages)" = 0 ] || fail "hugetlb pool left reserved"
! grep -q ' /mnt/bench/' /proc/mounts || fail "benchmark mounts left behind"
echo "harness-bench: $(($(wc -l <"$out/results.csv") - 1)) figures, $fails failures"
exit $fails
