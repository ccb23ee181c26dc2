# SPDX-License-Identifier: GPL-2.0
# Shared by the shell tests: source it, call check for each expectation, end
# with `done_checks NAME`, which prints the tally and fails the test if any
# check failed or none ran.

fails=0 checks=0
# Seconds from the previous check to the end of each, for done_checks to
# name the slow stretches of a test (suite time is a budget).
check_last=$SECONDS check_spans=()

# check DESCRIPTION COMMAND...: run COMMAND; its failure is a failed check.
check() {
	local what=$1
	shift
	checks=$((checks + 1))
	if ! "$@"; then
		echo "FAIL: $what"
		# At once in the console log too, for a long test cut short.
		echo "<5>${0##*/}: FAIL: $what" >/dev/kmsg 2>/dev/null
		fails=$((fails + 1))
	fi
	check_spans+=("$((SECONDS - check_last)) $what")
	check_last=$SECONDS
}

done_checks() {
	local slow
	slow=$(printf '%s\n' "${check_spans[@]}" | sort -rn | head -n3 |
		awk '$1 >= 5 { printf "%s%s s up to \"%s\"", n++ ? "; " : "", $1,
			substr($0, length($1) + 2) }')
	[ -z "$slow" ] || echo "slowest: $slow"
	rm -rf "$seeds"
	echo "$1: $checks checks, $fails failed"
	[ "$fails" -eq 0 ] && [ "$checks" -gt 0 ]
}

# progress MESSAGE: say where a long test is, at once. The runner shows a
# test's output only when it ends; the kernel log reaches the console (and
# the host's log file) as it is written, so a soak can be followed live.
progress() {
	echo "# $*"
	echo "<5>${0##*/}: $*" >/dev/kmsg 2>/dev/null || :
}

# wait_for SECONDS COMMAND...: run COMMAND every 0.2 s until it
# succeeds (return 0) or SECONDS have passed (return 1). For what the kernel
# does in its own time: SECONDS bounds a hang, far above what it should take.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.2
	done
}

# retry N COMMAND...: run COMMAND until it succeeds, at most N times. For
# what the kernel does by heuristics (a reclaim pass), not for timing.
retry() {
	local n=$1
	shift
	until "$@"; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
	done
}

# md5 [FILE]: the MD5 of FILE, read with read(2), or of standard input
# (the guest's /dev has no /dev/stdin link). Bash cuts the digest out: each
# program started costs a tenth of a second or more under TCG and KASAN.
md5() {
	local sum
	if [ $# = 0 ]; then sum=$(md5sum); else sum=$(md5sum <"$1"); fi
	echo "${sum%% *}"
}

# in_cgroup CG CMD...: run CMD in the cgroup directory CG
in_cgroup() {
	local cg=$1
	shift
	bash -c 'echo $$ >"$0"/cgroup.procs && exec "$@"' "$cg" "$@"
}

# seed N MB: the path of a file of `gen-bytes N MB` (MB MiB of pseudo-random
# bytes, the same for the same N), made once per test in $seeds (done_checks
# removes it), with its MD5 next to it: tests compare what they wrote with
# it several times, and each data file and each MD5 is then made once, not
# at every comparison.
seeds=/tmp/seeds.$$
seed() {
	local f=$seeds/$1-$2
	if [ ! -f "$f" ]; then
		mkdir -p "$seeds"
		gen-bytes "$1" "$2" >"$f.new" && md5 "$f.new" >"$f.md5" &&
			mv "$f.new" "$f"
	fi
	echo "$f"
}

# seed_md5 N MB: the MD5 of seed N MB
seed_md5() {
	local f
	f=$(seed "$1" "$2")
	echo "$(<"$f.md5")"
}

# mmap_md5 CG FILE: the MD5 of FILE read through a shared mapping, by a
# process of the cgroup CG
mmap_md5() {
	in_cgroup "$1" python3 -c 'import hashlib, mmap, sys
f = open(sys.argv[1], "rb")
print(hashlib.md5(mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)).hexdigest())' "$2"
}

# huge_folios FILE: how many huge folios FILE has (hugetmpfsctl stat)
huge_folios() {
	local s
	s=$(hugetmpfsctl stat "$1")
	[[ $s =~ huge\ folios\ ([0-9]+) ]] && echo "${BASH_REMATCH[1]}"
}

# test_huge FILE N: FILE has N huge folios
test_huge() {
	[ "$(huge_folios "$1")" = "$2" ]
}

# zram_on SIZE: zram0, of SIZE (e.g. 256M), made swap and turned on
zram_on() {
	echo "$1" >/sys/block/zram0/disksize &&
		mkswap /dev/zram0 >/dev/null && swapon /dev/zram0
}

# zram_off: swap off zram0 and free it (for a test's cleanup)
zram_off() {
	swapoff /dev/zram0 2>/dev/null
	echo 1 >/sys/block/zram0/reset
}
