#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A short, fixed fstests subset on hugetmpfs (huge=always), through the same
# runner and summary as make fstests, so that the harness cannot rot between
# full runs. Each test of the subset passes on tmpfs (make fstests compares
# the two); here it must pass on hugetmpfs. fstests is kept away from
# kmemleak (DEBUGFS_MNT elsewhere): it would clear the report after each of
# its tests, and scans take a minute each under KASAN and TCG; the runner's
# own scan at the end covers this test with the rest.
# timeout: 900
set -u
. "$(dirname "$0")/lib.sh"
p=/payload/fstests
# generic/221 (futimens and ctime) takes seconds; most generic tests take
# minutes under KASAN and TCG (make fstests runs them).
tests=(generic/221)
out=$(mktemp -d /tmp/t-fstests.XXXXXX)

if [ ! -f $p/fstests.tar.gz ]; then
	echo "no fstests build in the payload (no FSTESTS_SRC on the host)"
	exit 77
fi

cd /
DEBUGFS_MNT=/nonexistent FSTESTS_MODES="hugetmpfs:always" \
	$p/run-fstests "$out" "${tests[@]}"
python3 $p/summary.py --expunge $p/expunge --out "$out" "$out"
check "the summary found no regression" test $? = 0

passed=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["counts"].get("hugetmpfs-always", {})
print(c.get("pass", 0))' "$out/summary.json")
check "the subset passed on hugetmpfs ($passed of ${#tests[@]})" test "${passed:-0}" -eq ${#tests[@]}
rm -rf "$out"
done_checks t-fstests
