#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For t-swap-core.sh: one core-mm operation on FILE, most of it in swap,
that treats page cache as droppable or looks into it. Prints what it saw;
exits 1 if that is impossible (more pages than the file has, say), 2 on a
system call's failure.

    swap-core.py OP FILE
    OP: fadvise-dontneed fadvise-willneed mincore cachestat pageout cold
        move-pages migrate-pages
"""
import ctypes
import mmap
import os
import sys

op, path = sys.argv[1:3]
libc = ctypes.CDLL(None, use_errno=True)
PAGE = 4096
size = os.path.getsize(path)
pages = size // PAGE


def fail(what):
    print("%s: %s" % (what, os.strerror(ctypes.get_errno())))
    sys.exit(2)


fd = os.open(path, os.O_RDWR)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]


def mapped(touch):
    """FILE mapped shared and read-only; every page read if @touch."""
    addr = libc.mmap(None, size, 1, 1, fd, 0)   # PROT_READ, MAP_SHARED
    if addr in (None, ctypes.c_void_p(-1).value):
        fail("mmap")
    for off in range(0, size, PAGE) if touch else ():
        ctypes.string_at(addr + off, 1)
    return addr


if op == "fadvise-dontneed":
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
elif op == "fadvise-willneed":
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
elif op == "mincore":
    addr = mapped(False)
    vec = (ctypes.c_ubyte * pages)()
    if libc.mincore(addr, size, vec):
        fail("mincore")
    resident = sum(v & 1 for v in vec)
    print("mincore: %d of %d pages resident" % (resident, pages))
    sys.exit(0 if resident < pages else 1)
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
    print("cachestat: cache %d evicted %d recently_evicted %d dirty %d "
          "writeback %d of %d pages" % (st.cache, st.evicted,
                                        st.recently_evicted, st.dirty,
                                        st.writeback, pages))
    sys.exit(0 if st.cache + st.evicted == pages and st.evicted else 1)
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
    print("move_pages: %d of %d pages on the node asked for" %
          (moved, 2 * pages))
elif op == "migrate-pages":
    # This process's pages, the file's mapping included, node 0 <-> 1
    mapped(True)
    one, two = ctypes.c_ulong(1), ctypes.c_ulong(2)
    for old, new in ((one, two), (two, one)):
        if libc.syscall(256, 0, 3, ctypes.byref(old), ctypes.byref(new)) < 0:
            fail("migrate_pages")
else:
    print("unknown op " + op)
    sys.exit(2)
