#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# Directories, links, special files and renames on a hugetmpfs mount: run in
# the mount's root (the runner's cwd). Every check names what it expected.
import ctypes
import errno
import os
import stat
import sys

HUGETMPFS_MAGIC = 0x48544D50
failures = 0
checks = 0


def check(cond, what):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("FAIL:", what)


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


# statfs identifies the filesystem
sfs = Statfs()
check(libc.statfs(b".", ctypes.byref(sfs)) == 0, "statfs")
check(sfs.f_type == HUGETMPFS_MAGIC, "f_type %#x" % sfs.f_type)
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
import mmap
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
before = os.stat(".").st_mtime_ns
os.unlink("m")
check(os.stat(".").st_mtime_ns >= before, "dir mtime moves on unlink")

print("t-namespace: %d checks, %d failed" % (checks, failures))
sys.exit(1 if failures or not checks else 0)
