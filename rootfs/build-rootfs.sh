#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest root filesystem image with debootstrap, cached by its inputs.
# Prints the image path on stdout; with --path, only prints where it would be.
#
#   HUGETMPFS_CACHE           cache directory (default /var/cache/hugetmpfs)
#   HUGETMPFS_MIRROR          Debian mirror URL (default: from the host's apt config)
#   ROOTFS_EXTRA_PACKAGES     extra packages, space separated (part of the cache key)
#   ROOTFS_SUITE              Debian suite (default bookworm)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${HUGETMPFS_CACHE:-/var/cache/hugetmpfs}
suite=${ROOTFS_SUITE:-bookworm}

log() { echo "rootfs: $*" >&2; }
die() { echo "rootfs: error: $*" >&2; exit 1; }

# The first plain (non-security) mirror for $suite in the host's apt config.
host_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$suite" '
			function flush() {
				if (deb && uri != "" && index(" " suites " ", " " suite " "))
					{ print uri; found = 1; exit }
				deb = 0; uri = ""; suites = ""
			}
			/^[ \t]*$/ { flush(); next }
			tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			tolower($1) == "uris:" { uri = $2 }
			tolower($1) == "suites:" { $1 = ""; suites = $0 }
			END { if (!found) flush() }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk -v suite="$suite" '
			$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) while ($i !~ /\]$/) i++
				if ($i ~ /^\[/ || $i ~ /\]$/) i++
				if ($(i + 1) == suite) { print $i; exit }
			}' "$f"
	done
}

mapfile -t pkgs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/packages.txt")
# shellcheck disable=SC2206
pkgs+=(${ROOTFS_EXTRA_PACKAGES:-})
include=$(IFS=,; echo "${pkgs[*]}")

key=$( { echo "$suite"; echo "$include"; cat "$here/build-rootfs.sh" "$here/init"; } |
	sha256sum | cut -c1-16)
img=$cache/rootfs-$suite-$key.img
if [ "${1:-}" = --path ]; then
	echo "$img"
	exit 0
fi
if [ -f "$img" ]; then
	log "cached $img"
	echo "$img"
	exit 0
fi

mirror=${HUGETMPFS_MIRROR:-$(host_mirror | head -n1)}
[ -n "$mirror" ] || die "no Debian mirror for '$suite' in /etc/apt; set HUGETMPFS_MIRROR"
command -v debootstrap >/dev/null || die "debootstrap is not installed"
command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 is not installed"

mkdir -p "$cache"
work=$(mktemp -d "$cache/rootfs-work.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root

log "debootstrap $suite from $mirror with: $include"
start=$SECONDS
debootstrap --variant=minbase --include="$include" "$suite" "$root" "$mirror" \
	>"$work/debootstrap.log" 2>&1 || {
	tail -n 30 "$work/debootstrap.log" >&2
	die "debootstrap failed (full log above)"
}

# A guest that boots straight into our init: no login, no services.
echo hugetmpfs-guest >"$root/etc/hostname"
printf '127.0.0.1 localhost hugetmpfs-guest\n' >"$root/etc/hosts"
printf '/dev/vda / ext4 rw 0 1\n' >"$root/etc/fstab"
sed -i 's/^root:[^:]*:/root::/' "$root/etc/shadow"
mkdir -p "$root/payload" "$root/mnt/huge" "$root/mnt/host"
# The users fstests expects (fstests/run-fstests adds any missing): made
# here once, not in every guest (useradd takes seconds under TCG).
chroot "$root" groupadd fsgqa || die "adding fstests' group fsgqa failed"
for u in fsgqa fsgqa2 123456-fsgqa; do
	chroot "$root" useradd -m -g fsgqa "$u" ||
		die "adding fstests' user $u failed"
done
install -m 0755 "$here/init" "$root/sbin/hugetmpfs-init"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*

size_mb=$(( $(du -sm "$root" | cut -f1) + 768 ))
mkfs.ext4 -q -F -L hugetmpfs-root -d "$root" "$work/rootfs.img" "${size_mb}M" >&2 ||
	die "mkfs.ext4 -d failed"
mv "$work/rootfs.img" "$img"
# Keep only the current image: old ones are only a cache.
find "$cache" -maxdepth 1 -name "rootfs-$suite-*.img" ! -path "$img" -delete
log "built $img in $((SECONDS - start)) s"
echo "$img"
