#!/usr/bin/env bash
# watch-busy-folder.sh BIN PORT: serve --watch a folder holding a log appended every 50 ms and print how long
# a new file beside it takes to become searchable (red team, second round: 75 s). Loopback only; bounded (120 s).
set -u
BIN=$1; PORT=$2
D=$(mktemp -d); mkdir -p $D/docs; echo "seed note about tides" > $D/docs/seed.txt
export MCPVEC_DB=$D/lib.db
$BIN ingest $D/docs >/dev/null 2>&1
$BIN serve --addr 127.0.0.1:$PORT --watch $D/docs >$D/serve.log 2>&1 &
SP=$!
sleep 3
( for i in $(seq 1 2400); do echo "line $i of a busy log" >> $D/docs/busy.txt; sleep 0.05; done ) &
AP=$!
sleep 1
echo "kelp forests zebrafish unique marker" > $D/docs/new.txt
start=$(date +%s.%N)
found=""
while :; do
  now=$(date +%s.%N)
  el=$(echo "$now - $start" | bc)
  if $BIN search -k 3 "zebrafish marker" 2>/dev/null | grep -q new.txt; then found=$el; break; fi
  if (( $(echo "$el > 100" | bc) )); then found=">100"; break; fi
  sleep 0.2
done
echo "$BIN: new file searchable after ${found}s"
kill $AP $SP 2>/dev/null; wait $SP 2>/dev/null
rm -rf $D
