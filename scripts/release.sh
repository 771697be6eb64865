#!/usr/bin/env bash
# release.sh builds the release into ${OUT:-dist/out} (gitignored): static
# binaries (CGO off, -trimpath) for linux, darwin and windows on amd64 and
# arm64; one archive each (.tar.gz, .zip for windows) with README.md,
# CHANGELOG.md, the licence files the repository has and the service unit or
# plist; one Claude Desktop bundle (.mcpb) each, validated and packed with
# the pinned official tool (dist/package.json); a CycloneDX SBOM; SHA256SUMS.
# Archive entries carry the commit's date (SOURCE_DATE_EPOCH), so the same
# commit gives the same archive bytes apart from the build date stamp.
# Usage: scripts/release.sh [VERSION]   (make release does this)
set -euo pipefail
cd "$(dirname "$0")/.."
export TZ=UTC LC_ALL=C

VERSION=${1:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
OUT=${OUT:-dist/out}
PLATFORMS=${PLATFORMS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
BUILD_DATE=${BUILD_DATE:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}
COMMIT=$(git rev-parse HEAD) COMMIT_DATE=$(git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd)
LDFLAGS="-s -w -X main.Version=$VERSION -X main.BuildDate=$BUILD_DATE -X main.Commit=$COMMIT -X main.CommitDate=$COMMIT_DATE"
MCPB=dist/node_modules/.bin/mcpb

rm -rf "$OUT" && mkdir -p "$OUT/stage"
if [ ! -x "$MCPB" ]; then (cd dist && npm ci --no-audit --no-fund --loglevel=error); fi

# stamp sets every staged file's mtime to the commit date.
stamp() { find "$1" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +; }

# bundle writes OUT/mcpvec_VERSION_OS_ARCH.mcpb around the binary in $2.
bundle() {
	local os=$1 bin=$2 name=$3 platform=$1 dir="$OUT/stage/$3.mcpb"
	[ "$os" = windows ] && platform=win32
	mkdir -p "$dir/server" && cp "$bin" "$dir/server/"
	sed -e "s/@VERSION@/$VERSION/" -e "s/@BIN@/$(basename "$bin")/g" -e "s/@PLATFORM@/$platform/" \
		dist/mcpb/manifest.json.in >"$dir/manifest.json"
	"$MCPB" validate "$dir/manifest.json"
	stamp "$dir"
	"$MCPB" pack "$dir" "$OUT/$name.mcpb" >/dev/null
}

for p in $PLATFORMS; do
	os=${p%/*} arch=${p#*/} exe=mcpvec
	[ "$os" = windows ] && exe=mcpvec.exe
	name="mcpvec_${VERSION}_${os}_${arch}"
	dir="$OUT/stage/$name"
	mkdir -p "$dir"
	echo "build $name"
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$LDFLAGS" -o "$dir/$exe" ./cmd/mcpvec
	cp README.md CHANGELOG.md "$dir/"
	for f in LICENSE* COPYING* NOTICE*; do [ -e "$f" ] && cp "$f" "$dir/"; done
	[ "$os" = linux ] && cp dist/mcpvec.service "$dir/"
	[ "$os" = darwin ] && cp dist/com.mcpvec.serve.plist "$dir/"
	stamp "$dir"
	if [ "$os" = windows ]; then
		(cd "$OUT/stage" && find "$name" -print | sort | zip -X -q "../$name.zip" -@)
	else
		tar -C "$OUT/stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
			-cf - "$name" | gzip -n -9 >"$OUT/$name.tar.gz"
	fi
	bundle "$os" "$dir/$exe" "$name"
done

# The SBOM reads the module list the linux/amd64 binary records (bin mode:
# app mode's own git lookup fails in a git worktree).
echo "sbom"
go install github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0
"$(go env GOPATH)/bin/cyclonedx-gomod" bin -json -licenses -version "$VERSION" \
	-output "$OUT/mcpvec_${VERSION}.sbom.cdx.json" "$OUT/stage/mcpvec_${VERSION}_linux_amd64/mcpvec" 2>/dev/null

rm -rf "$OUT/stage"
(cd "$OUT" && sha256sum -- *.tar.gz *.zip *.mcpb *.json >SHA256SUMS)
echo "release $VERSION (commit $(git rev-parse --short=12 HEAD), built $BUILD_DATE) in $OUT:"
(cd "$OUT" && ls -l --time-style=+ -- * | awk '{printf "  %10d  %s\n", $5, $NF}')
cat "$OUT/SHA256SUMS"
