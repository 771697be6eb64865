#!/usr/bin/env bash
# scale-ab.sh OLD NEW [ROUNDS]: the end-to-end scale harness (cmd/mcpvec-scale) at 30,000 passages with two mcpvec
# binaries, alternating OLD, NEW, OLD, NEW... ROUNDS times (default 3), so that a refactor's cost shows beside the
# host's noise. Each run generates its corpus, ingests it, starts serve 3 times and loads it with 1 and 16 MCP
# clients (2,000 calls, at most 20 s a phase; loopback only). Prints the ingest, start-up, MCP and CLI lines of each
# run; the full reports go to OUTDIR (default a temporary folder, printed at the end). Run from the repository root.
set -euo pipefail
old=$(realpath "$1"); new=$(realpath "$2"); rounds=${3:-3}; out=${OUTDIR:-$(mktemp -d)}
go build -o "$out/mcpvec-scale" ./cmd/mcpvec-scale
for i in $(seq "$rounds"); do
	for side in old new; do
		bin=$old; [ "$side" = new ] && bin=$new
		"$out/mcpvec-scale" -shared "${SHARED:-../shared}" -passages 30000 -bin "$bin" -requests 2000 -limit 20s \
			-starts 3 -label "$side-$i" -json "$out/$side-$i.json" > "$out/$side-$i.log" 2>&1
		grep -h "ingest |\|MCP search\|CLI search (median)\|serve ready (start 1)" "$out/$side-$i.log" | sed "s/^/$side-$i /"
	done
done
echo "reports in $out"
