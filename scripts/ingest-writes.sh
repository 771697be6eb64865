#!/bin/sh
# ingest-writes.sh BIN CORPUS DB OUT: runs `BIN ingest --db DB --dimensions 256
# CORPUS` (a new library: DB is removed first) and writes to OUT what the
# ingest cost the disk and the CPU:
#   passages         what the ingest reported
#   write_bytes      what the kernel accounted as written to storage for
#                    the process (/proc/PID/io, counted for the ingest
#                    when its parent reaps it, so nothing is missed at its
#                    exit). On kernels whose page cache holds the file in
#                    large folios (ext4 from Linux 6.16) a 4 KiB write to a
#                    cached folio is accounted as the whole folio: this
#                    overstates what reaches the disk many times over
#   wchar            bytes the process passed to write calls (bbolt writes
#                    pages with pwrite, never through its map)
#   device_bytes     with DEVICE=NAME (e.g. loop0) in the environment and
#                    DB on a file system of its own on that device: the
#                    sectors the device wrote during the ingest and a sync
#                    after it (/sys/block/NAME/stat), what the disk sees
#   file_bytes       the library file's size at the end
#   *_ratio          each of the above / file_bytes
#   cpu_s            user+sys CPU seconds (getrusage of the child)
#   peak_rss_mib     the child's peak RSS
#   peak_anon_mib    peak anonymous memory, sampled every 0.5 s
# and, with MCPVEC_LOG=debug in the environment, the store's own
# breakdown of what bbolt wrote (pages, freelist, meta; `store write
# totals` in OUT.stderr, logged at close; `store commit` lines for large
# commits and every 1,000th). Extra arguments after OUT go to
# the ingest. See docs/benchmarks/ingest-writes.md.
set -eu
bin=$1 corpus=$2 db=$3 out=$4
shift 4
rm -f "$db" "$db.pid"
python3 - "$bin" "$corpus" "$db" "$out" "$@" <<'EOF'
import os, re, subprocess, sys, time

bin, corpus, db, out = sys.argv[1:5]
extra = sys.argv[5:]

def io():
    d = {}
    for line in open("/proc/self/io"):
        k, v = line.split(":")
        d[k] = int(v)
    return d

device = os.environ.get("DEVICE", "")
def sectors():
    return int(open(f"/sys/block/{device}/stat").read().split()[6]) if device else 0

before, dev0 = io(), sectors()
with open(out + ".stdout", "wb") as so, open(out + ".stderr", "wb") as se:
    p = subprocess.Popen([bin, "ingest", "--db", db, "--dimensions", "256", *extra, corpus], stdout=so, stderr=se)
    peak_anon = 0
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        try:
            for line in open(f"/proc/{p.pid}/smaps_rollup"):
                if line.startswith("Anonymous:"):
                    peak_anon = max(peak_anon, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.5)
after = io()
os.sync()
dev = (sectors() - dev0) * 512
if os.waitstatus_to_exitcode(status) != 0:
    sys.exit(f"ingest failed ({status}); see {out}.stderr")
written = after["write_bytes"] - before["write_bytes"]
wchar = after["wchar"] - before["wchar"]
size = os.path.getsize(db)
m = re.search(rb"([0-9]+) passages", open(out + ".stdout", "rb").read())
lines = [
    f"passages {m.group(1).decode() if m else '?'}",
    f"file_bytes {size}",
    f"write_bytes {written}",
    f"write_bytes_ratio {written / size:.2f}",
    f"wchar {wchar}",
    f"wchar_ratio {wchar / size:.2f}",
]
if device:
    lines += [f"device_bytes {dev}", f"device_ratio {dev / size:.2f}"]
lines += [
    f"cpu_s {ru.ru_utime + ru.ru_stime:.1f}",
    f"peak_rss_mib {ru.ru_maxrss // 1024}",
    f"peak_anon_mib {peak_anon // 1024}",
]
for line in open(out + ".stderr", errors="replace"):
    if "store write totals" in line:
        lines.append(line.strip())
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
