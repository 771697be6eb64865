#!/usr/bin/env bash
# Builds the multilingual known-item collection of docs/benchmarks/languages.md
# from Debian's translated manual pages, for `mcpvec-eval -manpages OUT`.
#
#   apt-get install -y manpages-de manpages-fr manpages-es manpages-it \
#     manpages-pt-br manpages-pl manpages-ru manpages-ja manpages-zh
#   scripts/manpages-eval.sh /tmp/manpages [LANG...]
#
# LANG en reads the English pages (/usr/share/man/man[1-8]).
# SKIP=REGEX leaves out the pages whose path matches (e.g. gcloud: its
# 16,000 generated pages sort first among the English ones).
# MAX=N keeps the first N pages of each language (by path), to build it
# sooner (rendering costs about a second a page on a busy machine).
#
# For each language (a folder under /usr/share/man) it renders every page
# (groff -Tutf8 -man, one line per paragraph so no word is broken by a line
# wrap) and writes OUT/LANG/pages/PAGE.txt without its NAME section (the
# first section: the query must not be matched by its own copy) and
# OUT/LANG/queries.tsv, "PAGE<TAB>description": the text after " - " in the
# NAME section. Pages that only include another (.so) and pages without a
# description are skipped. Nothing here is committed: the pages are the
# packages' (GPL and other free licences).
set -euo pipefail
out=${1:?usage: manpages-eval.sh OUT [LANG...]}
shift
langs=("$@")
[ ${#langs[@]} -gt 0 ] || langs=(de fr es it pt_BR pl ru ja zh_CN)
export LC_ALL=C.UTF-8

# page LANGDIR FILE renders one page into $out/LANG.
page() {
	local lang=$1 f=$2 id
	id=$(basename "$f" .gz)
	zcat "$f" | head -c 200 | grep -q '^\.so ' && return 0
	zcat "$f" | preconv 2>/dev/null | groff -Tutf8 -man -rLL=1000n -dAD=l 2>/dev/null | col -bx |
		awk -v id="$id" -v pages="$out/$lang/pages" '
		{ sub(/[ \t]+$/, "") }
		NR == 1 { next }                      # the running header
		/^[^ ]/ { heads++; if (heads == 1) { inname = 1; next } else inname = 0 }
		inname { gsub(/^ +/, ""); name = name " " $0; next }
		{ body = body $0 "\n" }
		END {
			d = index(name, " - ")
			if (d == 0 || body == "") exit
			desc = substr(name, d + 3); gsub(/  +/, " ", desc); sub(/^ +/, "", desc); sub(/ +$/, "", desc)
			if (length(desc) < 2) exit
			printf "%s", body > (pages "/" id ".txt")
			printf "%s\t%s\n", id, desc   # lines under PIPE_BUF: whole when two pages write
		}'
}
export -f page
export out

for lang in "${langs[@]}"; do
	dir=/usr/share/man/$lang
	[ "$lang" = en ] && dir=/usr/share/man # English pages sit at the top
	[ -d "$dir" ] || { echo "skip $lang: no $dir" >&2; continue; }
	rm -rf "${out:?}/$lang"
	mkdir -p "$out/$lang/pages"
	find "$dir" -path "$dir/man[1-8]/*" -name '*.gz' -type f -print0 | sort -z |
		{ if [ -n "${SKIP:-}" ]; then grep -zEv -- "$SKIP"; else cat; fi; } | head -z -n "${MAX:-1000000}" |
		xargs -0 -P 2 -n 1 bash -c 'page "$0" "$1"' "$lang" | sort > "$out/$lang/queries.tsv"
	echo "$lang: $(wc -l < "$out/$lang/queries.tsv") pages with a description" >&2
done
