package library

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// Put stores the document in one transaction and indexes its passages.
func (l *embedded) Put(doc *store.Document, chunks []store.Chunk, vecs [][]float32, original []byte) (store.PutResult, error) {
	res, err := l.db.PutDocument(doc, chunks, vecs, original)
	if err != nil {
		return res, err
	}
	return res, l.Apply(res)
}

// Delete removes the document from the store and the indexes.
func (l *embedded) Delete(id string) ([]uint64, error) {
	res, err := l.db.RemoveDocument(id)
	if err != nil {
		return nil, err
	}
	return res.Removed, l.Apply(res)
}

// Document returns a document with its text (read from the store), or its
// record without text (through the cache; shared, not to be modified).
func (l *embedded) Document(id string, text bool) (*store.Document, error) {
	if text {
		return l.db.Document(id)
	}
	return l.docs.get(id, l.db.DocumentInfo)
}

func (l *embedded) Documents() ([]*store.Document, error)        { return l.db.Documents() }
func (l *embedded) Chunks(seqs []uint64) ([]*store.Chunk, error) { return l.db.Chunks(seqs) }
func (l *embedded) Original(id string) (io.ReadSeeker, int64, time.Time, error) {
	r, size, mod, err := l.db.OriginalReader(id)
	if err != nil {
		return nil, 0, time.Time{}, err // not a typed nil in the interface
	}
	return r, size, mod, nil
}

// Candidates searches BM25 and, when q has a vector, HNSW; the Library
// fuses the two lists.
func (l *embedded) Candidates(ctx context.Context, q Query) (Candidates, error) {
	var c Candidates
	if q.Mode == Lexical || q.Mode == Hybrid {
		rs := l.lex.Search(q.Text, q.N)
		c.Lexical = make([]Hit, 0, len(rs))
		for _, r := range rs {
			c.Lexical = append(c.Lexical, Hit{r.ID, float64(r.Score)})
		}
	}
	if q.Vector == nil || (q.Mode != Vector && q.Mode != Hybrid) {
		return c, nil
	}
	vec, err := l.waitVectors(ctx)
	if err != nil || vec == nil {
		return c, err
	}
	rs, err := vec.SearchSeeded(q.Vector, q.N, l.seeds(c.Lexical))
	if err != nil {
		return c, fmt.Errorf("vector search: %w", err)
	}
	c.Vector = make([]Hit, 0, len(rs))
	for _, r := range rs {
		c.Vector = append(c.Vector, Hit{r.ID, float64(r.Score)})
	}
	return c, nil
}

// Check applies the consistency rule to the store and the in-memory
// indexes.
func (l *embedded) Check(ctx context.Context) (Health, error) {
	var h Health
	var err error
	if h.Stats, err = l.db.Stats(); err != nil {
		return h, err
	}
	if h.Meta, err = l.db.Meta(); err != nil {
		return h, err
	}
	h.Index = l.Counts()
	h.Problems = l.db.Check()
	n := h.Stats.Chunks
	h.Consistent = h.Problems == nil && n == h.Stats.Vectors && h.Index.LexicalPassages == n &&
		(h.Meta.Embedder == nil || h.Index.VectorPassages == n)
	return h, nil
}

// seeds returns the passages that start the graph search of q: the first
// Options.VectorSeeds of lex, BM25's list of a hybrid search. A vector
// search has none and is not seeded: BM25 costs as much a query as raising
// ef from 200 to 400, which finds more (BenchmarkRecallRealLibrary).
func (l *embedded) seeds(lex []Hit) []uint64 {
	out := make([]uint64, 0, min(l.opts.VectorSeeds, len(lex)))
	for _, h := range lex[:cap(out)] {
		out = append(out, h.Seq)
	}
	return out
}
