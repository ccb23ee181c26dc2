#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A short, fixed fstests subset on hugetmpfs (huge=always), through the same
# runner and summary as make fstests, so that the harness cannot rot between
# full runs. Each test of the subset passes on tmpfs (make fstests compares
# the two); here it must pass on hugetmpfs. fstests is kept away from
# kmemleak (DEBUGFS_MNT elsewhere): it would clear the report after each of
# its tests, and scans take a minute each under KASAN and TCG; the runner's
# own scan at the end covers this test with the rest. check writes no xunit
# report here (half a minute under KASAN and TCG); the summary's reader of
# result.xml, which make fstests uses, is checked on a small report instead.
# timeout: 900
set -u
. "$(dirname "$0")/lib.sh"
p=/payload/fstests
# generic/221 (futimens and ctime) takes seconds; most generic tests take
# minutes under KASAN and TCG (make fstests runs them), and check's own work
# around one test half a minute.
tests=(generic/221)
out=$(mktemp -d /tmp/harness-fstests.XXXXXX)

if [ ! -f $p/fstests.tar.gz ]; then
	echo "no fstests build in the payload (no FSTESTS_SRC on the host)"
	exit 77
fi

cd /
DEBUGFS_MNT=/nonexistent FSTESTS_MODES="hugetmpfs:always" FSTESTS_REPORT=log \
	$p/run-fstests "$out" "${tests[@]}"
python3 $p/summary.py --expunge $p/expunge --out "$out" "$out"
check "the summary found no regression" test $? = 0

passed=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["counts"].get("hugetmpfs-always", {})
print(c.get("pass", 0))' "$out/summary.json")
check "the subset passed on hugetmpfs ($passed of ${#tests[@]})" test "${passed:-0}" -eq ${#tests[@]}

# An xunit report as check -R xunit writes it: one test passed, one failed
# and one not run, on each file system; a failure on hugetmpfs alone is a
# regression.
x=$out/xml
mkdir -p "$x/hugetmpfs-always" "$x/tmpfs-always"
report() {
	cat <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="xfstests" failures="1" skipped="1" tests="3" time="3">
	<testcase classname="xfstests.global" name="generic/001" time="1">
	</testcase>
	<testcase classname="xfstests.global" name="generic/002" time="1">
		$1
	</testcase>
	<testcase classname="xfstests.global" name="generic/003" time="0">
		<skipped message="no reflink" />
	</testcase>
</testsuite>
EOF
}
report '<failure message="output mismatch" type="TestFail" />' \
	>"$x/hugetmpfs-always/result.xml"
report "" >"$x/tmpfs-always/result.xml"
python3 $p/summary.py --out "$x" "$x" >/dev/null
check "a failure on hugetmpfs alone is a regression (exit status 1)" test $? = 1
check "the xunit reader's counts" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert s["regressions"] == ["generic/002 (huge=always)"], s
assert s["counts"]["hugetmpfs-always"] == {"pass": 1, "fail": 1, "notrun": 1}
assert s["counts"]["tmpfs-always"] == {"pass": 2, "fail": 0, "notrun": 1}' \
	"$x/summary.json"
rm -rf "$out"
done_checks harness-fstests
