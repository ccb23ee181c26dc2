#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak: t-race for SOAK_RACE_MINUTES (default 60) on hugetmpfs, then
# SOAK_RACE_TMPFS_MINUTES (default 10) on the tmpfs reference (it checks the
# test, not tmpfs): the workers against the collapse thread and ioctl, the
# shrinkers, swap-out and migration, checked byte for byte.
# timeout: 10800
set -u
RACE_SECONDS=$(( ${SOAK_RACE_MINUTES:-60} * 60 )) \
RACE_TMPFS_SECONDS=$(( ${SOAK_RACE_TMPFS_MINUTES:-10} * 60 )) exec "$(dirname "$0")/t-race.sh"
