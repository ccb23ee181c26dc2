#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's linux-source-6.12, apply kernel-prereq.patch, configure it
# with tinyconfig + kernel/<flavour>.config and build it, once per set of
# inputs. Prints the kernel tree's path on stdout.
#
# usage: build-kernel.sh [--path] [debug|bench]
#   debug             the test kernel: KASAN, DEBUG_VM, lockdep, kmemleak
#   bench             the same without the debug set (kernel/bench.config)
#   --path            only print where the tree for the current inputs is
#   HUGETMPFS_CACHE   cache directory (default /var/cache/hugetmpfs)
#   JOBS              parallel jobs (default: CPUs + 1)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${HUGETMPFS_CACHE:-/var/cache/hugetmpfs}
path_only=0
if [ "${1:-}" = --path ]; then
	path_only=1
	shift
fi
flavour=${1:-debug}
jobs=${JOBS:-$(( $(nproc) + 1 ))}
tarball=/usr/src/linux-source-6.12.tar.xz
patchfile=$top/kernel-prereq.patch
fragments=("$top/kernel/hugetmpfs.config")
[ "$flavour" = debug ] || fragments+=("$top/kernel/$flavour.config")

log() { echo "kernel: $*" >&2; }
die() { echo "kernel: error: $*" >&2; exit 1; }

for f in "${fragments[@]}"; do
	[ -f "$f" ] || die "no config fragment $f"
done
[ -f "$tarball" ] || die "$tarball missing: apt-get install linux-source-6.12"
version=$(dpkg-query -W -f='${Version}' linux-source-6.12)

# The patch's hunks, not its description: rewording it rebuilds nothing.
key=$( { echo "$version"; gcc --version | head -n1
	sed -n '/^--- a\//,$p' "$patchfile"
	cat "${fragments[@]}" "$0"; } | sha256sum | cut -c1-16)
dir=$cache/kernel-$flavour-$key
if [ "$path_only" = 1 ]; then
	echo "$dir/linux"
	exit 0
fi
if [ -f "$dir/.built" ]; then
	log "cached $dir (linux-source-6.12 $version)"
	echo "$dir/linux"
	exit 0
fi

log "building linux-source-6.12 $version ($flavour) in $dir"
start=$SECONDS
rm -rf "$dir"
mkdir -p "$dir"
tar -C "$dir" -xf "$tarball"
mv "$dir/linux-source-6.12" "$dir/linux"
cd "$dir/linux"

if grep -q '^--- ' "$patchfile"; then
	patch -p1 --forward --dry-run -s <"$patchfile" >/dev/null 2>&1 ||
		die "kernel-prereq.patch does not apply to linux-source-6.12 $version:
$(patch -p1 --forward --dry-run <"$patchfile" 2>&1 | tail -n 20)"
	patch -p1 --forward -s <"$patchfile"
fi

make -s tinyconfig >/dev/null
scripts/kconfig/merge_config.sh -m .config "${fragments[@]}" >/dev/null
make -s olddefconfig
# A fragment line that Kconfig dropped (bad dependency, typo) is a bug. Later
# fragments override earlier ones (the bench flavour turns debug options off),
# so check each option's last value: "=n" and "is not set" mean absent.
missing=$(sed -E -e 's/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1=n/' \
		-e '/^CONFIG_[A-Za-z0-9_]+=/!d' "${fragments[@]}" |
	awk -F= '{ v[$1] = $0 } END { for (o in v) print v[o] }' |
	while IFS= read -r line; do
		opt=${line%%=*}
		case ${line#*=} in
		n) grep -q "^$opt=" .config && echo "$line" ;;
		*) grep -qxF "$line" .config || echo "$line" ;;
		esac
	done)
[ -z "$missing" ] || die "config fragment lines not in the final .config:
$missing"

make -j"$jobs" >"$dir/build.log" 2>&1 || {
	tail -n 40 "$dir/build.log" >&2
	die "kernel build failed; log in $dir/build.log"
}
touch "$dir/.built"
# Older trees of this flavour are only a cache.
find "$cache" -maxdepth 1 -name "kernel-$flavour-*" ! -path "$dir" -exec rm -rf {} +
log "built in $((SECONDS - start)) s"
echo "$dir/linux"
