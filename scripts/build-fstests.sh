#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build fstests (xfstests) with the project's FSTYP=hugetmpfs patch, once per
# set of inputs, and pack the built tree for the guest. Prints the tarball's
# path on stdout, or nothing (exit 3) when no fstests source can be found.
#
# usage: build-fstests.sh [--path]
#   --path            only print where the tarball for the current inputs is
#   FSTESTS_SRC       fstests source: a tarball or a directory (an upstream
#                     git clone works). Default: the snapshot in
#                     ../shared/fstests/ next to the project, else the copy of
#                     the last source used, kept in the cache.
#   HUGETMPFS_CACHE   cache directory (default /var/cache/hugetmpfs)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${HUGETMPFS_CACHE:-/var/cache/hugetmpfs}
patches=("$top"/fstests/*.patch)

log() { echo "fstests: $*" >&2; }
die() { echo "fstests: error: $*" >&2; exit 1; }

src=${FSTESTS_SRC:-}
if [ -z "$src" ]; then
	for f in "$top"/../shared/fstests/xfstests-*.tar.gz \
		 "$cache"/fstests-src/xfstests-*.tar.gz; do
		[ -f "$f" ] && { src=$f; break; }
	done
fi
if [ -z "$src" ]; then
	log "no fstests source: set FSTESTS_SRC to a tarball or a directory"
	exit 3
fi
[ -e "$src" ] || die "FSTESTS_SRC '$src' does not exist"

# The key: the source's content, the patches, this script.
if [ -d "$src" ]; then
	src_id=$(cd "$src" && { git rev-parse HEAD 2>/dev/null &&
		git status --porcelain 2>/dev/null; } ||
		find . -type f ! -path './.git/*' -print0 | sort -z |
		xargs -0 sha256sum)
else
	src_id=$(sha256sum <"$src")
fi
key=$( { echo "$src_id"; gcc --version | head -n1; cat "${patches[@]}" "$0"; } |
	sha256sum | cut -c1-16)
dir=$cache/fstests-$key
tarball=$dir/fstests.tar.gz
if [ "${1:-}" = --path ]; then
	echo "$tarball"
	exit 0
fi
if [ -f "$tarball" ]; then
	log "cached $dir ($src)"
	echo "$tarball"
	exit 0
fi

log "building $src in $dir"
start=$SECONDS
rm -rf "$dir"
mkdir -p "$dir"
if [ -d "$src" ]; then
	mkdir "$dir/xfstests"
	tar -C "$src" --exclude=.git -cf - . | tar -C "$dir/xfstests" -xf -
else
	tar -C "$dir" -xzf "$src"
	[ -d "$dir/xfstests" ] || die "$src does not unpack into xfstests/"
	# A clean clone elsewhere on this machine finds it here next time.
	if [ "$src" != "$cache/fstests-src/${src##*/}" ]; then
		mkdir -p "$cache/fstests-src"
		rm -f "$cache"/fstests-src/*.tar.gz
		cp "$src" "$cache/fstests-src/"
	fi
fi
cd "$dir/xfstests"
for p in "${patches[@]}"; do
	patch -p1 --forward -s <"$p" ||
		die "${p##*/} does not apply to $src"
done
make -j"$(( $(nproc) + 1 ))" >"$dir/build.log" 2>&1 || {
	tail -n 30 "$dir/build.log" >&2
	die "make failed (log: $dir/build.log)"
}
[ -x ltp/fsx ] && [ -x ltp/fsstress ] || die "the build made no ltp/fsx"
# The guest unpacks this into /var/lib/xfstests: the built tree without
# objects and sources, and without the tests of other file systems, which
# check never runs here but would list (about 3 MB compressed; unpacking
# all 4,700 files took 11 s of each harness-fstests under KASAN and TCG).
other_fs=(xfs btrfs ext4 f2fs overlay ceph cifs nfs ocfs2 udf perf selftest)
tar -C "$dir" -czf "$tarball.tmp" --exclude='*.o' --exclude='*.lo' \
	--exclude='*.[ch]' --exclude=autom4te.cache \
	"${other_fs[@]/#/--exclude=xfstests/tests/}" xfstests
mv "$tarball.tmp" "$tarball"
rm -rf "$dir/xfstests"
find "$cache" -maxdepth 1 -name 'fstests-*' ! -name fstests-src \
	! -path "$dir" -exec rm -rf {} +
log "built in $((SECONDS - start)) s"
echo "$tarball"
