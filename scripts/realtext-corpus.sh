#!/usr/bin/env bash
# Builds issue 41's real-text corpus: Debian documentation packages (the
# pinned list in scripts/realtext-packages.txt) turned into Markdown, the
# passages `mcpvec ingest` makes of them, and known-item queries.
#
#   scripts/realtext-corpus.sh OUT [TIER]        # as root (apt-get install)
#
# TIER 1 (default) installs the tier-1 packages (~100k+ passages); TIER 2
# adds the packages that pass 1M; TIER 3 adds TeX Live PDFs deferred for
# their slow conversion. Environment:
#   SUBSETS="100000"  also build these subsets (whole documents, chosen by
#                     SEED, until they hold N passages), each in OUT/N with
#                     its documents hard-linked in OUT/N/lib to ingest
#   QUERIES=2000      known-item queries drawn per set
#   SEED=1            document order, queries and dropped words
#   INSTALL=0         do not call apt-get (the packages are installed)
#   JOBS=2            files converted and read at once
#   KEEP_DOCS=1       keep OUT/docs and convert only the files that have no
#                     Markdown in it yet (tier 2 after tier 1, or a
#                     conversion cut short: convert -resume); folders of
#                     packages no longer listed are removed
#
# It writes OUT/packages.tsv (package, pinned and installed version),
# OUT/docs (the Markdown: ingest this folder for the whole corpus),
# OUT/all and OUT/N (passages.tsv, queries.tsv, docs.txt; formats in
# cmd/mcpvec-realtext) and OUT/all/packages.tsv (package, documents,
# passages: how much each package gives). Nothing under OUT is committed: the text is the
# packages' (GPL, PSF, PostgreSQL and other free licences).
set -euo pipefail
out=${1:?usage: realtext-corpus.sh OUT [TIER]}
tier=${2:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
list=$root/scripts/realtext-packages.txt
export LC_ALL=C.UTF-8
mkdir -p "$out"
out=$(cd "$out" && pwd)

mapfile -t pins < <(awk -v t="$tier" '!/^#/ && NF == 3 && $1 <= t { print $2 "=" $3 }' "$list")
mapfile -t texts < <(awk -v t="$tier" '!/^#/ && NF == 3 && $1 >= 1 && $1 <= t { print $2 }' "$list")
if [ "${INSTALL:-1}" != 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-remove --no-install-recommends "${pins[@]}" >&2
fi

# The versions: a package installed at another version than its pin is
# reported (and recorded) rather than refused, so a point release does not
# stop the build; the figures say which text they were measured on.
: > "$out/packages.tsv"
for pin in "${pins[@]}"; do
	pkg=${pin%%=*} want=${pin#*=}
	have=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null || echo missing)
	printf '%s\t%s\t%s\n' "$pkg" "$want" "$have" >> "$out/packages.tsv"
	[ "$have" = "$want" ] || echo "realtext-corpus: $pkg is $have, pinned $want" >&2
done

(cd "$root" && go build -o "$out/mcpvec-realtext" ./cmd/mcpvec-realtext)
if [ "${KEEP_DOCS:-0}" != 0 ]; then
	for d in "$out"/docs/*/; do # a package no longer listed leaves the corpus
		[ -d "$d" ] || continue
		printf '%s\n' "${texts[@]}" | grep -qxF "$(basename "$d")" || rm -rf "$d"
	done
else
	rm -rf "$out/docs"
fi
resume=
[ "${KEEP_DOCS:-0}" = 0 ] || resume=-resume
for pkg in "${texts[@]}"; do
	dpkg -L "$pkg" | sort | sed "s|^|$pkg\t|"
done | "$out/mcpvec-realtext" convert $resume -j "${JOBS:-2}" -out "$out/docs"

"$out/mcpvec-realtext" build -j "${JOBS:-2}" -docs "$out/docs" -out "$out/all" -queries "${QUERIES:-2000}" -seed "${SEED:-1}"
# Documents and passages per package (a passage's document starts with
# its package's folder).
awk -F '\t' '{ split($1, p, "/"); n[p[1]]++; if ($2 == 0) d[p[1]]++ }
	END { for (k in n) printf "%s\t%d\t%d\n", k, d[k], n[k] }' "$out/all/passages.tsv" |
	sort -t "$(printf '\t')" -k3,3nr > "$out/all/packages.tsv"
for n in ${SUBSETS-100000}; do
	rm -rf "${out:?}/$n"
	"$out/mcpvec-realtext" build -j "${JOBS:-2}" -docs "$out/docs" -out "$out/$n" -max "$n" -link \
		-queries "${QUERIES:-2000}" -seed "${SEED:-1}"
done
