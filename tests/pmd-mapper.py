#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For the collapse tests: map FILE shared and read every page (so that PTEs
map it), print "mapped", wait until a line can be read from FIFO, then print
the MD5 of the whole mapping and how many kB of it are mapped by PMD entries
(ShmemPmdMapped or FilePmdMapped in /proc/self/smaps). With --hugepage,
madvise(MADV_HUGEPAGE) the mapping before reading it.

    pmd-mapper.py [--hugepage] FILE FIFO
"""
import hashlib
import mmap
import os
import sys

args = sys.argv[1:]
hugepage = args[0] == "--hugepage"
path, fifo = args[hugepage:]
f = open(path, "r+b")
m = mmap.mmap(f.fileno(), 0)
if hugepage:
    m.madvise(mmap.MADV_HUGEPAGE)
try:
    m.madvise(22)       # MADV_POPULATE_READ: the kernel faults every page in
except OSError:
    for off in range(0, len(m), 4096):
        m[off]
print("mapped", flush=True)
open(fifo).read()
# From the mapping itself: a copy of a 1 GiB file would need 1 GiB more.
digest = hashlib.md5(m).hexdigest()
kb = 0
name = "/" + os.path.basename(path)
with open("/proc/self/smaps") as s:
    inside = False
    for line in s:
        if line[0] in "0123456789abcdef" and "-" in line.split()[0]:
            inside = line.split()[-1].endswith(name)
        elif inside and line.startswith(("ShmemPmdMapped:", "FilePmdMapped:")):
            kb += int(line.split()[1])
print(digest, kb, flush=True)
