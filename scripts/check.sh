#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the test suite in the guest and judge it: every test's TAP line, plus
# the guest kernel log, which must be free of oops/BUG/WARNING/KASAN/lockdep/
# kmemleak reports. Ends with "N passed, N failed, N skipped", then a line
# for each suite that did not run and why; exits 1 if anything failed (under
# CI=true, a skipped test counts as failed).
#
# usage: check.sh --kernel F --rootfs F --module F --tests DIR [--bench DIR]
#                 [--fstests TARBALL] [--suite t|soak]
#   --bench DIR         the benchmark programs, run at toy size by
#                       harness-bench.sh
#   --fstests TARBALL   the fstests build, for harness-fstests.sh's short
#                       subset
#   --deb DIR           the Debian package and release tree (make deb), and
#   --headers TARBALL   the kernel's module build tree (kernel-headers.sh),
#                       for the install suite (tests/install-*)
#   --suite install     installing as users do (tests/install-*: DKMS and the
#                       Debian package) instead of the tests; "t install" both
#   --install-stamp F   with --deb: add the install suite to the tests, and
#                       check make install on the host against the tree of
#   --install-kdir DIR  (scripts/check-make-install.sh), unless F exists; F
#                       is made when they all pass. F is named after what
#                       installing depends on (scripts/install-stamp.sh)
#   --harness-stamp F   run the harness suite (tests/harness-*: the benchmark
#                       and fstests harnesses) with the tests unless F
#                       exists; F is made when they all pass. F is named
#                       after what they check (scripts/harness-stamp.sh).
#                       A run of chosen tests (T=) looks among them too
#   --started SECONDS   when make started: a kernel or guest image built
#                       since (a cold run) defers the install suite to the
#                       next run, which keeps a cold run inside its budget
#   --suite soak        the long soak (tests/soak-*, make soak) instead of
#                       the tests (tests/t-*); SOAK_OPS, SOAK_REF_OPS,
#                       SOAK_SEED, SOAK_MINUTES, SOAK_MODES and
#                       SOAK_REF_MODES pass through to it
#   T='glob'            run only tests whose names match (e.g. T='t-io*')
#   HUGETMPFS_TIMEOUT   whole-guest timeout in seconds (default 2400, and
#                       2400 more when the install suite runs)
#   HUGETMPFS_TIMEOUT_SCALE  multiplies every test's timeout and the guest's
#                       (default 1; e.g. 3 on a host where TCG is slow)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kernel="" rootfs="" module="" tests="" bench="" fstests="" suite=t
deb="" headers="" install_stamp="" install_kdir="" started=""
harness_stamp=""
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2 ;;
	--rootfs) rootfs=$2 ;;
	--module) module=$2 ;;
	--tests) tests=$2 ;;
	--bench) bench=$2 ;;
	--fstests) fstests=$2 ;;
	--deb) deb=$2 ;;
	--headers) headers=$2 ;;
	--suite) suite=$2 ;;
	--install-stamp) install_stamp=$2 ;;
	--install-kdir) install_kdir=$2 ;;
	--harness-stamp) harness_stamp=$2 ;;
	--started) started=$2 ;;
	*) echo "check: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift 2
done
[ -d "$tests" ] || { echo "check: no tests directory '$tests'" >&2; exit 2; }

cache=${HUGETMPFS_CACHE:-/var/cache/hugetmpfs}
out=$(mktemp -d /tmp/hugetmpfs-check.XXXXXX)
mkdir -p "$cache/logs"
log=$cache/logs/check-$(date +%Y%m%d-%H%M%S).log

