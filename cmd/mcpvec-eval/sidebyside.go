package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
	"github.com/mcpvec/mcpvec/internal/cputime"
	"github.com/mcpvec/mcpvec/library/weaviate"
	"github.com/mcpvec/mcpvec/library/weaviate/weaviatetest"
	"github.com/mcpvec/mcpvec/store"
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
	// ingestCPU is the CPU time of mcpvec ingest and the Weaviate nodes
	// during the ingest; searchCPU that of mcpvec serve and the nodes during
	// the run of many clients. On a shared machine these move less with
	// other work than the wall-clock figures.
	ingestCPU, searchCPU time.Duration
}

// cpuPer is CPU time per item in milliseconds, "-" when unknown.
func cpuPer(d time.Duration, n int) string {
	if d <= 0 || n <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(d.Microseconds())/1000/float64(n))
}

// sideBySide ingests one collection with the real mcpvec binary into an
// embedded library, a one-node Weaviate and a three-node Weaviate
// (replication factor 3), serves each with `mcpvec serve` over HTTP, and
// measures ingest passages/s, MCP search latency with 1 and c.clients
// clients, and nDCG@10 of the MCP search results. Nodes run on loopback
// under a temporary folder and are stopped at the end.
func sideBySide(ctx context.Context, c config) error {
	if _, err := chooseSetups(c.setups); err != nil {
		return err
	}
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
	fmt.Println("| library | passages | ingest passages/s | ingest CPU ms/passage | search p50 / p99 ms, 1 client | search p50 / p99 ms, " + fmt.Sprint(c.clients) + " clients | search CPU ms/query | nDCG@10 (MCP search) | MRR@10 |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	setups, err := chooseSetups(c.setups)
	if err != nil {
		return err
	}
	for _, s := range setups {
		r, err := runSetup(ctx, c, s, bin, filepath.Join(dir, fmt.Sprintf("setup%d", s.nodes)), files, base, queries)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Printf("| %s | %d | %.0f | %s | %s | %s | %s | %.3f | %.3f |\n", s.name, r.passages, float64(r.passages)/r.ingest.Seconds(),
			cpuPer(r.ingestCPU, r.passages), r.one, r.many, cpuPer(r.searchCPU, len(r.many)), r.ndcg, r.mrr)
	}
	return nil
}

// allSetups are the libraries a side-by-side run can compare.
var allSetups = []setup{{"embedded (bbolt file)", 0}, {"Weaviate, 1 node", 1}, {"Weaviate, 3 nodes, replication 3", 3}}

// chooseSetups picks from allSetups by node count ("0,1,3": all).
func chooseSetups(list string) ([]setup, error) {
	var out []setup
	for _, f := range strings.Split(list, ",") {
		i := slices.IndexFunc(allSetups, func(s setup) bool { return fmt.Sprint(s.nodes) == strings.TrimSpace(f) })
		if i < 0 {
			return nil, fmt.Errorf("-setups %q: want node counts out of 0 (embedded), 1 and 3, separated by commas", list)
		}
		out = append(out, allSetups[i])
	}
	return out, nil
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
	var cl *weaviatetest.Cluster
	if s.nodes > 0 {
		var err error
		cl, err = weaviatetest.Launch(filepath.Join(dir, "weaviate"), weaviatetest.Options{Nodes: s.nodes, Env: nodeSettings})
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
	start, wvCPU, ingCPU := time.Now(), childproc.CPU(cl.PIDs()...), cputime.Children()
	out, err := childproc.Run(ctx, bin, append(childproc.Env(dir), "MCPVEC_EMBEDDER="+c.embedder), ingestArgs...)
	if err != nil {
		return r, fmt.Errorf("ingest: %w\n%s", err, out)
	}
	r.ingest = time.Since(start)
	r.ingestCPU = cputime.Children() - ingCPU + childproc.CPU(cl.PIDs()...) - wvCPU
	docOf, passages, err := libraryDocs(ctx, lib, url)
	if err != nil {
		return r, err
	}
	r.passages = passages
	if cl != nil {
		time.Sleep(c.sideSettle) // see nodeSettings
	}
	return measureServe(ctx, c, r, bin, dir, lib, base, queries, docOf, cl.PIDs())
}

// nodeSettings are the side-by-side nodes' settings beyond weaviatetest's:
// memtables written out after 5 s without writes (Weaviate's default is
// 60 s), since its BM25 scores lag the writes until then (README, "Scaling
// out"); the run waits -side-by-side-settle after the ingest.
var nodeSettings = []string{"PERSISTENCE_MEMTABLES_FLUSH_IDLE_AFTER_SECONDS=5"}

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
	b, err := weaviate.OpenCollection(ctx, url, &weaviate.Options{Analyzer: analysis.Tokenize, AnalyzerName: analysis.AnalyzerName})
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
