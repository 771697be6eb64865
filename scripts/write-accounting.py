#!/usr/bin/env python3
"""write-accounting.py MODE PATH: how the kernel accounts small writes.

Writes a 256 MiB file at PATH (synced), then makes 1,000 random 4 KiB
pwrites into it and prints what /proc/self/io counted for them: wchar (the
bytes passed to write calls) and write_bytes (what the kernel accounts as
sent to storage). MODE is none (the file dropped from the page cache
first), read (read back with read calls first) or mmapread (read through
a map first, as bbolt reads). On a kernel whose page cache holds the file
in large folios (ext4 from Linux 6.16), a 4 KiB write into a cached folio
is accounted as the whole folio. Put PATH on a file system of its own
(a loop device) and compare with /sys/block/DEV/stat to see what reached
the disk. See docs/benchmarks/ingest-writes.md.
"""
import os, mmap, random, sys
path = sys.argv[2]
n = 256 << 20
with open(path, "wb") as f:
    f.write(os.urandom(1 << 20) * 256)
    f.flush(); os.fsync(f.fileno())
fd = os.open(path, os.O_RDWR)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
mode = sys.argv[1]
if mode == "mmapread":
    m = mmap.mmap(fd, n, prot=mmap.PROT_READ)
    s = 0
    for off in range(0, n, 4096):
        s += m[off]
elif mode == "read":
    while os.read(fd, 1 << 20):
        pass
def io():
    return {l.split(":")[0]: int(l.split(":")[1]) for l in open("/proc/self/io")}
b = io()
random.seed(1)
for i in range(1000):
    os.pwrite(fd, b"x" * 4096, random.randrange(n // 4096) * 4096)
os.fdatasync(fd)
a = io()
print(mode, "wchar", a["wchar"] - b["wchar"], "write_bytes", a["write_bytes"] - b["write_bytes"])
