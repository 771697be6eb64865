#!/bin/sh
# ingest-memory.sh BIN CORPUS DB OUT: runs `BIN ingest --db DB --dimensions 256
# CORPUS`, samples the process's anonymous memory (smaps_rollup) every
# 0.5 s into OUT.samples (seconds, anon KiB, rss KiB), and writes the peak
# anonymous memory, the CPU seconds (user+sys) and the wall time to OUT.
# The corpus comes from `go run ./cmd/mcpvec-scale -passages N -dir DIR`
# (DIR/corpus); see docs/benchmarks/ingest-memory.md.
set -eu
bin=$1 corpus=$2 db=$3 out=$4
rm -f "$db"
start=$(date +%s.%N)
/usr/bin/time -f '%U %S %e %M' -o "$out.time" "$bin" ingest --db "$db" --dimensions 256 "$corpus" >"$out.stdout" 2>"$out.stderr" &
tpid=$!
sleep 0.2
pid=$(pgrep -P "$tpid" | head -1)
: >"$out.samples"
while kill -0 "$pid" 2>/dev/null; do
	now=$(date +%s.%N)
	awk -v t="$(echo "$now - $start" | bc)" '/^Rss:/{r=$2} /^Anonymous:/{a=$2} END{if (a!="") printf "%.1f %d %d\n", t, a, r}' \
		"/proc/$pid/smaps_rollup" >>"$out.samples" 2>/dev/null || true
	sleep 0.5
done
wait "$tpid"
read -r user sys wall maxrss <"$out.time"
peak=$(sort -k2 -n "$out.samples" | tail -1 | awk '{print $2}')
printf 'passages %s\npeak_anon_mib %d\ncpu_s %.1f\nwall_s %s\npeak_rss_mib %d\n' \
	"$(grep -o '[0-9]* passages' "$out.stdout" | head -1 | cut -d' ' -f1)" \
	$((peak / 1024)) "$(echo "$user + $sys" | bc)" "$wall" $((maxrss / 1024)) | tee "$out"
