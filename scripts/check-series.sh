#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel prerequisite comes in two forms: kernel-prereq.patch (what the
# build applies) and the patch series in kernel/ (one patch per logical
# change, for users who carry it in git). Check that the series applies with
# `git am` to Debian's current linux-source-6.12 and gives exactly the tree
# kernel-prereq.patch gives. Cached on the patches, the source's version and
# this script: a no-op until one of them changes.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${HUGETMPFS_CACHE:-/var/cache/hugetmpfs}
tarball=/usr/src/linux-source-6.12.tar.xz
series=("$top"/kernel/0*.patch)

die() { echo "series: error: $*" >&2; exit 1; }
[ -f "$tarball" ] || die "$tarball missing: apt-get install linux-source-6.12"
[ -f "${series[0]}" ] || die "no patch series in kernel/"
version=$(dpkg-query -W -f='${Version}' linux-source-6.12)
key=$( { echo "$version"; cat "$top/kernel-prereq.patch" "${series[@]}" "$0"; } |
	sha256sum | cut -c1-16)
stamp=$cache/series-$key.ok
[ -f "$stamp" ] && exit 0

work=$(mktemp -d /tmp/hugetmpfs-series.XXXXXX)
trap 'rm -rf "$work"' EXIT
# Only the files the patches touch.
files=$(sed -n 's|^+++ b/|linux-source-6.12/|p' "$top/kernel-prereq.patch" \
	"${series[@]}" | sort -u)
# shellcheck disable=SC2086
tar -C "$work" -xJf "$tarball" $files || die "a patched file is not in $tarball"
mv "$work/linux-source-6.12" "$work/single"
cp -a "$work/single" "$work/series"
patch -d "$work/single" -p1 -s --no-backup-if-mismatch -F0 \
	<"$top/kernel-prereq.patch" || die "kernel-prereq.patch does not apply"
git_id=(-c user.name=check-series -c user.email=check-series@localhost)
(cd "$work/series" && git init -q && git add -A &&
 git "${git_id[@]}" commit -qm "linux-source-6.12 $version" &&
 git "${git_id[@]}" am -q "${series[@]}") >"$work/am.log" 2>&1 || {
	cat "$work/am.log" >&2
	die "the series in kernel/ does not apply with git am to linux-source-6.12 $version"
}
diff -r -x .git "$work/single" "$work/series" >&2 ||
	die "the series in kernel/ and kernel-prereq.patch differ (diff above)"
mkdir -p "$cache"
rm -f "$cache"/series-*.ok
touch "$stamp"
echo "series: kernel/ (${#series[@]} patches) matches kernel-prereq.patch on linux-source-6.12 $version" >&2
