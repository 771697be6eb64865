package server

import (
	"testing"

	"github.com/mcpvec/mcpvec/internal/reallib"
)

// BenchmarkSearchHTTPRealLibrary is BenchmarkSearchHTTP against an existing
// library of the offline embedder (MCPVEC_BENCH_LIBRARY, e.g. one made by
// cmd/mcpvec-scale), opened read-only as `serve` opens it, with the queries
// of a JSON-lines file of {"text": …} objects (MCPVEC_BENCH_QUERIES). The
// client and the server share the process, so a CPU profile shows the whole
// request. Skipped without both.
//
//	MCPVEC_BENCH_LIBRARY=/path/library.db MCPVEC_BENCH_QUERIES=../../shared/eval/scifact/queries.jsonl \
//	  go test -run '^$' -bench SearchHTTPRealLibrary -benchtime 3000x ./server/
func BenchmarkSearchHTTPRealLibrary(b *testing.B) {
	lib, _, queries := reallib.Open(b, quietLogger(b))
	benchSearch(b, realLib{lib}, queries)
}
