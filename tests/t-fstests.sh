#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A short, fixed fstests subset on hugetmpfs and tmpfs (huge=always), through
# the same runner and summary as make fstests, so that the harness cannot rot
# between full runs. Fails if a test fails on hugetmpfs and passes on tmpfs,
# or if the subset did not run on hugetmpfs. fstests is kept away from
# kmemleak (DEBUGFS_MNT elsewhere): it would clear the report after each of
# its tests, and scans take a minute each under KASAN and TCG; the runner's
# own scan at the end covers this test with the rest.
# timeout: 900
set -u
. "$(dirname "$0")/lib.sh"
p=/payload/fstests
# generic/286 (SEEK_DATA/SEEK_HOLE on sparse copies) takes ~50 s per
# filesystem under KASAN and TCG; most generic tests take minutes there.
tests=(generic/286)
out=$(mktemp -d /tmp/t-fstests.XXXXXX)

if [ ! -f $p/fstests.tar.gz ]; then
	echo "no fstests build in the payload (no FSTESTS_SRC on the host)"
	exit 77
fi

cd /
DEBUGFS_MNT=/nonexistent FSTESTS_MODES="hugetmpfs:always tmpfs:always" \
	$p/run-fstests "$out" "${tests[@]}"
python3 $p/summary.py --expunge $p/expunge --out "$out" "$out"
check "nothing fails on hugetmpfs that passes on tmpfs" test $? = 0

ran=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["counts"].get("hugetmpfs-always", {})
print(c.get("pass", 0) + c.get("fail", 0))' "$out/summary.json")
check "the subset ran on hugetmpfs ($ran of ${#tests[@]})" test "${ran:-0}" -eq ${#tests[@]}
rm -rf "$out"
done_checks t-fstests