# The payload's tests directory: compiled tests, scripts and the runner.
stage=$out/stage/tests
mkdir -p "$stage"
cp -a "$tests/." "$stage/"
cp -a "$here/../tests/." "$stage/"
rm -f "$stage"/*.c "$stage"/*.h
adds=(--add "$stage")
if [ -n "$bench" ]; then
	mkdir -p "$out/stage/bench"
	cp -a "$bench/." "$here/../bench/run-bench" "$here/../bench/report.py" \
		"$out/stage/bench/"
	adds+=(--add "$out/stage/bench")
fi
if [ -n "$fstests" ]; then
	"$here/../fstests/stage" "$out/stage/fstests" "$fstests"
	adds+=(--add "$out/stage/fstests")
fi

if [ -n "$deb" ]; then
	mkdir -p "$out/stage/deb"
	cp -a "$deb/." "$out/stage/deb/"
	[ -z "$headers" ] || cp "$headers" "$out/stage/deb/extmod-build.tar.gz"
	adds+=(--add "$out/stage/deb")
fi

case $suite in
t|soak|install|"t install") ;;
*) echo "check: unknown suite '$suite'" >&2; exit 2 ;;
esac
# Only digits, and policy names separated by spaces, reach the guest's
# command line.
for v in SOAK_OPS SOAK_REF_OPS SOAK_SEED SOAK_MINUTES; do
	case ${!v:-} in
	*[!0-9]*) echo "check: $v must be a number" >&2; exit 2 ;;
	esac
done
for v in SOAK_MODES SOAK_REF_MODES; do
	for m in ${!v:-}; do
		case $m in
		always|within_size|advise|never) ;;
		*) echo "check: $v: '$m' is not a huge= policy" >&2; exit 2 ;;
		esac
	done
done

scale=${HUGETMPFS_TIMEOUT_SCALE:-1}
case $scale in
''|*[!0-9]*|0) echo "check: HUGETMPFS_TIMEOUT_SCALE must be a positive integer" >&2; exit 2 ;;
esac

# The soak's settings (SOAK_*) go to the guest as they are set here.
soak_env=""
for v in $(compgen -v SOAK_); do
	case ${!v} in
	*"'"*) echo "check: $v must not contain a quote" >&2; exit 2 ;;
	esac
	soak_env+="$v='${!v}' "
done

# The install suite takes minutes under TCG (the guest compiles the module):
# it runs when what installing depends on has changed since it last passed.
host_passed=0 host_failed=0
# What did not run this time, and why: said after the closing line.
notrun=()
# A run of chosen tests (T=) leaves it out.
if [ -n "$install_stamp" ] && [ -n "$deb" ] && [ "${T:-*}" != "*" ]; then
	notrun+=("install suite: not run: tests chosen by name (T='$T')")
elif [ -n "$install_stamp" ] && [ -n "$deb" ]; then
	if [ -f "$install_stamp" ]; then
		notrun+=("install suite: not run: passed on $(date -r "$install_stamp" '+%F %T') with these inputs ($(basename "$install_stamp"))")
	elif [ -n "$started" ] && { [ "$(stat -c %Y "$kernel")" -ge "$started" ] ||
				    [ "$(stat -c %Y "$rootfs")" -ge "$started" ]; }; then
		notrun+=("install suite: not run: deferred, as this run built the kernel or the guest image; the next make check runs it (or make check-install)")
	else
		suite="t install"
		if "$here/check-make-install.sh" "$install_kdir"; then
			echo "ok - make install (on the host)"
			host_passed=1
		else
			echo "not ok - make install (on the host)"
			host_failed=1
		fi
	fi
fi

# The harness suite checks what changes seldom and takes two minutes under
# TCG: it runs when its inputs changed since it last passed, and whenever
# tests are chosen by name (T=), so that T='harness-*' finds them.
harness=0
if [ "${suite%% *}" = t ]; then
	if [ -n "$harness_stamp" ] && [ -f "$harness_stamp" ] &&
	   [ "${T:-*}" = "*" ]; then
		notrun+=("harness suite: not run: passed on $(date -r "$harness_stamp" '+%F %T') with these inputs ($(basename "$harness_stamp"))")
	else
		harness=1
		suite="t harness${suite#t}"
	fi
fi

# Whether the install suite runs: chosen above for a stamp, or by make
# check-install (--suite install). Its guest compiles take a quarter of an
# hour in a good hour of this host, twice that in a slow one: it brings its
# own time.
case " $suite " in
*" install "*) install=1 guest_timeout=${HUGETMPFS_TIMEOUT:-4800} ;;
*) install=0 guest_timeout=${HUGETMPFS_TIMEOUT:-2400} ;;
esac

rc=0
"$here/qemu-run.sh" --kernel "$kernel" --rootfs "$rootfs" --module "$module" \
	"${adds[@]}" --out "$out/result" --log "$log" \
	--timeout "$(( guest_timeout * scale ))" \
	--cmd "T='${T:-*}' SUITE='$suite' TIMEOUT_SCALE=$scale \
$soak_env/payload/tests/run-tests" || rc=$?

passed=$host_passed failed=$host_failed skipped=0
fail() { echo "not ok - $*"; failed=$((failed + 1)); }

# A skip is not a pass. Under CI=true, a test (t-*) skipped for want of
# what the test environment is meant to provide fails, and so does the
# fstests harness skipped although this host has an fstests build; any
# other skipped harness or install test says in the closing lines that its
# suite did not run.
tap=$out/result/results.tap
if [ -f "$tap" ]; then
	passed=$((passed + $(grep -c '^ok ' "$tap") - $(grep -c '^ok .* # SKIP' "$tap")))
	failed=$((failed + $(grep -c '^not ok ' "$tap")))
	while read -r _ _ _ name _ _ why; do
		why=${why#SKIP }
		if [ "${CI:-}" = true ] && { [[ $name == t-* ]] ||
		   { [[ $name == harness-fstests* ]] && [ -n "$fstests" ]; }; }; then
			fail "$name skipped under CI: $why"
		else
			skipped=$((skipped + 1))
			[[ $name == t-* ]] || notrun+=("${name%%-*} suite: $name skipped: $why")
		fi
	done < <(grep '^ok .* # SKIP' "$tap")
fi

case $rc in
0|1) ;;
124) fail "guest timed out" ;;
*) fail "guest stopped abnormally (status $rc)" ;;
esac
[ -f "$out/result/results.tap" ] || fail "no results from the guest"
[ "$passed" -gt 0 ] || [ "$failed" -gt 0 ] || fail "no test ran"

# The runner checks the log after each test; this catches the rest (boot,
# module load, the final unload) and anything the runner missed.
if ! reports=$("$here/kernel-reports.sh" "$log"); then
	fail "guest kernel log has a kernel report:"
	sed 's/^/#   /' <<<"$reports"
fi

# Whether the test NAME ran and passed: a skip ("ok ... # SKIP why") did not.
ran_ok() {
	grep -q "^ok [0-9]* - $1 ([0-9]*s)\$" "$out/result/results.tap"
}

# The install suite passed (not skipped) in a run that passed as a whole.
if [ "$install" = 1 ] && [ -n "$install_stamp" ] && [ "$failed" -eq 0 ] &&
   ran_ok install-dkms.sh; then
	touch "$install_stamp"
fi

# The harness suite passed: every harness test ran (none skipped) and the
# run passed as a whole.
if [ "$harness" = 1 ] && [ -n "$harness_stamp" ] && [ "${T:-*}" = "*" ] &&
   [ "$failed" -eq 0 ]; then
	ran_all=1
	for t in "$stage"/harness-*; do
		ran_ok "${t##*/}" || ran_all=0
	done
	[ "$ran_all" = 0 ] || touch "$harness_stamp"
fi

rm -rf "$out"
echo "# console log: $log"
echo "$passed passed, $failed failed, $skipped skipped"
for n in "${notrun[@]}"; do
	echo "$n"
done
[ "$failed" -eq 0 ]
