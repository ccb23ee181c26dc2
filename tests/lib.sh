# SPDX-License-Identifier: GPL-2.0
# Shared by the shell tests: source it, call check for each expectation, end
# with `done_checks NAME`, which prints the tally and fails the test if any
# check failed or none ran.

fails=0 checks=0

# check DESCRIPTION COMMAND...: run COMMAND; its failure is a failed check.
check() {
	local what=$1
	shift
	checks=$((checks + 1))
	if ! "$@"; then
		echo "FAIL: $what"
		fails=$((fails + 1))
	fi
}

done_checks() {
	echo "$1: $checks checks, $fails failed"
	[ "$fails" -eq 0 ] && [ "$checks" -gt 0 ]
}
