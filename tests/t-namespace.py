#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# Directories, links, special files, renames, permissions, and the file
# operations that move data without read/write (splice, sendfile,
# copy_file_range, mremap, mlock, private mappings): on the hugetmpfs mount
# the runner gives us (cwd), then on tmpfs in the same boot, so that any
# divergence from tmpfs shows up as a failure there too.
import ctypes
import errno
import os
import stat
import sys

HUGETMPFS_MAGIC = 0x48544D50
failures = 0
checks = 0


fsname = "hugetmpfs"


def check(cond, what):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("FAIL: %s: %s" % (fsname, what))


def expect_errno(err, fn, *args):
    try:
        fn(*args)
    except OSError as e:
        check(e.errno == err, "%s%r: errno %s, expected %s" %
              (fn.__name__, args, errno.errorcode.get(e.errno),
               errno.errorcode[err]))
        return
    check(False, "%s%r succeeded, expected %s" %
          (fn.__name__, args, errno.errorcode[err]))


libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100
RENAME_NOREPLACE, RENAME_EXCHANGE = 1, 2


def renameat2(old, new, flags):
    if libc.renameat2(AT_FDCWD, old.encode(), AT_FDCWD, new.encode(), flags):
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


class Statfs(ctypes.Structure):
    _fields_ = [("f_type", ctypes.c_long), ("f_bsize", ctypes.c_long),
                ("rest", ctypes.c_long * 14)]


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


import mmap
import socket


