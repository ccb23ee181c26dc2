#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For t-swap-core.sh: core-mm operations on FILE, most of it in swap
before each, that treat page cache as droppable or look into it. One
process runs them all (a process costs a second in the test guest). Before
each operation, CGROUP's memory.reclaim pushes the file out to swap; after
it, the file's MD5 is taken. One line per operation:

    OP|KiB of FILE in swap before|status|what it saw|MD5 of FILE after

status 0 if the operation did what it should, 1 if what it saw is
impossible (more pages than the file has, say), 2 if a system call failed.

    swap-core.py CGROUP FILE OP...
    OP: drop-caches-1 drop-caches-3 fadvise-dontneed fadvise-willneed
        mincore cachestat pageout cold move-pages migrate-pages
        reclaim-lru-gen-y reclaim-lru-gen-n
"""
import ctypes
import hashlib
import os
import sys

cg, path = sys.argv[1:3]
libc = ctypes.CDLL(None, use_errno=True)
PAGE = 4096
size = os.path.getsize(path)
pages = size // PAGE
LRU = "/sys/kernel/mm/lru_gen/enabled"


class Failed(Exception):
    pass


def fail(what):
    raise Failed("%s: %s" % (what, os.strerror(ctypes.get_errno())))


fd = os.open(path, os.O_RDWR)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]


maps = []


def mapped(touch):
    """FILE mapped shared and read-only; every page read if @touch."""
    addr = libc.mmap(None, size, 1, 1, fd, 0)   # PROT_READ, MAP_SHARED
    if addr in (None, ctypes.c_void_p(-1).value):
        fail("mmap")
    maps.append(addr)
    for off in range(0, size, PAGE) if touch else ():
        ctypes.string_at(addr + off, 1)
    return addr


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def run(op):
    """Returns (status, what it saw)"""
    if op.startswith("drop-caches-"):
        write("/proc/sys/vm/drop_caches", op[-1])
    elif op.startswith("reclaim-lru-gen-"):     # the reclaim was the test
        with open(LRU) as f:
            return 0, "lru_gen " + f.read().strip()
    elif op == "fadvise-dontneed":
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    elif op == "fadvise-willneed":
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
    elif op == "mincore":
        addr = mapped(False)
        vec = (ctypes.c_ubyte * pages)()
        if libc.mincore(addr, size, vec):
            fail("mincore")
        resident = sum(v & 1 for v in vec)
        return (0 if resident < pages else 1,
                "mincore: %d of %d pages resident" % (resident, pages))
    elif op == "cachestat":
        class Range(ctypes.Structure):
            _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]

        class Stat(ctypes.Structure):
            _fields_ = [(n, ctypes.c_uint64) for n in
                        ("cache", "dirty", "writeback", "evicted",
                         "recently_evicted")]
        r, st = Range(0, 0), Stat()
        if libc.syscall(451, fd, ctypes.byref(r), ctypes.byref(st), 0):
            fail("cachestat")
        return (0 if st.cache + st.evicted == pages and st.evicted else 1,
                "cachestat: cache %d evicted %d recently_evicted %d dirty %d "
                "writeback %d of %d pages" % (st.cache, st.evicted,
                                              st.recently_evicted, st.dirty,
                                              st.writeback, pages))
    elif op in ("pageout", "cold"):
        addr = mapped(True)
        # MADV_PAGEOUT, MADV_COLD
        if libc.madvise(addr, size, 21 if op == "pageout" else 20):
            fail("madvise")
    elif op == "move-pages":
        # Every page of a mapping to the other node, then back (move_pages(2))
        addr = mapped(True)
        addrs = (ctypes.c_void_p * pages)(*[addr + i * PAGE
                                            for i in range(pages)])
        status = (ctypes.c_int * pages)()
        moved = 0
        for node in (1, 0):
            nodes = (ctypes.c_int * pages)(*([node] * pages))
            if libc.syscall(279, 0, ctypes.c_ulong(pages), addrs, nodes, status,
                            2) < 0:       # MPOL_MF_MOVE
                fail("move_pages")
            moved += sum(1 for s in status if s == node)
        return 0, ("move_pages: %d of %d pages on the node asked for" %
                   (moved, 2 * pages))
    elif op == "migrate-pages":
        # This process's pages, the file's mapping included, node 0 <-> 1
        mapped(True)
        one, two = ctypes.c_ulong(1), ctypes.c_ulong(2)
        for old, new in ((one, two), (two, one)):
            if libc.syscall(256, 0, 3, ctypes.byref(old), ctypes.byref(new)) < 0:
                fail("migrate_pages")
    else:
        return 2, "unknown op " + op
    return 0, ""


def swapped_kib():
    """The cgroup's swap, less this process's own (its anon memory)"""
    with open(cg + "/memory.swap.current") as f:
        kib = int(f.read()) // 1024
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSwap:"):
                kib -= int(line.split()[1])
    return kib


def md5():
    h = hashlib.md5()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
for op in sys.argv[3:]:
    if op.startswith("reclaim-lru-gen-"):
        write(LRU, op[-1])
    try:    # Push the file out: memory.reclaim says EAGAIN if it fell short
        write(cg + "/memory.reclaim", "%dM" % (2 * size >> 20))
    except OSError:
        pass
    before = swapped_kib()
    maps = []
    try:
        status, saw = run(op)
    except (Failed, OSError) as e:
        status, saw = 2, str(e)
    for addr in maps:
        libc.munmap(addr, size)
    print("%s|%d|%d|%s|%s" % (op, before, status, saw, md5()), flush=True)
