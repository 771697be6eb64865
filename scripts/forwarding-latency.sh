#!/usr/bin/env bash
# forwarding-latency.sh measures what handing a command to a running server
# costs (issue 34 item 4): the median wall time of 10 runs each of
# `mcpvec ls` and `mcpvec search` on a small library (20 text files), run
# directly and handed to a running `mcpvec serve`, alternately.
#
# Then the same search 10 times while a plain `mcpvec ingest` of 4,000 more
# files runs (no server): how many succeed, and their median.
#
# Usage: scripts/forwarding-latency.sh [BINARY]
# Without BINARY it builds ./cmd/mcpvec (run it from the repository root).
# Everything lives in a temporary folder, with its own XDG_RUNTIME_DIR so
# no other server on the machine is involved; it is removed at the end.
set -euo pipefail

work=$(mktemp -d)
serve=
ingest=
cleanup() {
	for p in $serve $ingest; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

bin=${1:-}
if [ -z "$bin" ]; then
	go build -o "$work/mcpvec" ./cmd/mcpvec
	bin=$work/mcpvec
fi
export MCPVEC_DB=$work/lib.db XDG_RUNTIME_DIR=$work/run
mkdir -m 700 "$work/run" "$work/docs"
for i in $(seq 1 20); do
	echo "document $i: the lighthouse keepers trimmed wick number $i at dusk" >"$work/docs/d$i.txt"
done
"$bin" ingest "$work/docs" >/dev/null 2>&1

# ms CMD... prints the wall time of one run of the command in milliseconds.
ms() {
	local s e
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
}

# median reads numbers, one a line, and prints their median.
median() {
	sort -n | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.0f", m }'
}

# A copy of the library that no server holds, so that direct and
# forwarded runs can alternate: the machine's load then weighs on both
# alike.
cp "$MCPVEC_DB" "$work/direct.db"

"$bin" serve --addr 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
serve=$!
for _ in $(seq 600); do # up to a minute for the admin socket
	if compgen -G "$work/run/mcpvec-*.sock" >/dev/null; then break; fi
	sleep 0.1
done
if ! "$bin" ls 2>&1 >/dev/null | grep -q "handing the command"; then
	echo "forwarding-latency: commands are not handed to the server" >&2
	exit 1
fi

for cmd in ls search; do
	args=("$cmd")
	[ "$cmd" = search ] && args+=(lighthouse keepers)
	: >"$work/$cmd.direct"
	: >"$work/$cmd.forwarded"
	for _ in $(seq 10); do
		ms "$bin" "${args[@]}" --db "$work/direct.db" >>"$work/$cmd.direct"
		ms "$bin" "${args[@]}" >>"$work/$cmd.forwarded"
	done
done
ls_direct=$(median <"$work/ls.direct")
ls_forwarded=$(median <"$work/ls.forwarded")
search_direct=$(median <"$work/search.direct")
search_forwarded=$(median <"$work/search.forwarded")

kill "$serve"
wait "$serve" 2>/dev/null || true
serve=

# search beside a plain ingest: with an ingest that outlasts 10 searches
mkdir "$work/more"
for i in $(seq 1 4000); do
	echo "note $i: the harbour lanterns were lit at dusk, entry $i" >"$work/more/n$i.txt"
done
"$bin" ingest --workers 1 "$work/more" >"$work/ingest.out" 2>"$work/ingest.err" &
ingest=$!
sleep 0.5
ok=0
times=()
for _ in $(seq 10); do
	s=$(date +%s%N)
	if "$bin" search lighthouse keepers >/dev/null 2>&1; then
		ok=$((ok + 1))
		times+=($((($(date +%s%N) - s) / 1000000)))
	fi
done
running=yes
kill -0 "$ingest" 2>/dev/null || running="no (the ingest ended first: make it longer)"
wait "$ingest" || true
ingest=
during=-
if [ "$ok" -gt 0 ]; then
	during=$(printf '%s\n' "${times[@]}" | median)
fi

printf '%-8s %10s %13s %9s\n' command "direct ms" "forwarded ms" "extra ms"
printf '%-8s %10d %13d %9d\n' ls "$ls_direct" "$ls_forwarded" $((ls_forwarded - ls_direct))
printf '%-8s %10d %13d %9d\n' search "$search_direct" "$search_forwarded" $((search_forwarded - search_direct))
printf 'search during a plain ingest: %d of 10 succeeded, median %s ms; ingest still running after them: %s\n' "$ok" "$during" "$running"
