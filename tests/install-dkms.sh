#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Installing as users do (issue 14), against the running kernel's module
# build tree (as /lib/modules/$(uname -r)/build, from the payload): DKMS from
# the release tree (dkms add, build, install, remove) and the hugetmpfs-dkms
# Debian package (apt install, apt remove). make install is checked on the
# host (scripts/check-make-install.sh). After
# each: modprobe loads the installed module (its version and path checked),
# modprobe -r unloads it, a mount without modprobe autoloads it through its
# fs-hugetmpfs alias and serves data, and removal leaves nothing behind.
# man 5 hugetmpfs renders without warnings. The runner's module is unloaded
# for the test (which has no mount) and loaded again after it. Both builds go
# through ccache: the package's, in the same DKMS directory, reuses the
# objects of the first (a compile takes minutes under TCG).
# timeout: 3000
# mount: none
set -u
. "$(dirname "$0")/lib.sh"
deb_dir=/payload/deb
kver=$(uname -r)
m=/mnt/install-dkms
log=/tmp/install-dkms.log
: >$log

tree=$(ls -d $deb_dir/hugetmpfs-*/ 2>/dev/null | head -n1)
if [ -z "$tree" ] || [ ! -f $deb_dir/extmod-build.tar.gz ]; then
	echo "no Debian package or kernel headers in the guest (make check-install)"
	exit 77
fi
tree=${tree%/}
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$tree/dkms.conf")
deb=$deb_dir/hugetmpfs-dkms_${version}_all.deb

# Whatever happens here, no installed module stays loaded: the runner loads
# its own again for the tests after this one.
restore() {
	umount $m 2>/dev/null
	grep -q '^hugetmpfs ' /proc/modules && rmmod hugetmpfs
}
trap restore EXIT
# guest-init's /mnt/huge too; the runner expects no mount at its end.
for mnt in $(awk '$3 == "hugetmpfs" { print $2 }' /proc/mounts); do
	umount "$mnt" || exit 2
done
rmmod hugetmpfs || exit 2