def run(magic):
    # statfs identifies the filesystem
    sfs = Statfs()
    check(libc.statfs(b".", ctypes.byref(sfs)) == 0, "statfs")
    check(sfs.f_type == magic, "f_type %#x" % sfs.f_type)
    check(sfs.f_bsize == os.sysconf("SC_PAGE_SIZE"), "f_bsize %d" % sfs.f_bsize)

    # directories: create, nest, list, remove
    os.makedirs("a/b/c")
    for i in range(200):
        write("a/f%03d" % i, b"x%d" % i)
    check(sorted(os.listdir("a")) == sorted(["b"] + ["f%03d" % i for i in range(200)]),
          "readdir lists exactly what was created")
    check(os.stat("a").st_nlink == 3, "dir nlink %d" % os.stat("a").st_nlink)
    check(stat.S_ISDIR(os.stat("a/b").st_mode), "a/b is a directory")
    check(read("a/f123") == b"x123", "file content by lookup")
    expect_errno(errno.ENOTEMPTY, os.rmdir, "a/b")
    expect_errno(errno.EEXIST, os.mkdir, "a/b")
    expect_errno(errno.ENOENT, os.stat, "a/nothing")
    expect_errno(errno.ENOTDIR, os.listdir, "a/f001")
    os.rmdir("a/b/c")
    os.rmdir("a/b")
    check(os.stat("a").st_nlink == 2, "nlink after rmdir")
    for i in range(0, 200, 2):
        os.unlink("a/f%03d" % i)
    check(sorted(os.listdir("a")) == ["f%03d" % i for i in range(1, 200, 2)],
          "readdir after unlinking half")
    expect_errno(errno.EISDIR, os.unlink, "a")

    # a file kept open after unlink stays readable
    fd = os.open("a/f001", os.O_RDONLY)
    os.unlink("a/f001")
    check(os.read(fd, 10) == b"x1", "unlinked open file still readable")
    os.close(fd)

    # hard links
    write("h1", b"hello")
    os.link("h1", "h2")
    check(os.stat("h1").st_nlink == 2, "nlink 2 after link")
    check(os.stat("h1").st_ino == os.stat("h2").st_ino, "same inode")
    os.unlink("h1")
    check(read("h2") == b"hello" and os.stat("h2").st_nlink == 1, "link survives")

    # symlinks, short and long
    os.symlink("h2", "s1")
    check(os.readlink("s1") == "h2" and read("s1") == b"hello", "symlink")
    long_target = "d/" * 1500 + "end"
    os.symlink(long_target, "s2")
    check(os.readlink("s2") == long_target, "long symlink")
    check(os.lstat("s2").st_size == len(long_target), "symlink size")
    expect_errno(errno.ENAMETOOLONG, os.symlink, "x" * 5000, "s3")

    # special files
    os.mkfifo("fifo")
    check(stat.S_ISFIFO(os.stat("fifo").st_mode), "fifo")
    os.mknod("chr", 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    st = os.stat("chr")
    check(stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3), "char dev")
    with open("chr", "rb") as f:     # /dev/null semantics through our inode
        check(f.read() == b"", "char device opens as the driver")
    os.mknod("blk", 0o600 | stat.S_IFBLK, os.makedev(7, 0))
    st = os.stat("blk")
    check(stat.S_ISBLK(st.st_mode) and st.st_rdev == os.makedev(7, 0),
          "block dev")
    os.mknod("sock", 0o600 | stat.S_IFSOCK)
    check(stat.S_ISSOCK(os.stat("sock").st_mode), "socket node")
    srv = socket.socket(socket.AF_UNIX)
    srv.bind("usock")
    srv.listen(1)
    cli = socket.socket(socket.AF_UNIX)
    cli.connect("usock")
    conn = srv.accept()[0]
    cli.sendall(b"over a socket")
    check(conn.recv(64) == b"over a socket", "unix socket bound in the fs")
    for x in (conn, cli, srv):
        x.close()

    # rename: replace, noreplace, exchange, directories
    write("r1", b"one")
    write("r2", b"two")
    os.rename("r1", "r2")
    check(read("r2") == b"one" and not os.path.exists("r1"), "rename replaces")
    write("r1", b"uno")
    expect_errno(errno.EEXIST, renameat2, "r1", "r2", RENAME_NOREPLACE)
    renameat2("r1", "r2", RENAME_EXCHANGE)
    check(read("r1") == b"one" and read("r2") == b"uno", "RENAME_EXCHANGE")
    renameat2("r1", "r3", RENAME_NOREPLACE)
    check(read("r3") == b"one", "RENAME_NOREPLACE to a new name")
    RENAME_WHITEOUT = 4
    renameat2("r3", "r4", RENAME_WHITEOUT)
    st = os.lstat("r3")
    check(stat.S_ISCHR(st.st_mode) and st.st_rdev == 0,
          "RENAME_WHITEOUT leaves a 0:0 character device")
    check(read("r4") == b"one", "RENAME_WHITEOUT moved the file")
    check("r3" in os.listdir(".") and "r4" in os.listdir("."), "whiteout listed")
    os.makedirs("d1/sub")
    os.mkdir("d2")
    os.rename("d1/sub", "d2/sub")
    check(os.stat("d1").st_nlink == 2 and os.stat("d2").st_nlink == 3,
          "dir nlinks after moving a subdirectory")
    os.mkdir("d3")
    write("d3/x", b"")
    expect_errno(errno.ENOTEMPTY, os.rename, "d2", "d3")

    # O_TMPFILE, then give it a name
    fd = os.open(".", os.O_TMPFILE | os.O_RDWR, 0o600)
    os.write(fd, b"tmp data")
    check(os.fstat(fd).st_nlink == 0, "O_TMPFILE has no link")
    AT_EMPTY_PATH = 0x1000
    check(libc.linkat(fd, b"", AT_FDCWD, b"tmpfile-linked", AT_EMPTY_PATH) == 0,
          "linkat(AT_EMPTY_PATH) of an O_TMPFILE: errno %d" % ctypes.get_errno())
    os.close(fd)
    check(read("tmpfile-linked") == b"tmp data", "O_TMPFILE linked")

    # O_DIRECT is accepted, with aligned and unaligned buffers
    fd = os.open("direct", os.O_CREAT | os.O_RDWR | os.O_DIRECT, 0o600)
    m = mmap.mmap(-1, 8192)
    m.write(b"D" * 8192)
    check(os.pwritev(fd, [m], 0) == 8192, "O_DIRECT write")
    check(os.pread(fd, 100, 4000) == b"D" * 100, "O_DIRECT unaligned read")
    os.close(fd)

    # attributes: mode, owner, times
    write("m", b"")
    os.chmod("m", 0o640)
    check(stat.S_IMODE(os.stat("m").st_mode) == 0o640, "chmod")
    os.chown("m", 1234, 5678)
    st = os.stat("m")
    check(st.st_uid == 1234 and st.st_gid == 5678, "chown")
    os.utime("m", ns=(1_000_000_123, 2_000_000_456))
    st = os.stat("m")
    check(st.st_atime_ns == 1_000_000_123 and st.st_mtime_ns == 2_000_000_456,
          "utimensat keeps nanoseconds")
    os.utime(".", ns=(1_000_000_000, 1_000_000_000))
    os.unlink("m")
    check(os.stat(".").st_mtime_ns > 1_000_000_000, "dir mtime moves on unlink")


    # setgid directories hand down their group, and the bit to subdirectories
    os.mkdir("sg")
    os.chown("sg", 0, 5000)
    os.chmod("sg", 0o2775)
    write("sg/f", b"")
    os.mkdir("sg/d")
    check(os.stat("sg/f").st_gid == 5000, "file in a setgid dir takes its gid")
    check(os.stat("sg/d").st_gid == 5000 and
          os.stat("sg/d").st_mode & stat.S_ISGID, "subdir inherits setgid")

    # permissions and the sticky bit, seen by an unprivileged user
    os.mkdir("sticky")
    os.chmod("sticky", 0o1777)
    write("sticky/roots", b"r")
    write("private", b"secret")
    os.chmod("private", 0o600)
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.setgid(1000)
            os.setuid(1000)
            try:
                open("private", "rb")
                code |= 1
            except PermissionError:
                pass
            try:
                os.unlink("sticky/roots")
                code |= 2
            except PermissionError:
                pass
            write("sticky/mine", b"m")
            os.unlink("sticky/mine")
        except Exception:
            code |= 4
        os._exit(code)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    check(not code & 1, "mode 0600 keeps other users out")
    check(not code & 2, "sticky dir: others' files cannot be removed")
    check(not code & 4, "sticky dir: a user removes its own file")

    # data moved without read/write
    data = bytes(range(256)) * 20000            # ~5 MB, across 2 MiB
    write("src", data)
    src = os.open("src", os.O_RDONLY)
    dst = os.open("dst", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    check(os.sendfile(dst, src, 1000, len(data)) == len(data) - 1000,
          "sendfile count")
    check(read("dst") == data[1000:], "sendfile data")
    os.ftruncate(dst, 0)
    n = 0
    while n < len(data):
        got = os.copy_file_range(src, dst, len(data) - n, n, n)
        if got <= 0:
            break
        n += got
    check(read("dst") == data, "copy_file_range data")
    r, w = os.pipe()
    os.lseek(src, 4096 * 511, os.SEEK_SET)
    moved = os.splice(src, w, 8192)
    check(os.read(r, 65536) == data[4096 * 511:4096 * 511 + moved] and
          moved > 0, "splice from a file into a pipe")
    os.write(w, b"piped")
    check(os.splice(r, dst, 5, offset_dst=3) == 5, "splice into a file")
    check(read("dst")[:8] == data[:3] + b"piped", "splice data")
    os.close(r)
    os.close(w)
    try:
        os.fsync(dst)
        os.fdatasync(dst)
        synced = True
    except OSError:
        synced = False
    check(synced, "fsync and fdatasync succeed")

    # private mappings copy on write; shared ones grow with mremap
    m = mmap.mmap(src, 8192, mmap.MAP_PRIVATE)
    m[0:4] = b"COW!"
    check(read("src")[:4] == data[:4], "MAP_PRIVATE write stays private")
    m.close()
    os.ftruncate(dst, 8 << 20)
    m = mmap.mmap(dst, 2 << 20)
    m[-5:] = b"grown"
    m.resize(8 << 20)                           # mremap
    m[(8 << 20) - 4:] = b"tail"
    check(m[(2 << 20) - 5:2 << 20] == b"grown", "data kept by mremap")
    m.flush()
    check(read("dst")[-4:] == b"tail", "write after mremap reaches the file")

    # mlock of a (possibly huge-mapped) shared mapping
    libc.mlock.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.munlock.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    cbuf = ctypes.c_char.from_buffer(m)
    addr = ctypes.addressof(cbuf)
    check(libc.mlock(ctypes.c_void_p(addr), 8 << 20) == 0,
          "mlock: errno %d" % ctypes.get_errno())
    locked = [int(line.split()[1]) for line in open("/proc/self/status")
              if line.startswith("VmLck:")][0]
    check(locked >= 8 << 10, "VmLck %d kB after mlock of 8 MiB" % locked)
    check(m[(8 << 20) - 4:] == b"tail", "locked mapping readable")
    check(libc.munlock(ctypes.c_void_p(addr), 8 << 20) == 0, "munlock")
    del cbuf
    m.close()
    os.close(src)
    os.close(dst)


run(HUGETMPFS_MAGIC)
fsname = "tmpfs"
os.makedirs("/mnt/t-namespace-tmpfs", exist_ok=True)
if os.system("mount -t tmpfs none /mnt/t-namespace-tmpfs") == 0:
    os.chdir("/mnt/t-namespace-tmpfs")
    run(0x01021994)
    os.chdir("/")
    os.system("umount /mnt/t-namespace-tmpfs")
else:
    check(False, "mount tmpfs")

print("t-namespace: %d checks, %d failed" % (checks, failures))
sys.exit(1 if failures or not checks else 0)
