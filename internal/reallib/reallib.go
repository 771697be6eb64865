// Package reallib opens an existing library of the offline embedder for the
// benchmarks and tests that measure the query path on real data (the
// libraries cmd/mcpvec-scale builds). It is a test kit: nothing in
// production imports it.
package reallib

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/internal/evalset"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// Open opens the library MCPVEC_BENCH_LIBRARY read-only as `serve` opens
// one of the offline embedder (embed.Open, library.EmbedderOptions: query
// words weighed by the library's IDF; logger may be nil) and reads the queries of the
// JSON-lines file MCPVEC_BENCH_QUERIES ({"text": …} objects). It skips tb
// without both and fails it when the library is not of the offline
// embedder. The store closes with tb.
func Open(tb testing.TB, logger *slog.Logger) (*library.Library, *store.DB, []string) {
	tb.Helper()
	path, qpath := os.Getenv("MCPVEC_BENCH_LIBRARY"), os.Getenv("MCPVEC_BENCH_QUERIES")
	if path == "" || qpath == "" {
		tb.Skip("set MCPVEC_BENCH_LIBRARY and MCPVEC_BENCH_QUERIES")
	}
	queries, err := evalset.QueryTexts(qpath)
	if err != nil {
		tb.Fatal(err)
	}
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	meta, err := db.Meta()
	if err != nil || meta.Embedder == nil {
		tb.Fatalf("need a library of the offline embedder: %+v %v", meta.Embedder, err)
	}
	// Only the offline embedder is linked in: another library's is unknown.
	emb, err := embed.Open(context.Background(), embed.Identity(*meta.Embedder), embed.Options{})
	if err != nil || !embed.TraitsOf(emb.Identity()).Local {
		tb.Fatalf("need a library of the offline embedder: %+v %v", meta.Embedder, err)
	}
	opts := library.EmbedderOptions(emb)
	opts.Logger = logger
	lib, err := embedded.Open(context.Background(), db, emb, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return lib, db, queries
}
