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
# summarize DIR WHAT HUGETMPFS-COUNTS TMPFS-COUNTS: the summary of DIR's two
# modes finds WHAT (in generic/002) the one regression, exit status 1, with
# these counts per mode (JSON: {"pass": N, "fail": N, "notrun": N})
summarize() {
	python3 $p/summary.py --out "$1" "$1" >/dev/null
	check "$2 on hugetmpfs alone is a regression (exit status 1)" test $? = 1
	check "$2: the counts" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert s["regressions"] == ["generic/002 (huge=always)"], s
assert s["counts"]["hugetmpfs-always"] == json.loads(sys.argv[2]), s
assert s["counts"]["tmpfs-always"] == json.loads(sys.argv[3]), s' \
		"$1/summary.json" "$3" "$4"
}
summarize "$x" "a failure" '{"pass": 1, "fail": 1, "notrun": 1}' \
	'{"pass": 2, "fail": 0, "notrun": 1}'
# The watchdog (FSTESTS_TEST_TIMEOUT): a test that outlives its limit is
# killed with everything it started, says so in its output and is recorded
# for the summary. The stand-in test would sleep for an hour.
w=$out/wd
mkdir -p "$w/tests/generic" "$w/base"
printf '#!/bin/bash\nsleep 3601 &\nsleep 3602\n' >"$w/tests/generic/999"
chmod +x "$w/tests/generic/999"
(cd "$w" && exec ./tests/generic/999 >"$w/out" 2>&1) &
victim=$!
$p/watchdog 2 "$w/base" &
dog=$!
wait $victim
st=$?
kill $dog
check "the watchdog killed the test (status $st)" test $st = 137
check "the test's output says why" \
	grep -q '^fstests watchdog: generic/999 killed after [0-9]* s (limit 2 s)$' "$w/out"
check "the test is recorded as timed out" grep -Eq '^generic/999 [0-9]+$' "$w/base/timed-out"
gone() {
	local i
	for i in $(seq 30); do
		pgrep -f 'sleep 360[12]' >/dev/null || return 0
		sleep 1
	done
	return 1
}
check "what the test started went with it" gone
# The summary: a test killed on both file systems times out on both; on
# hugetmpfs alone, it is a regression.
for m in hugetmpfs-always tmpfs-always; do
	mkdir -p "$w/res/$m"
	report "" >"$w/res/$m/result.xml"
	echo "generic/001 700" >"$w/res/$m/timed-out"
done
echo "generic/002 650" >>"$w/res/hugetmpfs-always/timed-out"
summarize "$w/res" "a timeout" '{"pass": 0, "fail": 2, "notrun": 1}' \
	'{"pass": 1, "fail": 1, "notrun": 1}'
check "the summary says which timed out" grep -qxF \
	'| generic/001 | fail | fail | times out on both |' "$w/res/summary.md"
check "and for how long" grep -qxF \
	'| generic/002 | fail | pass | **fails on hugetmpfs only**: timed out after 650 s |' \
	"$w/res/summary.md"
rm -rf "$out"
done_checks harness-fstests
