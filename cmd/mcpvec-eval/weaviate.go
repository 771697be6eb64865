package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/server/library"
	wvlib "github.com/mcpvec/mcpvec/server/library/weaviate"
	"github.com/mcpvec/mcpvec/store/weaviate"
)

// evalWeaviate copies the evaluated library into a fresh Weaviate
// collection (as `mcpvec migrate --to` does, with the CLI's analyzer) and
// scores the same queries through it, rows labelled "weaviate-".
func evalWeaviate(ctx context.Context, c config, coll, base string, tl *testLibrary, queries []query, docOf map[string]string) error {
	name := fmt.Sprintf("Eval%s%d", strings.ToUpper(coll[:1])+coll[1:], time.Now().Unix())
	url := strings.TrimSuffix(c.weaviate, "/") + "/" + name
	st, err := weaviate.Open(ctx, url, &weaviate.Options{Analyzer: lexical.Tokenize, AnalyzerName: "mcpvec-lexical-1"})
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	p, err := st.CopyFrom(ctx, tl.db, weaviate.CopyOptions{})
	if err != nil {
		return fmt.Errorf("copy into %s: %w", url, err)
	}
	stats, err := st.Stats(ctx)
	if err != nil {
		return err
	}
	took := time.Since(start)
	fmt.Printf("| (copied %d documents, %d passages into %s in %s: %.0f passages/s) | | | | | |\n",
		p.Copied, stats.Chunks, url, took.Round(time.Millisecond), float64(stats.Chunks)/took.Seconds())
	opts := tl.opts
	be := wvlib.New(st, url, wvlib.Options{Fusion: opts.Fusion, VectorWeight: opts.VectorWeight})
	return scoreModes(ctx, c, coll, base, "weaviate-", library.New(be, tl.emb, opts), queries, docOf)
}
