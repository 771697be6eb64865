#!/usr/bin/env bash
# Before/after outputs for issue 34 items 5 and 8 (docs/benchmarks/cli-rough-edges.md).
# Usage: cli-rough-edges.sh MCPVEC_BINARY [PORT]   (run it once with the old binary, once with the new)
set -u
bin=$(realpath "$1"); port=${2:-18931}; repo=$(realpath "$(dirname "$0")/../..")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"; export MCPVEC_DB=$work/lib.db XDG_RUNTIME_DIR=$work
cp "$repo/testdata/cats.pdf" "my cats #1.pdf"
for i in $(seq 1 1500); do echo "Paragraph $i. The lighthouse keeper's log, entry $i: wind $((i % 60)) knots, gulls at dawn."; echo; done > book.txt
for i in 01 02 03 04 05 06; do printf 'Identical notes about lamps. %.0s' $(seq 300) > "copy$i.txt"; done

echo "== item 5: mcpvec fetch DOC_ID of a $(wc -m < book.txt)-character text"
"$bin" ingest book.txt >/dev/null 2>&1
id=$("$bin" ls --json | sed -n 's/.*"id": "\(.*\)".*/\1/p' | head -1)
"$bin" fetch --json "$id" | python3 -c 'import json,sys; r=json.load(sys.stdin); print("characters:", len(r["text"]), "truncated:", r["metadata"]["truncated"], "next_id:", r["metadata"].get("next_id"))'

echo "== item 8: ls --help (the --roots line)"; "$bin" ls --help 2>&1 | grep -i -A1 'roots'
echo "== item 8: mcpvec --version"; out=$("$bin" --version 2>&1); echo "exit $?: ${out%%$'\n'*}"

echo "== item 8: serve --public-url http://127.0.0.1:$port (stdout and stderr)"
timeout 2 "$bin" serve --addr 127.0.0.1:$port --public-url http://127.0.0.1:$port 2>&1 | grep -v '^time=.*level=WARN'

echo "== item 8: six identical files ingested together, then ls copy*.txt"
"$bin" ingest --workers 6 copy0*.txt 2>&1
"$bin" ls copy0*.txt 2>&1 | sed "s|$work/||g"

echo "== item 8: search --json without a server"
"$bin" ingest "my cats #1.pdf" >/dev/null 2>&1
"$bin" search --json -k 1 "are cats attached to their homes" | grep '"url"' | sed "s|$work|/WORK|"
