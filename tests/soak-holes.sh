#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak: the hole shrinker against fsx, appenders and readers
# (tests/t-holes-race.sh) for SOAK_MINUTES (default 5) instead of seconds.
# timeout: 36000
RACE_SECONDS=$(( ${SOAK_MINUTES:-5} * 60 )) FSX_SEED=${SOAK_SEED:-7} \
	exec "$(dirname "$0")/t-holes-race.sh"
