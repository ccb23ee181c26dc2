#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak: the randomized tester at length. SOAK_OPS operations (default
# 100,000) on 3 files of up to 32 MiB under each huge= policy, all but one
# in 16 moving at most 256 KiB, while a second process keeps memory under
# pressure; then the same on tmpfs (huge=always and huge=within_size), the
# reference. Every run prints its seed; any failure is reproduced by
# `fsx -s SEED -n OPS -m 32 -f 3 -l 256` on a mount of the same policy
# (pressure changes timing, not the operations). A failure on tmpfs is
# reported as the reference's, not counted: it is a kernel matter, and the
# same seed then tells whether hugetmpfs shares it. SOAK_REF_OPS sets the
# tmpfs runs' length (default SOAK_OPS). SOAK_MODES lists the hugetmpfs
# policies to run, in order, repeats allowed (each run takes the next seed);
# SOAK_REF_MODES the tmpfs ones (empty: none).
# timeout: 36000
set -u
cd "$HT_MNT" || exit 2
ops=${SOAK_OPS:-100000}
ref_ops=${SOAK_REF_OPS:-$ops}
seed=${SOAK_SEED:-$(date +%s)}
fails=0
summary=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# run WHAT DIR OPS COUNTS: COUNTS=1 if a failure fails the soak
run() {
	local what=$1 dir=$2 n=$3 start=$SECONDS
	local line
	echo "== $what: seed $seed, $n operations"
	if fsx -s "$seed" -n "$n" -m 32 -f 3 -l 256 -p 256 "$dir" >"$log" 2>&1; then
		line="$what: seed $seed: $n operations in $((SECONDS - start)) s, consistent"
	elif [ "$4" = 1 ]; then
		line="$what: seed $seed: FAILED after $((SECONDS - start)) s"
		fails=$((fails + 1))
	else
		line="$what: seed $seed: the reference FAILED after $((SECONDS - start)) s (not counted)"
	fi
	cat "$log"
	echo "== $line"
	summary+=("$line")
	# The failure itself, for the summary the runner keeps.
	grep -m1 '^FAIL' "$log" >/dev/null && summary+=("   $(grep -m1 '^FAIL' "$log")")
	summary+=("   replay: fsx -s $seed -n $n -m 32 -f 3 -l 256 DIR")
	seed=$((seed + 1))
}

for mode in ${SOAK_MODES:-always within_size advise never}; do
	mount -o remount,huge=$mode . || exit 2
	run "hugetmpfs huge=$mode" . "$ops" 1
done

t=/mnt/t-soak-tmpfs
mkdir -p $t
for mode in ${SOAK_REF_MODES-always within_size}; do
	mount -t tmpfs -o huge=$mode tmpfs $t || exit 2
	run "tmpfs huge=$mode" $t "$ref_ops" 0
	umount $t
done
echo "== summary"
printf '%s\n' "${summary[@]}"
exit $fails
