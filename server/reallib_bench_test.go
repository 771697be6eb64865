package server

import (
	"context"
	"os"
	"testing"

	"github.com/mcpvec/mcpvec/cmd/mcpvec-eval/evalset"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/server/library"
	"github.com/mcpvec/mcpvec/store"
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
	path, qpath := os.Getenv("MCPVEC_BENCH_LIBRARY"), os.Getenv("MCPVEC_BENCH_QUERIES")
	if path == "" || qpath == "" {
		b.Skip("set MCPVEC_BENCH_LIBRARY and MCPVEC_BENCH_QUERIES")
	}
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	meta, err := db.Meta()
	if err != nil || meta.Embedder == nil || meta.Embedder.Provider != "hash" {
		b.Fatalf("need a library of the offline embedder: %+v %v", meta.Embedder, err)
	}
	cfg := embed.DefaultHashConfig()
	cfg.Dimensions = meta.Embedder.Dimensions
	emb := embed.NewHash(cfg)
	opts := library.OptionsFor("hash")
	opts.UseIDF, opts.Logger = emb.SetQueryWeight, quietLogger(b)
	lib, err := library.Open(context.Background(), db, emb, opts)
	if err != nil {
		b.Fatal(err)
	}
	benchSearch(b, realLib{lib}, readBenchQueries(b, qpath))
}

func readBenchQueries(b *testing.B, path string) []string {
	qs, err := evalset.QueryTexts(path)
	if err != nil {
		b.Fatal(err)
	}
	return qs
}
