#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The hole shrinker against everything else: under huge=always, fsx (reads,
# writes, shared mmap writes, truncates, punches, preallocation on three
# files) and writers appending to small files while readers read them, all
# while the shrinker runs every 10 ms (drop_caches 2) for RACE_SECONDS
# (default 6; make soak runs it for SOAK_MINUTES). Data checked byte for
# byte (fsx against its model, the appended files against what was
# appended); after everything is removed, no space and no hole is left.
# timeout: 36000
set -u
. "$(dirname "$0")/lib.sh"
secs=${RACE_SECONDS:-6}
cd "$HT_MNT" || exit 2
mount -o remount,huge=always . || exit 2
sys=/sys/fs/hugetmpfs/$(mountpoint -d .)
freed0=$(cat $sys/holes_freed)

mkdir small
end=$((SECONDS + secs))
( while [ $SECONDS -lt $end ]; do
	echo 2 >/proc/sys/vm/drop_caches
	sleep 0.01
done ) &
shrinker=$!

# Appenders: each line goes to one of 16 files, the expected copy to /tmp.
appender() {
	local a=$1 i=0 f
	while [ $SECONDS -lt $end ]; do
		f=$((i % 16))
		printf 'appender %d line %d\n' "$a" $i >>small/$a.$f
		printf 'appender %d line %d\n' "$a" $i >>/tmp/t-holes-race.$a.$f
		i=$((i + 1))
	done
}
rm -f /tmp/t-holes-race.*
appender 1 &
a1=$!
appender 2 &
a2=$!
( while [ $SECONDS -lt $end ]; do cat small/* >/dev/null 2>&1; done ) &
reader=$!

ops=0 fsx_fails=0 seed=${FSX_SEED:-7}
while [ $SECONDS -lt $end ]; do
	fsx -s $seed -n 300 -m 8 -f 3 -l 64 . >/tmp/t-holes-race.fsx 2>&1 || {
		fsx_fails=$((fsx_fails + 1))
		tail -n 40 /tmp/t-holes-race.fsx
	}
	ops=$((ops + 300))
	seed=$((seed + 1))
	rm -f fsx.*
done
wait $shrinker $a1 $a2 $reader

bad=0
for f in /tmp/t-holes-race.*.*; do
	cmp -s "$f" "small/${f#/tmp/t-holes-race.}" || bad=$((bad + 1))
done
echo "$ops fsx operations (seeds from ${FSX_SEED:-7}), $(cat small/* | wc -l) lines appended, $(( $(cat $sys/holes_freed) - freed0 )) hole pages freed"
check "fsx consistent throughout" test $fsx_fails = 0
check "appended files read back ($bad differ)" test $bad = 0
check "the shrinker freed holes meanwhile" test "$(cat $sys/holes_freed)" -gt "$freed0"
rm -rf small /tmp/t-holes-race.*
check "no space left in use ($(cat $sys/used_bytes))" test "$(cat $sys/used_bytes)" = 0
check "no holes left ($(cat $sys/free_hole_bytes))" test "$(cat $sys/free_hole_bytes)" = 0
done_checks t-holes-race
