#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak: fstests' own fsx and fsstress, the testers filesystem people
# trust, at length. Under each huge= policy (SOAK_LTP_MODES, default all
# four) fsx does SOAK_LTP_OPS operations (default 1,000,000) on a file of up
# to 4 MiB (two huge folios), every kind it knows: read, write, mapped read
# and write, truncate, fallocate with and without KEEP_SIZE, punch hole, zero
# range, copy_file_range (collapse/insert range, clone and dedupe are
# refused, as on tmpfs, and fsx leaves them out once it has seen that); then
# fsstress runs SOAK_LTP_STRESS operations (default 20,000) in 4 processes on
# a directory tree. Then the same on tmpfs (SOAK_LTP_REF_MODES, default
# always and within_size; SOAK_LTP_REF_OPS fsx operations, default
# SOAK_LTP_OPS) as the reference: its failures are reported, not counted.
# Every run prints its seed and the command that replays it; the runner
# checks the kernel log, unmounts, unloads and scans for leaks.
# timeout: 36000
set -u
. "$(dirname "$0")/lib.sh"
p=/payload/fstests
ops=${SOAK_LTP_OPS:-1000000}
ref_ops=${SOAK_LTP_REF_OPS:-$ops}
stress=${SOAK_LTP_STRESS:-20000}
seed=${SOAK_SEED:-$(date +%s)}
fsx_args=(-q -l 4194304 -o 32768 -p 100000)
summary=()
bad=0		# fsx or fsstress runs that failed (lib.sh counts checks)

if [ ! -f $p/fstests.tar.gz ]; then
	echo "no fstests build in the payload (no FSTESTS_SRC on the host)"
	exit 77
fi
bin=$(mktemp -d /tmp/soak-ltp.XXXXXX)
trap 'rm -rf "$bin"' EXIT
tar -C "$bin" -xzf $p/fstests.tar.gz xfstests/ltp/fsx xfstests/ltp/fsstress ||
	exit 2
fsx=$bin/xfstests/ltp/fsx fsstress=$bin/xfstests/ltp/fsstress

# one WHAT COUNTS REPLAY TAIL COMMAND...: run a tester, keep the last TAIL
# lines of its output and a summary line; COUNTS=1 if a failure fails the
# soak
one() {
	local what=$1 counts=$2 replay=$3 tail=$4 start=$SECONDS rc line
	shift 4
	echo "== $what"
	"$@" >"$bin/out" 2>&1
	rc=$?
	tail -n "$tail" "$bin/out"
	line="$what: $((SECONDS - start)) s, clean"
	if [ $rc != 0 ]; then
		line="$what: FAILED (status $rc) after $((SECONDS - start)) s"
		[ "$counts" = 1 ] && bad=$((bad + 1)) ||
			line="$line (the reference: not counted)"
	fi
	summary+=("$line" "   replay: $replay")
}

# run WHAT DIR OPS COUNTS: fsx, then fsstress, in DIR
run() {
	local what=$1 dir=$2 n=$3 counts=$4

	one "$what: fsx seed $seed, $n operations" "$counts" \
		"fsx ${fsx_args[*]} -S $seed -N $n DIR/fsx" 40 \
		"$fsx" "${fsx_args[@]}" -S "$seed" -N "$n" -P "$bin" "$dir/fsx"
	rm -f "$dir"/fsx*
	mkdir -p "$dir/stress"
	one "$what: fsstress seed $seed, $stress operations x 4 processes" \
		"$counts" "fsstress -d DIR -n $stress -p 4 -s $seed" 20 \
		"$fsstress" -d "$dir/stress" -n "$stress" -p 4 -s "$seed"
	rm -rf "$dir/stress"
	seed=$((seed + 1))
}

cd "$HT_MNT" || exit 2
for mode in ${SOAK_LTP_MODES:-always within_size advise never}; do
	mount -o remount,huge=$mode . || exit 2
	run "hugetmpfs huge=$mode" "$HT_MNT" "$ops" 1
	# Everything removed: nothing may stay charged to the mount.
	used=$(cat "/sys/fs/hugetmpfs/$(mountpoint -d .)/used_bytes")
	check "huge=$mode: used_bytes back to 0 ($used)" test "$used" = 0
done

t=/mnt/t-soak-ltp-tmpfs
mkdir -p $t
for mode in ${SOAK_LTP_REF_MODES-always within_size}; do
	mount -t tmpfs -o huge=$mode tmpfs $t || exit 2
	run "tmpfs huge=$mode" $t "$ref_ops" 0
	umount $t
done
echo "== summary"
printf '%s\n' "${summary[@]}"
check "fsx and fsstress on hugetmpfs: no failure" test $bad = 0
done_checks soak-ltp
