#!/bin/sh
# ingest-memory-writes.sh BIN LIBRARY OUT: on a copy of LIBRARY (a library
# built by ingest-memory.sh or mcpvec-scale), measures with BIN:
#   - `rm` of one document, the file's pages dropped from the page cache
#     first (cold) and then again on a second document (warm);
#   - the first write of a new process: `ingest` of one small file;
#   - the web library page: 6 views of / from `serve` (the first listed
#     apart), and 6 views of page 2 sorted by size.
# Each line: what, wall seconds, CPU seconds (user+sys), peak RSS MiB.
# See docs/benchmarks/ingest-memory.md.
set -eu
bin=$1 lib=$2 out=$3
db=$out.db
cp "$lib" "$db"
rm -f "$db.pid"
drop() { python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$db"; }
timed() { # timed NAME ARGS...
	name=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$out.t" "$bin" "$@" >/dev/null 2>"$out.err"
	awk -v n="$name" '{printf "%s wall %.2f cpu %.2f rss_mib %d\n", n, $1, $2+$3, $4/1024}' "$out.t"
}
: >"$out"
ids=$("$bin" ls --db "$db" --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); d=d.get("documents", d) if isinstance(d, dict) else d; print(" ".join(x["id"] for x in d[:2]))')
set -- $ids
drop
timed "rm cold" rm --db "$db" "$1" >>"$out"
timed "rm warm" rm --db "$db" "$2" >>"$out"
small=$(mktemp -d)/small.txt
echo "Kingfishers dive from a perch to catch small fish." >"$small"
drop
timed "first write: ingest one file (cold)" ingest --db "$db" "$small" >>"$out"
port=$((20000 + $$ % 10000))
"$bin" serve --db "$db" --addr "127.0.0.1:$port" >/dev/null 2>"$out.serve" &
spid=$!
for i in $(seq 300); do curl -s -o /dev/null "http://127.0.0.1:$port/robots.txt" && break; sleep 0.2; done
for i in 1 2 3 4 5 6; do curl -s -o /dev/null -w "web / view $i %{http_code} %{time_total}\n" "http://127.0.0.1:$port/"; done >>"$out"
for i in 1 2 3 4 5 6; do curl -s -o /dev/null -w "web /?sort=size&page=2 view $i %{http_code} %{time_total}\n" "http://127.0.0.1:$port/?sort=size&dir=desc&page=2"; done >>"$out"
kill "$spid"
wait "$spid" || true
rm -f "$db" "$db.pid"
cat "$out"
