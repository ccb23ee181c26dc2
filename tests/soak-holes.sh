#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak: the hole shrinker at the sizes of its issue (t-holes: 10,000
# files of 4 KiB; size=64m filled with 4 KiB files; memory.max=256M with
# 64 KiB files: 4 KiB files cannot fill 15/16 of a cgroup with data, as the
# kernel memory of ~60,000 inodes and dentries is charged to it too), then
# against fsx, appenders and readers (t-holes-race.sh) for SOAK_MINUTES
# (default 5).
# timeout: 36000
set -u
here=$(dirname "$0")
rc=0
HOLES_FILES=10000 HOLES_SIZE_MB=64 HOLES_SIZE_FILE_KB=4 HOLES_MEMCG_MB=256 \
	HOLES_MEMCG_FILE_KB=64 "$here/t-holes" || rc=1
RACE_SECONDS=$(( ${SOAK_MINUTES:-5} * 60 )) FSX_SEED=${SOAK_SEED:-7} \
	"$here/t-holes-race.sh" || rc=1
exit $rc
