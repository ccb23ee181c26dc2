#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make fstests: one boot, fstests on hugetmpfs (huge=always, within_size) and
# on tmpfs with the same options, then the summary: above all, the tests that
# fail on hugetmpfs and pass on tmpfs (there must be none).
#
# usage: fstests.sh --kernel F --rootfs F --module F --fstests TARBALL
#   FSTESTS_ARGS     arguments for fstests' check (default: -g quick)
#   FSTESTS_MODES    FS:HUGE pairs (default: both filesystems, both modes)
#   FSTESTS_OUT      results directory (default fstests/results/<kernel>-<date>)
#   FSTESTS_TIMEOUT  whole-guest timeout in seconds (default 21600)
#   FSTESTS_TEST_TIMEOUT  one test's, in seconds (default 600; 0: none): a
#                    test that takes longer is killed and counts as failed
#   FSTESTS_RESUME   results directories of earlier slices (space-separated):
#                    the tests they hold are not run again, and the summary
#                    covers them all
# check rewrites each mode's result.xml before every test, so a run cut short
# (timeout, Ctrl-C) keeps every test it finished; resume it with
# FSTESTS_RESUME=<its directory> and the same FSTESTS_ARGS.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
kernel="" rootfs="" module="" tarball=""
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2 ;;
	--rootfs) rootfs=$2 ;;
	--module) module=$2 ;;
	--fstests) tarball=$2 ;;
	*) echo "fstests: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift 2
done
[ -f "$tarball" ] || { echo "fstests: no fstests build (set FSTESTS_SRC)" >&2; exit 2; }

stage=$(mktemp -d /tmp/hugetmpfs-fstests.XXXXXX)
trap 'rm -rf "$stage"' EXIT
"$top/fstests/stage" "$stage/fstests" "$tarball"

args=${FSTESTS_ARGS:--g quick}
limit=${FSTESTS_TEST_TIMEOUT:-600}
case $limit in
''|*[!0-9]*) echo "fstests: FSTESTS_TEST_TIMEOUT must be a number of seconds, not '$limit'" >&2
	exit 2 ;;
esac
modes=${FSTESTS_MODES:-}
resume=()
for d in ${FSTESTS_RESUME:-}; do
	[ -d "$d" ] || { echo "fstests: no results directory '$d'" >&2; exit 2; }
	resume+=("$(cd "$d" && pwd)")
	# Per mode, the tests this slice holds: run-fstests excludes them.
	for x in "$d"/*/result.xml; do
		[ -f "$x" ] || continue
		m=$(basename "$(dirname "$x")")
		sed -n 's/.*<testcase [^>]*name="\([^"]*\)".*/\1/p' "$x" \
			>>"$stage/fstests/done-$m"
	done
done
echo "fstests: $args" >&2
rc=0
cache=${HUGETMPFS_CACHE:-/var/cache/hugetmpfs}
mkdir -p "$cache/logs"
log=$cache/logs/fstests-$(date +%Y%m%d-%H%M%S).log
"$here/qemu-run.sh" --kernel "$kernel" --rootfs "$rootfs" --module "$module" \
	--add "$stage/fstests" --out "$stage/result" --log "$log" \
	--timeout "${FSTESTS_TIMEOUT:-21600}" \
	--cmd "${modes:+FSTESTS_MODES='$modes' }FSTESTS_TEST_TIMEOUT=$limit /payload/fstests/run-fstests /payload/fstests-results $args" ||
	rc=$?
res=$stage/result/fstests-results
kver=$(cat "$res/kernel" 2>/dev/null)
out=${FSTESTS_OUT:-$top/fstests/results/${kver:-unknown}-$(date -u +%Y%m%d-%H%M)}
mkdir -p "$out"
[ -d "$res" ] && cp -a "$res/." "$out/"
{
	echo "commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null)"
	echo "kernel $kver ($kernel)"
	echo "modes ${modes:-default}"
	echo "accel ${HUGETMPFS_ACCEL:-tcg}"
	echo "args $args"
	echo "test timeout $limit"
	# Relative to the repository, so that a committed run.txt means the same
	# in any clone.
	[ ${#resume[@]} -eq 0 ] || echo "resumes ${resume[*]#"$top/"}"
	echo "guest exit status $rc"
} >"$out/run.txt"
bad=0
case $rc in
0|1) ;;
124) echo "fstests: the guest timed out; finished modes are kept" >&2; bad=1 ;;
*) echo "fstests: the guest stopped abnormally (status $rc)" >&2; bad=1 ;;
esac
# Kernel reports fail the run whatever the tests say (console log: $log).
if ! "$here/kernel-reports.sh" "$log" >"$out/kernel-reports.txt"; then
	echo "fstests: kernel reports in the console log ($log):" >&2
	cat "$out/kernel-reports.txt" >&2
	bad=1
else
	rm -f "$out/kernel-reports.txt"
fi
python3 "$top/fstests/summary.py" --expunge "$top/fstests/expunge" \
	--out "$out" "${resume[@]}" "$out"
src=$?
echo "fstests: summary in $out/summary.md" >&2
[ "$bad" = 0 ] || exit 1
exit $src
