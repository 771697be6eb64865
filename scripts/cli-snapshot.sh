#!/usr/bin/env bash
# cli-snapshot.sh BINARY OUTFILE: runs the CLI through a fixed session on a demo library (testdata/cats.pdf,
# a Markdown note and the four smallest PDFs of ../shared/pdfs/corpus), every command's --help, and the error
# paths a user meets, and writes what it prints with timings, sizes, rates, dates and the temporary folder
# masked. Two binaries' snapshots are compared with diff to show that a refactor changed no output (issue 36).
# Run it from the repository root; SHARED overrides ../shared. Ingest extracts in parallel, so the order of the
# "failed" lines of the first ingest may differ between runs.
set -u
B=$(realpath "$1"); OUT=$2; SRC=$(pwd)/testdata; SHARED=${SHARED:-../shared}
D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
mkdir -p "$D/docs/sub"; cp "$SRC/cats.pdf" "$D/docs/"
ls -S -r "$SHARED"/pdfs/corpus/*.pdf 2>/dev/null | head -4 | while read -r f; do cp "$f" "$D/docs/sub/"; done
printf '# Notes\n\n## Cats\nCats purr when content.\n\n## Dogs\nDogs bark at strangers.\n' > "$D/docs/notes.md"
export MCPVEC_DB=$D/lib.db NO_COLOR=1
run() { echo "\$ mcpvec $*"; (cd "$D" && "$B" "$@" 2>&1); echo "[exit $?]"; }
{
	run ingest docs
	run ls
	run ls --roots
	run info
	run search "why do cats purr"
	run search --json "cats"
	run fetch 10a14e8b1b8042c8:1
	run fetch 10a14e8b1b8042c8
	run fetch 1
	run fetch --json 1
	run search ""
	run check
	run sync docs
	run rm docs/notes.md
	run ls
	run info
	run reindex --embedder hash
	run check
	run fetch 9999
	run nosuchcommand
	run search --db /nonexistent/dir/x.db cats
	run ingest /nonexistent.pdf
	run version
	for c in ingest search fetch ls rm sync info serve reindex check auth migrate; do run $c --help; done
	run ingest docs/notes.md
	run search --k 2 purr
} | sed -E 's#'"$D"'#DIR#g; s/[0-9]+(\.[0-9]+)? ?(ms|µs|s|m[0-9]+s)\b/T/g; s/[0-9]+(\.[0-9]+)? ?(KB|MB|GB|B|KiB|MiB|GiB)\b/SIZE/g; s#\([0-9]+/s\)#(R/s)#g; s/[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9:]+(\.[0-9]+)?(Z|[+-][0-9:]+)?/DATE/g' > "$OUT"
