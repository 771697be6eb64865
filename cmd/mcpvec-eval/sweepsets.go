package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/internal/evalset"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// sweepSet is one collection of the sweep, ingested once into a library
// of its own that the sweep reopens with each setting.
type sweepSet struct {
	name   string // column heading: collection and main metric
	second string // name of the second metric
	tl     *testLibrary
	// score searches every query in mode and returns its main and second
	// metric per query, in the collection's order (NaN: not evaluated).
	score   func(ctx context.Context, lib *library.Library, mode library.Mode) (main, second []float64, err error)
	cleanup func()
}

func (s *sweepSet) close() {
	if s.tl != nil && s.tl.db != nil {
		s.tl.db.Close()
	}
	if s.cleanup != nil {
		s.cleanup()
	}
}

// reopen closes the library's store and opens it again with the BM25
// parameters lex; rebuild drops the persisted indexes first, so that the
// passages are tokenised again by the word rules now in force.
func (t *testLibrary) reopen(ctx context.Context, lex lexical.Config, rebuild bool) error {
	if err := t.db.Close(); err != nil {
		return err
	}
	db, err := store.Open(filepath.Join(t.dir, "library.db"), &store.Options{NoSync: true})
	if err != nil {
		t.db = nil
		return err
	}
	t.db = db
	if rebuild {
		if err := embedded.DropIndexes(db); err != nil {
			return err
		}
	}
	opts := t.opts
	opts.Lexical = lex
	t.lib, err = embedded.Open(ctx, db, t.emb, opts)
	return err
}

// ingestSet opens a library in a new temporary folder and ingests paths
// into it with mcpvec's default chunking.
func ingestSet(ctx context.Context, c config, name string, paths ...string) (*sweepSet, string, error) {
	dir, err := os.MkdirTemp("", "mcpvec-sweep-")
	if err != nil {
		return nil, "", err
	}
	s := &sweepSet{name: name, cleanup: func() { os.RemoveAll(dir) }}
	libDir := filepath.Join(dir, "lib")
	if err := os.MkdirAll(libDir, 0o755); err != nil {
		s.close()
		return nil, "", err
	}
	if s.tl, err = openTestLibrary(ctx, c, libDir); err != nil {
		s.close()
		return nil, "", err
	}
	if len(paths) == 0 {
		return s, dir, nil
	}
	sum, err := s.tl.ingest(ctx, paths, chunkOpts(c, c.chunkTokens))
	if err != nil {
		s.close()
		return nil, "", err
	}
	fmt.Fprintf(os.Stderr, "sweep: %s: %d documents, %d passages\n", name, sum.Ingested, sum.Chunks)
	return s, dir, nil
}

