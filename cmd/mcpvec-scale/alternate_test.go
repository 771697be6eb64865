package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
	"github.com/mcpvec/mcpvec/internal/evalset"
)

// BenchmarkAlternate compares the search load of two mcpvec binaries under
// the same machine conditions: both serve the library
// MCPVEC_ALTERNATE_LIBRARY read-only at once, and rounds of 300 searches
// from 16 MCP sessions go to each in turn, the first of each round
// alternating. It logs each round's figures; run it holding the bench lock:
//
//	MCPVEC_ALTERNATE_LIBRARY=LIB MCPVEC_ALTERNATE_BINS=OLD,NEW \
//	  go test -run '^$' -bench Alternate -benchtime 1x -v ./cmd/mcpvec-scale/
func BenchmarkAlternate(b *testing.B) {
	lib, bins := os.Getenv("MCPVEC_ALTERNATE_LIBRARY"), strings.Split(os.Getenv("MCPVEC_ALTERNATE_BINS"), ",")
	if lib == "" || len(bins) != 2 {
		b.Skip("set MCPVEC_ALTERNATE_LIBRARY and MCPVEC_ALTERNATE_BINS=old,new")
	}
	ctx := context.Background()
	rt := b.TempDir()
	env := childproc.Env(rt)
	_, qs, err := evalset.Load(filepath.Join("..", "..", "..", "shared", "eval", "scifact"))
	if err != nil {
		b.Fatal(err)
	}
	queries := claims(qs)
	var urls []string
	for _, bin := range bins {
		s, err := startServeOn(ctx, bin, env, []string{"--db", lib, "--read-only"}, 5*time.Minute)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Stop()
		urls = append(urls, s.url)
	}
	time.Sleep(15 * time.Second) // background loads end
	for _, u := range urls {
		if _, err := runLoad(ctx, u, 1, warmup, time.Minute, queries, true); err != nil {
			b.Fatal(err)
		}
	}
	for round := range 6 {
		for k := range urls {
			i := (k + round) % 2
			f, err := runLoad(ctx, urls[i], 16, 300, time.Minute, queries, true)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("round %d %s: 16 clients %.0f req/s, p50 %.1f ms, p99 %.1f ms", round, bins[i], f.PerSecond, f.P50ms, f.P99ms)
		}
	}
}
