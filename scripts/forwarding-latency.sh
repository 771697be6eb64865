#!/usr/bin/env bash
# forwarding-latency.sh measures what handing a command to a running server
# costs (issue 34 item 4): the median wall time of 10 runs each of
# `mcpvec ls` and `mcpvec search` on a small library (20 text files), run
# directly and then handed to a running `mcpvec serve`.
#
# Usage: scripts/forwarding-latency.sh [BINARY]
# Without BINARY it builds ./cmd/mcpvec (run it from the repository root).
# Everything lives in a temporary folder, with its own XDG_RUNTIME_DIR so
# no other server on the machine is involved; it is removed at the end.
set -euo pipefail

work=$(mktemp -d)
serve=
cleanup() {
	if [ -n "$serve" ]; then kill "$serve" 2>/dev/null || true; wait "$serve" 2>/dev/null || true; fi
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

# median CMD... runs the command 10 times and prints the median wall time
# in milliseconds (the mean of the 5th and 6th).
median() {
	for _ in $(seq 10); do
		local s e
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s%N)
		echo $(((e - s) / 1000000))
	done | sort -n | sed -n '5p;6p' | awk '{ t += $1 } END { printf "%.0f", t / 2 }'
}

ls_direct=$(median "$bin" ls)
search_direct=$(median "$bin" search lighthouse keepers)

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
ls_forwarded=$(median "$bin" ls)
search_forwarded=$(median "$bin" search lighthouse keepers)

printf '%-8s %10s %13s %9s\n' command "direct ms" "forwarded ms" "extra ms"
printf '%-8s %10d %13d %9d\n' ls "$ls_direct" "$ls_forwarded" $((ls_forwarded - ls_direct))
printf '%-8s %10d %13d %9d\n' search "$search_direct" "$search_forwarded" $((search_forwarded - search_direct))
