#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel-reports.sh LOG: print the kernel reports in a guest's console log
# (oops, BUG, WARNING, KASAN, lockdep, kmemleak, hung tasks, panics) and
# exit 1 if there is any; exit 0 if none, 2 if LOG cannot be read. An
# OOM-killer report is one too, except inside a test that the test runner
# marked as expecting it ("run-tests: begin NAME, expects oom-kill" to
# "run-tests: end NAME"). make check, make fstests and make bench all judge
# their logs with it.
set -u
log=${1:?usage: kernel-reports.sh LOG}
[ -r "$log" ] || { echo "kernel-reports: cannot read '$log'" >&2; exit 2; }
pattern='(Oops|BUG:|WARNING:|KASAN|kmemleak: [0-9]+ new suspected|unreferenced object|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|INFO: task .* blocked|Kernel panic|general protection fault|UBSAN|Call Trace:|invoked oom-killer)'
awk '/run-tests: begin .*, expects oom-kill/ { oom = 1 }
	/run-tests: end / { oom = 0; skip = 0 }
	oom && /invoked oom-killer/ { skip = 1 }
	!skip { print }
	skip && /Killed process|Out of memory and no killable/ { skip = 0 }' \
	"$log" | grep -aE -m 20 "$pattern" && exit 1
exit 0