# What the kernel's packages provide: /lib/modules/$kver with the module
# build tree (a linux-headers package's content) as build/.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
mkdir -p "/lib/modules/$kver" /usr/src $m
rm -rf /tmp/install-dkms.kernel "/usr/src/linux-headers-$kver"
mkdir /tmp/install-dkms.kernel
tar -C /tmp/install-dkms.kernel -xzf $deb_dir/extmod-build.tar.gz || exit 2
mv /tmp/install-dkms.kernel/build "/usr/src/linux-headers-$kver"
cp /tmp/install-dkms.kernel/modules/* "/lib/modules/$kver/"
rm -rf /tmp/install-dkms.kernel
ln -sfn "/usr/src/linux-headers-$kver" "/lib/modules/$kver/build"
depmod -a "$kver" >>$log 2>&1

not() { ! "$@" >/dev/null 2>&1; }

# run WHAT COMMAND...: a check whose output goes to the log (shown on failure).
run() {
	local what=$1
	shift
	local start=$SECONDS
	echo "## $what: $*" >>$log
	if ! "$@" >>$log 2>&1; then
		tail -n 25 $log
		check "$what" false
		return 1
	fi
	echo "$what: $((SECONDS - start)) s" | tee /dev/console
	check "$what" true
}

# use_module HOW PATH: the installed module at PATH works the way users use it.
use_module() {
	local how=$1 path=$2
	check "$how: modinfo finds $path" test "$(modinfo -n hugetmpfs 2>&1)" = "$path"
	run "$how: modprobe hugetmpfs" modprobe hugetmpfs
	check "$how: the loaded module is version $version" \
		test "$(cat /sys/module/hugetmpfs/version 2>&1)" = "$version"
	run "$how: modprobe -r hugetmpfs" modprobe -r hugetmpfs
	check "$how: unloaded" test ! -e /sys/module/hugetmpfs
	# No modprobe: the kernel asks for fs-hugetmpfs itself.
	run "$how: mount autoloads the module" mount -t hugetmpfs -o huge=always none $m
	check "$how: loaded by the mount" test -d /sys/module/hugetmpfs
	head -c 4M /dev/urandom >/tmp/install-dkms.data
	cp /tmp/install-dkms.data $m/f
	echo 3 >/proc/sys/vm/drop_caches
	check "$how: data reads back" cmp -s /tmp/install-dkms.data $m/f
	run "$how: umount" umount $m
	run "$how: modprobe -r after umount" modprobe -r hugetmpfs
	check "$how: unloaded after umount" test ! -e /sys/module/hugetmpfs
}

# gone HOW: nothing of the module is left where it was installed.
gone() {
	check "$1: no hugetmpfs module left" \
		test -z "$(find /lib/modules/"$kver" -name 'hugetmpfs.ko*')"
	check "$1: modprobe no longer finds it" not modinfo -n hugetmpfs
	check "$1: dkms knows nothing of it" test -z "$(dkms status hugetmpfs 2>&1)"
}

export DEBIAN_FRONTEND=noninteractive
# ccache for every compiler call, whatever environment apt and dpkg give
# the package's scripts: its cache directory in its configuration file, and
# its links where the standard PATH finds them first.
ccache_links="cc gcc gcc-12 x86_64-linux-gnu-gcc x86_64-linux-gnu-gcc-12"
ccache_dir=/var/tmp/install-dkms.ccache
ccache_log=/var/tmp/install-dkms.ccache.log
printf 'cache_dir = %s\nlog_file = %s\n' $ccache_dir $ccache_log >/etc/ccache.conf
for c in $ccache_links; do
	ln -sf /usr/bin/ccache "/usr/local/bin/$c"
done

# 1. DKMS by hand, from the release tree.
run "dkms add" dkms add "$tree"
run "dkms build" dkms build "hugetmpfs/$version" -k "$kver"
# Which of the two builds goes through ccache (one of them has not).
echo "ccache after dkms build: $(ccache --print-stats | awk '$1 == "cache_miss" || $1 ~ /_cache_hit$/ { printf "%s %s; ", $1, $2 }')"
grep -m1 -o "Command line: .*" $ccache_log
run "dkms install" dkms install "hugetmpfs/$version" -k "$kver"
check "dkms status: installed" \
	grep -q "installed" <<<"$(dkms status "hugetmpfs/$version" -k "$kver")"
use_module dkms "/lib/modules/$kver/updates/dkms/hugetmpfs.ko"
run "dkms remove" dkms remove "hugetmpfs/$version" --all
rm -rf "/usr/src/hugetmpfs-$version"
gone "dkms remove"

# 2. The Debian package: its postinst runs dkms for the running kernel.
run "apt install ./hugetmpfs-dkms_${version}_all.deb" \
	apt-get install -y --no-install-recommends "$deb"
check "dpkg: hugetmpfs-dkms installed" \
	test "$(dpkg-query -W -f='${Status}' hugetmpfs-dkms 2>&1)" = "install ok installed"
use_module deb "/lib/modules/$kver/updates/dkms/hugetmpfs.ko"
echo "ccache: $(ccache --print-stats | awk '$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 } $1 == "cache_miss" { m = $2 } END { print h + 0 " hits, " m + 0 " misses" }')"
# If the package's build missed: ccache's other counters, and its log.
ccache --print-stats | awk '$2 != 0 && $1 !~ /^(stats_|cache_size|files_|local_storage)/ { printf "%s %s; ", $1, $2 } END { print "" }'
grep -ohE "Result: .*|too new|[Dd]isabling direct mode|Unsupported .*|[Ff]ailed .*" $ccache_log |
	sort | uniq -c | sort -rn | head -n 8
# The man page, from the package.
page=$(MANWIDTH=80 man --warnings -P cat 5 hugetmpfs 2>/tmp/install-dkms.man)
check "man 5 hugetmpfs renders" grep -q "huge=within_size" <<<"$page"
check "man 5 hugetmpfs: no warnings" test ! -s /tmp/install-dkms.man
[ -s /tmp/install-dkms.man ] && head -n 20 /tmp/install-dkms.man
run "apt remove hugetmpfs-dkms" apt-get remove -y --purge hugetmpfs-dkms
gone "apt remove"

for c in $ccache_links; do
	rm -f "/usr/local/bin/$c"
done
rm -rf /tmp/install-dkms.data "$ccache_dir" $ccache_log /etc/ccache.conf
done_checks install-dkms
