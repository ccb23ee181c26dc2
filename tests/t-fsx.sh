#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The randomized consistency tester (fsx) on every huge= policy, then the
# same run on in-kernel tmpfs in the same boot, so that a divergence shows up
# as a failure there or here; once more under memory pressure (fsx -p).
# Collapses go through HUGETMPFS_IOC_COLLAPSE: under huge=never they must
# collapse something. FSX_SEED and FSX_OPS override the defaults;
# make soak runs the long version (tests/soak-fsx.sh).
# timeout: 1500
set -u
cd "$HT_MNT" || exit 2
ops=${FSX_OPS:-350}
seed=${FSX_SEED:-1}
fails=0

# Not advise: fsx never asks for MADV_HUGEPAGE, so it would run never's
# paths again (make soak runs it).
for mode in always within_size never; do
	mount -o remount,huge=$mode . || exit 2
	echo "== hugetmpfs huge=$mode"
	out=$(fsx -s "$seed" -n "$ops" -m 24 -f 2 .) || fails=$((fails + 1))
	echo "$out"
	# Small folios to start from: the collapse ioctl must have made some.
	if [ $mode = never ] && [[ $out =~ ([0-9]+)\ ranges\ collapsed ]] &&
	   [ "${BASH_REMATCH[1]}" = 0 ]; then
		echo "FAIL: huge=never: no range collapsed"
		fails=$((fails + 1))
	fi
	seed=$((seed + 1))
done
# Under memory pressure: a second process fills and frees 256 MiB, drops
# caches and compacts, while fsx works.
mount -o remount,huge=always . || exit 2
echo "== hugetmpfs huge=always, under pressure"
fsx -s "$seed" -n "$ops" -m 24 -f 2 -p 256 . || fails=$((fails + 1))
seed=$((seed + 1))

t=/mnt/t-fsx-tmpfs
mkdir -p $t
mount -t tmpfs -o huge=always tmpfs $t || exit 2
echo "== tmpfs huge=always"
fsx -s "$seed" -n "$ops" -m 24 -f 2 $t || fails=$((fails + 1))
umount $t

exit $fails
