#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak: the collapse thread at full size and under pressure. Two files
# of SOAK_COLLAPSE_MB (default 1024) are written in 4 KiB pieces while
# huge_override=deny holds every mount to small pages: one left alone, one
# kept mapped by a process. huge_override=none queues them, and the thread,
# at its default pace, makes at least 99% of both PMD-sized folios; the
# process then reads the same bytes through PMD entries. Then the same again
# while a stress-ng vm stressor churns most of the remaining memory, so that
# huge pages are scarce: the thread may take longer or fail for want of them
# (counted) but must get there and lose nothing. Finally nothing is held
# after unlink.
# timeout: 36000
set -u
. "$(dirname "$0")/lib.sh"
p=/sys/module/hugetmpfs/parameters
mb=${SOAK_COLLAPSE_MB:-1024}
ranges=$((mb / 2))
cd "$HT_MNT" || exit 2
mount -o remount,huge=always . || exit 2
sys=/sys/fs/hugetmpfs/$(mountpoint -d .)

restore() {
	echo none >$p/huge_override
	echo N >$p/collapse_thread
	[ -n "${mapper:-}" ] && kill "$mapper" 2>/dev/null
	[ -n "${hog:-}" ] && kill "$hog" 2>/dev/null
}
trap restore EXIT

both_huge() {
	[ "$(huge_folios a)" -ge $((ranges * 99 / 100)) ] &&
	[ "$(huge_folios b)" -ge $((ranges * 99 / 100)) ]
}

# both_huge, reporting progress once a minute while it waits
both_huge_report() {
	both_huge && return 0
	if [ $SECONDS -ge "${next_report:-0}" ]; then
		next_report=$((SECONDS + 60))
		progress "a $(huge_folios a), b $(huge_folios b) of $ranges huge;" \
			"collapsed $(cat $sys/collapsed)," \
			"no huge page $(cat $sys/collapse_fail_nomem)"
	fi
	return 1
}

# round NAME: write a and b fragmented, map b, let the thread work.
round() {
	local name=$1 sum digest kb start
	progress "$name: writing a and b in 4 KiB pieces"
	echo deny >$p/huge_override
	gen-bytes 1 $mb | dd of=a bs=4k iflag=fullblock status=none
	cp a b
	sum=$(seed_md5 1 $mb)
	progress "$name: written; mapping b"
	check "$name: written in small pages" test "$(huge_folios a)" = 0
	rm -f go mapper.out
	mkfifo go
	"$HT_TESTS/pmd-mapper.py" b go >mapper.out &
	mapper=$!
	check "$name: b mapped by a process" wait_for 3600 grep -q mapped mapper.out
	echo none >$p/huge_override
	# The thread's own pace decides when; this only waits for it.
	start=$SECONDS
	progress "$name: thread allowed to collapse"
	wait_for 3600 both_huge_report
	echo "$name: a $(huge_folios a), b $(huge_folios b) of $ranges huge after" \
		"$((SECONDS - start)) s; collapsed $(cat $sys/collapsed)," \
		"no huge page $(cat $sys/collapse_fail_nomem)"
	check "$name: a 99% huge" test "$(huge_folios a)" -ge $((ranges * 99 / 100))
	check "$name: b 99% huge" test "$(huge_folios b)" -ge $((ranges * 99 / 100))
	echo "$name: busy ranges $(cat $sys/collapse_fail_busy)"
	progress "$name: collapsed; checking the data"
	echo go >go
	wait "$mapper"
	mapper=
	read -r digest kb <<<"$(tail -n1 mapper.out)"
	check "$name: the mapper reads the same data" test "$digest" = "$sum"
	check "$name: through PMD entries ($kb kB)" \
		test "${kb:-0}" -ge $((mb * 1024 * 99 / 100))
	echo 3 >/proc/sys/vm/drop_caches
	check "$name: a unchanged" test "$(md5 a)" = "$sum"
	check "$name: b unchanged" test "$(md5 b)" = "$sum"
	rm -f a b go mapper.out
}

echo Y >$p/collapse_thread
round "defaults"

# Pressure: anonymous memory churned by stress-ng fills most of what is
# left, so huge pages are scarce and compaction has work to do.
if command -v stress-ng >/dev/null; then
	free_mb=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
	hog_mb=$(( (free_mb - 3 * mb) * 8 / 10 ))
	[ "$hog_mb" -gt 64 ] || hog_mb=64
	stress-ng --vm 1 --vm-bytes "${hog_mb}m" --vm-keep --vm-method rand-set \
		--timeout 0 --quiet &
	hog=$!
	round "under pressure (${hog_mb} MiB of anonymous memory churned)"
	kill "$hog"
	wait "$hog" 2>/dev/null
	hog=
else
	check "stress-ng in the guest" false
fi

check "nothing held after unlink" test "$(cat $sys/used_bytes)" = 0
done_checks soak-collapse
