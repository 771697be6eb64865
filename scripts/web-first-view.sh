#!/bin/sh
# web-first-view.sh BASE_BIN NEW_BIN LIBRARY OUT [STARTS]: times the web
# library page of `serve` right after it starts, STARTS times (default 5)
# for each binary in turns, each on its own copy of LIBRARY (NEW_BIN's copy
# is upgraded at its first start, timed apart as "ready" of start 0).
# Per start: seconds until serve answers, the first view of /, three later
# views, the first view of page 50 in title order, and the first and a
# later view of page 2 by size, descending. Lines: BIN START WHAT SECONDS.
# Summary: medians per binary and what. See docs/benchmarks/web-page.md.
set -eu
base=$1 new=$2 lib=$3 out=$4 starts=${5:-5}
port=$((20000 + $$ % 10000))
: >"$out"
view() { # view LABEL START WHAT PATH
	curl -s -o /dev/null -w "$1 $2 $3 %{time_total}\n" "http://127.0.0.1:$port$4" >>"$out"
}
start() { # start LABEL BIN DB START
	rm -f "$3.pid"
	t0=$(date +%s.%N)
	"$2" serve --db "$3" --addr "127.0.0.1:$port" >/dev/null 2>"$out.serve" &
	spid=$!
	for i in $(seq 1200); do curl -s -o /dev/null "http://127.0.0.1:$port/robots.txt" && break; sleep 0.1; done
	echo "$1 $4 ready $(echo "$(date +%s.%N) - $t0" | bc)" >>"$out"
	view "$1" "$4" first /
	for i in 1 2 3; do view "$1" "$4" later /; done
	view "$1" "$4" page50 "/?page=50"
	view "$1" "$4" size-first "/?sort=size&dir=desc&page=2"
	view "$1" "$4" size-later "/?sort=size&dir=desc&page=2"
	kill "$spid"
	wait "$spid" || true
}
cp "$lib" "$out.base.db"
cp "$lib" "$out.new.db"
for s in $(seq 0 "$starts"); do
	start base "$base" "$out.base.db" "$s"
	start new "$new" "$out.new.db" "$s"
done
rm -f "$out.base.db" "$out.new.db" "$out.base.db.pid" "$out.new.db.pid"
python3 - "$out" <<'PY'
import collections, statistics, sys
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    b, s, what, sec = line.split()
    if s != "0":  # start 0 warms the page cache and upgrades NEW's copy
        v[(b, what)].append(float(sec))
for (b, what), xs in sorted(v.items()):
    print(f"{b:5} {what:11} median {statistics.median(xs):.3f} s  ({' '.join(f'{x:.3f}' for x in xs)})")
PY
