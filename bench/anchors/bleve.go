package main

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
)

// runBleve indexes the passages with bleve v2 (scorch, the English
// analyzer, the BM25 scoring model) in batches of batch passages, and
// searches with a match query (the words ORed), top 10. Each Batch call
// waits until scorch has persisted its segment; batches of 10,000 instead
// of 1,000 did not build faster at 20k (more CPU) and changed a few top
// 10s (docs/benchmarks/anchors-1m.md, session 22).
func runBleve(ps []passage, qs []query, dir string, rounds, batch int) (result, error) {
	r := result{engine: "bleve v2.6.3 (BM25, en analyzer)"}
	path := filepath.Join(dir, "bleve")
	im := bleve.NewIndexMapping()
	im.DefaultAnalyzer = en.AnalyzerName
	im.ScoringModel = bindex.BM25Scoring
	dm := mapping.NewDocumentStaticMapping()
	fm := mapping.NewTextFieldMapping()
	fm.Analyzer, fm.Store, fm.IncludeTermVectors, fm.IncludeInAll = en.AnalyzerName, false, false, false
	dm.AddFieldMappingsAt("text", fm)
	im.DefaultMapping = dm
	var ix bleve.Index
	var err error
	r.buildWall, r.build, err = timeBuild(func() error {
		if ix, err = bleve.New(path, im); err != nil {
			return err
		}
		b := ix.NewBatch()
		for i, p := range ps {
			if err := b.Index(strconv.Itoa(i), map[string]any{"text": p.text}); err != nil {
				return err
			}
			if b.Size() == batch {
				if err := ix.Batch(b); err != nil {
					return err
				}
				b.Reset()
			}
		}
		return ix.Batch(b)
	})
	if err != nil {
		return r, fmt.Errorf("bleve build: %w", err)
	}
	defer ix.Close()
	r.size = dirSize(path)
	r.cpu, r.top, err = measure(qs, rounds, func(q string) ([]int, error) {
		mq := bleve.NewMatchQuery(q)
		mq.SetField("text")
		req := bleve.NewSearchRequestOptions(mq, 10, 0, false)
		res, err := ix.Search(req)
		if err != nil {
			return nil, err
		}
		out := make([]int, len(res.Hits))
		for i, h := range res.Hits {
			out[i], _ = strconv.Atoi(h.ID)
		}
		return out, nil
	})
	return r, err
}
