package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/weaviate"
	"github.com/mcpvec/mcpvec/store/weaviate/weaviatetest"
)

// setup is one library backing the side-by-side run.
type setup struct {
	name  string
	nodes int // Weaviate nodes; 0 is the embedded library file
}

// sideResult is one setup's row of the side-by-side table.
type sideResult struct {
	passages  int
	ingest    time.Duration
	one, many latencies
	ndcg, mrr float64
}

// sideBySide ingests one collection with the real mcpvec binary into an
// embedded library, a one-node Weaviate and a three-node Weaviate
// (replication factor 3), serves each with `mcpvec serve` over HTTP, and
// measures ingest passages/s, MCP search latency with 1 and c.clients
// clients, and nDCG@10 of the MCP search results. Nodes run on loopback
// under a temporary folder and are stopped at the end.
func sideBySide(ctx context.Context, c config) error {
	cp, err := openCorpus(c, c.sideBySide, "mcpvec-sidebyside-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cp.dir)
	base, dir, files, queries := cp.base, cp.dir, cp.files, cp.queries
	root, err := childproc.ModuleRoot()
	if err != nil {
		return err
	}
	bin, err := childproc.Build(ctx, root, dir)
	if err != nil {
		return err
	}
	fmt.Printf("\n## side by side: %s (%d documents, %d queries), %d clients, shared machine (%d CPUs)\n\n", c.sideBySide, cp.docs, len(queries), c.clients, cpus())
	fmt.Println("| library | passages | ingest passages/s | search p50 / p99 ms, 1 client | search p50 / p99 ms, " + fmt.Sprint(c.clients) + " clients | nDCG@10 (MCP search) | MRR@10 |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, s := range []setup{{"embedded (bbolt file)", 0}, {"Weaviate, 1 node", 1}, {"Weaviate, 3 nodes, replication 3", 3}} {
		r, err := runSetup(ctx, c, s, bin, filepath.Join(dir, fmt.Sprintf("setup%d", s.nodes)), files, base, queries)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Printf("| %s | %d | %.0f | %s | %s | %.3f | %.3f |\n", s.name, r.passages, float64(r.passages)/r.ingest.Seconds(),
			r.one, r.many, r.ndcg, r.mrr)
	}
	return nil
}

// runSetup ingests files into setup s (starting its Weaviate nodes), serves
// it and measures it.
func runSetup(ctx context.Context, c config, s setup, bin, dir string, files, base string, queries []query) (sideResult, error) {
	var r sideResult
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	lib := []string{"--db", filepath.Join(dir, "library.db")}
	var url string
	if s.nodes > 0 {
		cl, err := weaviatetest.Launch(filepath.Join(dir, "weaviate"), weaviatetest.Options{Nodes: s.nodes})
		if err != nil {
			return r, err
		}
		defer cl.Stop()
		url = cl.URL(0, "SideBySide")
		lib = []string{"--store", url}
	}
	ingestArgs := append(append([]string{"ingest"}, lib...), "--replicas", fmt.Sprint(max(s.nodes, 1)), files)
	if s.nodes == 0 {
		ingestArgs = append(append([]string{"ingest"}, lib...), files)
	}
	start := time.Now()
	if out, err := childproc.Run(ctx, bin, append(childproc.Env(dir), "MCPVEC_EMBEDDER=hash"), ingestArgs...); err != nil {
		return r, fmt.Errorf("ingest: %w\n%s", err, out)
	}
	r.ingest = time.Since(start)
	docOf, passages, err := libraryDocs(ctx, lib, url)
	if err != nil {
		return r, err
	}
	r.passages = passages
	return measureServe(ctx, c, r, bin, dir, lib, base, queries, docOf)
}

// libraryDocs maps the library's document ids to collection ids (the file
// names) and counts its passages.
func libraryDocs(ctx context.Context, lib []string, url string) (map[string]string, int, error) {
	if url == "" {
		db, err := store.Open(lib[1], &store.Options{ReadOnly: true})
		if err != nil {
			return nil, 0, err
		}
		defer db.Close()
		st, err := db.Stats()
		if err != nil {
			return nil, 0, err
		}
		m, err := sourceIDs(db)
		return m, st.Chunks, err
	}
	b, err := weaviate.Open(ctx, url, &weaviate.Options{Analyzer: lexical.Tokenize, AnalyzerName: lexical.AnalyzerName})
	if err != nil {
		return nil, 0, err
	}
	defer b.Close()
	st, err := b.Stats(ctx)
	if err != nil {
		return nil, 0, err
	}
	ds, err := b.Documents(ctx)
	if err != nil {
		return nil, 0, err
	}
	m := map[string]string{}
	for _, d := range ds {
		m[d.ID] = strings.TrimSuffix(filepath.Base(d.SourcePath), filepath.Ext(d.SourcePath))
	}
	return m, st.Chunks, nil
}
