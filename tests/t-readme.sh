#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The README's "A first session in the guest" works as written (issue 41):
# each of its command lines runs, in order, in a guest set up as make run's
# (hugetmpfs on /mnt/huge with huge=within_size, hugetmpfsctl and the
# manual page in /usr/local, as scripts/guest-init installs them), and must
# succeed; what it prints is checked where the README says what it shows.
# timeout: 300
set -u
. "$(dirname "$0")/lib.sh"
readme=$HT_TESTS/README.md
user=$HT_TESTS/user
[ -f "$readme" ] || { echo "no README.md beside the tests"; exit 2; }
[ -d "$user" ] || { echo "no user directory beside the tests"; exit 2; }

# The session's lines: the indented block of that section
mapfile -t lines <<<"$(awk '/^## A first session in the guest/ { on = 1; next }
	on && /^## / { exit }
	on && /^    [^ ]/ { print substr($0, 5) }' "$readme")"
check "the README has the session (${#lines[@]} lines)" test ${#lines[@]} -ge 5

# As make run's guest: what guest-init puts in /usr/local, taken out after
added=()
while read -r f; do
	[ -e "/usr/local/$f" ] || added+=("/usr/local/$f")
done <<<"$(cd "$user" && find . -type f | sed 's|^\./||')"
cp -a "$user/." /usr/local/
mounted=""
if mountpoint -q /mnt/huge; then
	check "/mnt/huge is mounted as make run mounts it" \
		grep -q "^none /mnt/huge hugetmpfs .*huge=within_size" /proc/mounts
else
	mkdir -p /mnt/huge
	mount -t hugetmpfs -o huge=within_size none /mnt/huge || exit 2
	mounted=y
fi
trap 'rm -f "${added[@]}"; [ -n "$mounted" ] && umount /mnt/huge' EXIT
# What a user's PATH has: not the tests' own hugetmpfsctl.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

out=$(mktemp)
shown=0
for line in "${lines[@]}"; do
	bash -c "$line" >"$out" 2>&1
	rc=$?
	sed 's/^/    /' "$out" | head -n 5
	check "\$ $line" test $rc = 0
	case $line in
	"hugetmpfsctl stat "*)
		shown=$((shown + 1))
		check "  it shows 4 huge folios" grep -q "huge folios 4" "$out" ;;
	"cat /sys/fs/hugetmpfs/"*)
		shown=$((shown + 1))
		check "  it counts them" grep -qx 4 "$out" ;;
	"man 5 hugetmpfs"*)
		shown=$((shown + 1))
		check "  it shows the manual page" grep -q "hugetmpfs" "$out" ;;
	"hugetmpfsctl policy /mnt/huge/f")
		shown=$((shown + 1))
		check "  it shows the policy just set" grep -qw never "$out" ;;
	esac
done
# A README line changed so that its output check no longer applies: fail,
# so that the check is brought along.
check "every output check applied ($shown of 4)" test $shown = 4
check "hugetmpfsctl is the installed one" \
	test "$(command -v hugetmpfsctl)" = /usr/local/sbin/hugetmpfsctl
rm -f "$out"
done_checks t-readme