// trecSweepSet is a collection of ../shared/eval scored by eval.py:
// nDCG@10, and MRR@10 second.
func trecSweepSet(ctx context.Context, c config, coll string) (*sweepSet, error) {
	cp, err := openCorpus(c, coll, "mcpvec-sweep-files-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(cp.dir)
	s, _, err := ingestSet(ctx, c, coll+" nDCG@10", cp.files)
	if err != nil {
		return nil, err
	}
	s.second = "MRR@10"
	docOf, err := sourceIDs(s.tl.db)
	if err != nil {
		s.close()
		return nil, err
	}
	s.score = func(ctx context.Context, lib *library.Library, mode library.Mode) ([]float64, []float64, error) {
		runPath := filepath.Join(c.out, fmt.Sprintf("sweep-%s-%s.trec", coll, mode))
		if _, err := writeRun(ctx, lib, cp.queries, mode, docOf, runPath); err != nil {
			return nil, nil, err
		}
		per, err := evalset.ScorePerQuery(filepath.Join(c.shared, "eval", "eval.py"), filepath.Join(cp.base, "qrels.tsv"), runPath)
		if err != nil {
			return nil, nil, err
		}
		main, second := nans(len(cp.queries)), nans(len(cp.queries))
		for i, q := range cp.queries {
			if m, ok := per[q.ID]; ok {
				main[i], second[i] = m["ndcg@10"], m["mrr@10"]
			}
		}
		return main, second, nil
	}
	return s, nil
}

// longDocSweepChunk is the passage size the long-document figures are
// quoted at (docs/benchmarks: "long-PDF top 5", 256-token passages).
const longDocSweepChunk = 256

// longPDFSweepSet is the long-document check at longDocSweepChunk tokens:
// a relevant page cited in the top 5, and at rank 1 second.
func longPDFSweepSet(ctx context.Context, c config) (*sweepSet, error) {
	base := filepath.Join(c.shared, "eval", "scifact")
	docs, queries, err := evalset.Load(base)
	if err != nil {
		return nil, err
	}
	qrels, err := readQrels(filepath.Join(base, "qrels.tsv"))
	if err != nil {
		return nil, err
	}
	s, dir, err := ingestSet(ctx, c, "long-PDF top5")
	if err != nil {
		return nil, err
	}
	s.second = "rank1"
	files := filepath.Join(dir, "pdfs")
	where, err := bundleInto(docs, files, c)
	if err == nil {
		_, err = s.tl.ingest(ctx, []string{files}, chunkOpts(c, longDocSweepChunk))
	}
	var fileOf map[string]string
	if err == nil {
		fileOf, err = pdfNames(s.tl.db)
	}
	if err != nil {
		s.close()
		return nil, err
	}
	s.score = func(ctx context.Context, lib *library.Library, mode library.Mode) ([]float64, []float64, error) {
		ranks, err := longDocRanks(ctx, lib, mode, queries, qrels, where, fileOf)
		if err != nil {
			return nil, nil, err
		}
		main, second := nans(len(ranks)), nans(len(ranks))
		for i, r := range ranks {
			if r >= 0 {
				main[i], second[i] = b2f(r > 0), b2f(r == 1)
			}
		}
		return main, second, nil
	}
	return s, nil
}

// bundleInto writes the long-document PDFs into dir as the check does.
func bundleInto(docs []corpusDoc, dir string, c config) (map[string]span, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return bundle(docs, dir, c.outline, !c.bookmarkOnly)
}

// pdfNames maps library document ids to their files' base names.
func pdfNames(db *store.DB) (map[string]string, error) {
	docs, err := db.Documents()
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, d := range docs {
		m[d.ID] = filepath.Base(d.SourcePath)
	}
	return m, nil
}

// knownItemSweepSet is a known-item folder (pages/ and queries.tsv, as
// scripts/manpages-eval.sh writes them): the page among the first 10
// documents, and the reciprocal rank second.
func knownItemSweepSet(ctx context.Context, c config, dir string) (*sweepSet, error) {
	qs, err := readKnownItems(filepath.Join(dir, "queries.tsv"))
	if err != nil {
		return nil, err
	}
	s, _, err := ingestSet(ctx, c, filepath.Base(dir)+" hit@10", filepath.Join(dir, "pages"))
	if err != nil {
		return nil, err
	}
	s.second = "MRR"
	docOf, err := sourceIDs(s.tl.db)
	if err != nil {
		s.close()
		return nil, err
	}
	s.score = func(ctx context.Context, lib *library.Library, mode library.Mode) ([]float64, []float64, error) {
		ranks, _, err := knownItemRanks(ctx, lib, qs, mode, docOf)
		if err != nil {
			return nil, nil, err
		}
		main, second := make([]float64, len(ranks)), make([]float64, len(ranks))
		for i, r := range ranks {
			if r > 0 {
				main[i], second[i] = b2f(r <= 10), 1/float64(r)
			}
		}
		return main, second, nil
	}
	return s, nil
}

func nans(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// passageSweepSet is a real-text known-item set as cmd/mcpvec-realtext
// build -link writes it (lib/ and queries.tsv: id, doc, passage, kind,
// query, source): the query's passage among the first 10 results
// (success@10), and its reciprocal rank among them second.
func passageSweepSet(ctx context.Context, c config, dir string) (*sweepSet, error) {
	qs, err := readPassageQueries(filepath.Join(dir, "queries.tsv"))
	if err != nil {
		return nil, err
	}
	lib := filepath.Join(dir, "lib")
	s, _, err := ingestSet(ctx, c, filepath.Base(dir)+" success@10", lib)
	if err != nil {
		return nil, err
	}
	s.second = "MRR@10"
	docs, err := s.tl.db.Documents()
	if err != nil {
		s.close()
		return nil, err
	}
	pathOf := map[string]string{}
	for _, d := range docs {
		if rel, err := filepath.Rel(lib, d.SourcePath); err == nil {
			pathOf[d.ID] = filepath.ToSlash(rel)
		}
	}
	s.score = func(ctx context.Context, lib *library.Library, mode library.Mode) ([]float64, []float64, error) {
		main, second := make([]float64, len(qs)), make([]float64, len(qs))
		for i, q := range qs {
			resp, err := lib.Search(ctx, q.text, library.SearchOptions{K: 10, Mode: mode})
			if err != nil {
				return nil, nil, fmt.Errorf("query %s: %w", q.id, err)
			}
			for rank, r := range resp.Results {
				doc, index, ok := store.ParsePassageID(r.ID)
				if ok && index == q.passage && pathOf[doc] == q.doc {
					main[i], second[i] = 1, 1/float64(rank+1)
					break
				}
			}
		}
		return main, second, nil
	}
	return s, nil
}

// passageQuery is a known-item query and the passage that answers it.
type passageQuery struct {
	id, doc, text string
	passage       int
}

// readPassageQueries reads "id<TAB>doc<TAB>passage<TAB>kind<TAB>query..."
// lines.
func readPassageQueries(path string) ([]passageQuery, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var qs []passageQuery
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 5 {
			continue
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("%s: passage %q: %w", path, f[2], err)
		}
		qs = append(qs, passageQuery{id: f[0], doc: f[1], passage: n, text: f[4]})
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("%s: no queries", path)
	}
	return qs, nil
}
