#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NFS export: a hugetmpfs mount (huge=always) exported by the kernel's NFS
# server (NFSv4.2 only, no rpcbind) over the guest's loopback and mounted by
# its NFS client. Data written through NFS lands in huge folios and reads
# back byte for byte, locally and through NFS; data written locally reads
# back through NFS, and a local change is seen at the client's next open
# (close-to-open, through the change attribute). Namespace operations, hole
# punching and SEEK_HOLE (NFSv4.2), user xattrs and byte-range locks go
# through; every request finds its file by handle (the export operations).
# After the export is taken down the mount unmounts and its memory is back.
# tmpfs in the same boot, the same way.
# timeout: 900
set -u
. "$(dirname "$0")/lib.sh"
base=/mnt/t-nfs
srv=$base/srv
cli=$base/cli

grep -qw nfsd /proc/filesystems || { echo "no NFS server (CONFIG_NFSD)"; exit 77; }
command -v exportfs >/dev/null || { echo "no exportfs (nfs-kernel-server)"; exit 77; }

pipefs=$(nfsconf --get general pipefs-directory 2>/dev/null)
pipefs=${pipefs:-/var/lib/nfs/rpc_pipefs}
daemons=()
stop_nfs() {
	mountpoint -q $cli && umount $cli
	exportfs -ua 2>/dev/null
	rpc.nfsd 0 2>/dev/null
	[ ${#daemons[@]} = 0 ] || kill "${daemons[@]}" 2>/dev/null
	wait "${daemons[@]}" 2>/dev/null
	daemons=()
}
restore() {
	stop_nfs
	mountpoint -q $srv && umount $srv
	mountpoint -q $pipefs && umount $pipefs
	mountpoint -q /proc/fs/nfsd && umount /proc/fs/nfsd
}
trap restore EXIT

ip link set lo up || exit 2
mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || exit 2
mkdir -p "$pipefs" $srv $cli
mountpoint -q "$pipefs" || mount -t rpc_pipefs sunrpc "$pipefs" || exit 2
# Owners travel as numbers both ways (AUTH_SYS, nfs4_disable_idmapping's
# default on server and client): no idmapd.

# start_nfs: export $srv as the NFSv4 root and mount it on $cli, NFSv4
# only (v3 would start lockd, which needs rpcbind). nfsdcld's empty
# database tells nfsd that no client has state to reclaim, so it skips the
# grace period; nfsd waits only a second for nfsdcld to open the pipe it
# makes (nfsdcld runs at a real-time priority so that it does, however busy
# the guest; else nfsd runs without it, and the client waits out a 10 s
# grace period), and a lookup that finds mountd not yet listening is cached
# as a failure for two minutes: each daemon is waited for until it listens.
start_nfs() {
	exportfs -i -o rw,sync,fsid=0,no_subtree_check,no_root_squash \
		127.0.0.1:$srv || return 1
	chrt -f 10 nfsdcld -F &
	daemons+=($!)
	wait_for 30 sh -c "grep -qs '^inotify' /proc/$!/fdinfo/*" || return 1
	rpc.mountd -F -N 2 -N 3 &
	daemons+=($!)
	wait_for 30 sh -c "ls -l /proc/$!/fd 2>/dev/null | grep -q nfsd.fh/channel" ||
		return 1
	rpc.nfsd -H 127.0.0.1 -N 3 --lease-time 10 --grace-time 10 2 ||
		return 1
	mount -t nfs4 -o vers=4.2 127.0.0.1:/ $cli
}

run_checks() {
	local fs=$1 sum lsum
	echo "$fs: $(grep " $cli " /proc/mounts | cut -d' ' -f3,4 | cut -c1-80)"

	# Written through NFS, read locally and through NFS (no client cache)
	sum=$(seed_md5 1 8)
	dd if="$(seed 1 8)" of=$cli/f bs=1M status=none
	check "$fs: written through NFS" test $? = 0
	check "$fs: reads back locally" test "$(md5 $srv/f)" = "$sum"
	echo 3 >/proc/sys/vm/drop_caches
	check "$fs: reads back through NFS" test "$(md5 $cli/f)" = "$sum"
	if [ $fs = hugetmpfs ]; then
		check "$fs: in huge folios ($(huge_folios $srv/f) of 4)" \
			test_huge $srv/f 4
	fi

	# Written locally, read through NFS
	lsum=$(seed_md5 2 8)
	cp "$(seed 2 8)" $srv/g
	check "$fs: written locally, reads back through NFS" \
		test "$(md5 $cli/g)" = "$lsum"
	# Close-to-open: the client's next open asks for the change attribute;
	# a local change made right after the client read must show.
	for i in 1 2 3; do
		cat $cli/g >/dev/null
		printf 'change %d' $i | dd of=$srv/g bs=1 seek=100 conv=notrunc status=none
		check "$fs: local change $i seen at the next open" \
			test "$(dd if=$cli/g bs=1 skip=100 count=8 status=none)" = "change $i"
	done

	# Namespace operations through NFS, seen locally
	mkdir $cli/d && echo x >$cli/d/a && mv $cli/d/a $cli/d/b &&
		ln -s b $cli/d/s && ln $cli/d/b $cli/d/h
	check "$fs: mkdir, rename, symlink, link through NFS" test $? = 0
	check "$fs: seen locally" test "$(cat $srv/d/s)" = x -a \
		"$(stat -c %h $srv/d/b)" = 2 -a ! -e $srv/d/a
	chmod 640 $cli/d/b && chown 1000:1000 $cli/d/b
	check "$fs: chmod, chown through NFS" \
		test "$(stat -c %a:%u:%g $srv/d/b)" = 640:1000:1000
	rm -r $cli/d
	check "$fs: rm -r through NFS" test ! -e $srv/d

	# NFSv4.2: punch a hole and find it (ALLOCATE, DEALLOCATE, SEEK)
	fallocate -p -o $((2 << 20)) -l $((2 << 20)) $cli/f
	check "$fs: punch through NFS" test $? = 0
	check "$fs: the hole is seen locally" test "$(python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
print(os.lseek(fd, 0, os.SEEK_HOLE), os.lseek(fd, 2 << 20, os.SEEK_DATA))
' $srv/f)" = "$((2 << 20)) $((4 << 20))"
	check "$fs: and through NFS" test "$(python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
print(os.lseek(fd, 0, os.SEEK_HOLE))' $cli/f)" = $((2 << 20))
	check "$fs: the rest reads as written" test "$(md5 $cli/f)" = \
		"$({ head -c $((2 << 20)) "$(seed 1 8)"; head -c $((2 << 20)) /dev/zero
		     tail -c +$(((4 << 20) + 1)) "$(seed 1 8)"; } | md5)"

	# User xattrs (RFC 8276) and locks
	setfattr -n user.color -v blue $cli/f
	check "$fs: user xattr set through NFS" \
		test "$(getfattr --only-values -n user.color $srv/f 2>/dev/null)" = blue
	check "$fs: a lock held through NFS shuts another process out" \
		python3 -c '
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX)
if os.fork() == 0:
    fd2 = os.open(sys.argv[1], os.O_RDWR)
    try:
        fcntl.lockf(fd2, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os._exit(0)
    os._exit(1)
_, status = os.wait()
sys.exit(os.waitstatus_to_exitcode(status))' $cli/f

	rm $cli/f $cli/g
	check "$fs: rm through NFS" test -z "$(ls -A $srv)"
}

for fs in hugetmpfs tmpfs; do
	mount -t $fs -o huge=always none $srv || exit 2
	if ! start_nfs; then
		check "$fs: exported and mounted over NFS" false
		stop_nfs
		umount $srv
		continue
	fi
	run_checks $fs
	# nfsd's file cache may hold a closed file for a while: down first.
	stop_nfs
	if [ $fs = hugetmpfs ]; then
		used=$(cat /sys/fs/hugetmpfs/$(mountpoint -d $srv)/used_bytes)
		check "$fs: its memory is back after rm ($used bytes used)" \
			test "$used" = 0
	fi
	check "$fs: unmounts once the export is down" umount $srv
done
done_checks t-nfs
