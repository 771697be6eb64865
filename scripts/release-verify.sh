#!/usr/bin/env bash
# release-verify.sh checks a release directory made by scripts/release.sh
# (default dist/out) as a downloader would: SHA256SUMS, each archive's
# binary (`version` for this machine's, `file` for the foreign ones), and
# each .mcpb unpacked and its manifest validated by the official tool.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-dist/out}
MCPB=$PWD/dist/node_modules/.bin/mcpb
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
host="$(go env GOOS)_$(go env GOARCH)"

(cd "$OUT" && sha256sum -c SHA256SUMS)
for a in "$OUT"/*.tar.gz "$OUT"/*.zip; do
	name=$(basename "$a") && name=${name%.tar.gz} && name=${name%.zip}
	case $a in *.zip) unzip -q "$a" -d "$tmp" ;; *) tar -C "$tmp" -xzf "$a" ;; esac
	bin=mcpvec && [ -e "$tmp/$name/mcpvec.exe" ] && bin=mcpvec.exe
	echo "$name: $(cd "$tmp/$name" && ls | tr '\n' ' ')"
	if [[ $name == *_$host ]]; then
		echo "  $("$tmp/$name/$bin" version)"
	else
		echo "  $(file -b "$tmp/$name/$bin" | cut -d, -f1-3)"
	fi
done
for b in "$OUT"/*.mcpb; do
	d="$tmp/$(basename "$b" .mcpb).unpacked"
	"$MCPB" unpack "$b" "$d" >/dev/null
	echo "$(basename "$b"): $(cd "$d" && find . -type f | sort | tr '\n' ' ')"
	"$MCPB" validate "$d/manifest.json" | sed 's/^/  /'
done
