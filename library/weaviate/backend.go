package weaviate

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/store"
)

// Backend is a library.Backend over a Weaviate collection: the library's
// seam implemented with a Collection's requests, plus short-lived caches
// of what a search read (see the package's caveats). It is safe for
// concurrent use.
type Backend struct {
	coll *Collection
	opts Options

	recent *recent

	mu       sync.Mutex
	counts   library.IndexStats
	countsAt time.Time
}

var _ library.Backend = (*Backend)(nil)

// Open opens the collection at rawURL (OpenCollection) and returns the
// Backend over it, which owns it: Close closes it. Errors are
// OpenCollection's.
func Open(ctx context.Context, rawURL string, opts *Options) (*Backend, error) {
	c, err := OpenCollection(ctx, rawURL, opts)
	if err != nil {
		return nil, err
	}
	return New(c, opts), nil
}

// New returns the Backend over an open collection, configured by opts'
// Backend fields (nil: the defaults). Close on the Backend closes c.
func New(c *Collection, opts *Options) *Backend {
	o := opts.withDefaults()
	return &Backend{coll: c, opts: o, recent: newRecent(o.RecentTTL)}
}

// Collection returns the collection the Backend works on (settings, meta,
// copies).
func (b *Backend) Collection() *Collection { return b.coll }

// Close closes the collection. The Backend must not be used after.
func (b *Backend) Close() error { return b.coll.Close() }

// bound bounds ctx by Options.Timeout.
func (b *Backend) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, b.opts.Timeout)
}

// Put stores the document and its passages (see Collection.PutDocument).
func (b *Backend) Put(ctx context.Context, doc *store.Document, chunks []store.Chunk, vecs [][]float32, original []byte) (store.PutResult, error) {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	defer b.forgetCounts()
	defer b.recent.clear()
	return b.coll.PutDocument(ctx, doc, chunks, vecs, original)
}

// Apply does nothing: Weaviate indexes what Put writes.
func (b *Backend) Apply(context.Context, store.PutResult) error { return nil }

// Save does nothing: Weaviate persists its own indexes.
func (b *Backend) Save(context.Context) error { return nil }

// Delete removes a document and its passages.
func (b *Backend) Delete(ctx context.Context, id string) ([]uint64, error) {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	defer b.forgetCounts()
	defer b.recent.clear()
	return b.coll.DeleteDocument(ctx, id)
}

// Document returns a document, with its text when text is true.
func (b *Backend) Document(ctx context.Context, id string, text bool) (*store.Document, error) {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	if text {
		return b.coll.Document(ctx, id)
	}
	if d := b.recent.doc(id); d != nil {
		return d, nil
	}
	return b.coll.DocumentInfo(ctx, id)
}

// Documents lists every document without text.
func (b *Backend) Documents(ctx context.Context) ([]*store.Document, error) {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	return b.coll.Documents(ctx)
}

// Chunks returns the passages seqs, in order, or an error wrapping
// store.ErrNotFound when one is missing (as the embedded store does). What
// the recent cache lacks it reads in one query together with the records
// of the documents a search ranked them under, for the library's Document
// calls that follow.
func (b *Backend) Chunks(ctx context.Context, seqs []uint64) ([]*store.Chunk, error) {
	out := make([]*store.Chunk, len(seqs))
	var missing []uint64
	for i, s := range seqs {
		if out[i] = b.recent.chunk(s); out[i] == nil {
			missing = append(missing, s)
		}
	}
	ctx, cancel := b.bound(ctx)
	defer cancel()
	if docIDs := b.recent.missingDocsOf(seqs); len(missing) > 0 || len(docIDs) > 0 {
		got, docs, err := b.coll.ChunksAndDocuments(ctx, missing, docIDs)
		if err != nil {
			return nil, err
		}
		b.recent.putChunks(got)
		b.recent.putDocs(docs)
		bySeq := make(map[uint64]*store.Chunk, len(got))
		for _, c := range got {
			bySeq[c.Seq] = c
		}
		for i, s := range seqs {
			if out[i] == nil {
				if out[i] = bySeq[s]; out[i] == nil {
					return nil, fmt.Errorf("passage %d: %w", s, store.ErrNotFound)
				}
			}
		}
	}
	b.prefetchDocs(ctx, out)
	return out, nil
}

// Original returns a reader of a document's original bytes (read whole
// from Weaviate; the reader holds nothing open), their size, and the
// document's ingestion time; store.ErrNotFound when none is kept.
func (b *Backend) Original(ctx context.Context, id string) (io.ReadSeeker, int64, time.Time, error) {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	d, err := b.coll.DocumentInfo(ctx, id)
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	data, err := b.coll.Original(ctx, id)
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	return bytes.NewReader(data), int64(len(data)), d.IngestedAt, nil
}

// Candidates searches Weaviate: hybrid in one fused query when q has a
// vector and asks for Hybrid, else BM25 or nearVector alone.
func (b *Backend) Candidates(ctx context.Context, q library.Query) (library.Candidates, error) {
	var c library.Candidates
	var docs []string // the operators' filter, by document (HybridQuery.Docs)
	if q.Filter != nil {
		docs = q.Filter.Documents()
	}
	switch {
	case q.Mode == library.Hybrid && q.Vector != nil:
		hits, err := b.coll.Rank(ctx, HybridQuery{
			Text: q.Text, Vector: q.Vector, Limit: q.N, Fusion: b.fusion(),
			Alpha: b.opts.VectorWeight / (1 + b.opts.VectorWeight), Docs: docs,
		})
		c.Fused = b.hits(hits)
		return c, err
	case q.Mode == library.Lexical || q.Mode == library.Hybrid:
		hits, err := b.coll.Rank(ctx, HybridQuery{Text: q.Text, Limit: q.N, Docs: docs})
		c.Lexical = b.hits(hits)
		return c, err
	case q.Mode == library.Vector && q.Vector != nil:
		hits, err := b.coll.Rank(ctx, HybridQuery{Vector: q.Vector, Limit: q.N, Docs: docs})
		c.Vector = b.hits(hits)
		return c, err
	}
	return c, fmt.Errorf("weaviate search: mode %q needs a query vector", q.Mode)
}

// SetFusion sets how hybrid searches fuse, as library.Options does
// (library.FusionRRF or library.FusionScores, vector weight w > 0). Call it
// before searching; it is not synchronised with searches.
func (b *Backend) SetFusion(fusion string, vectorWeight float64) {
	b.opts.Fusion = fusion
	if vectorWeight > 0 {
		b.opts.VectorWeight = vectorWeight
	}
}

func (b *Backend) fusion() string {
	if b.opts.Fusion == library.FusionScores {
		return FusionRelative
	}
	return FusionRanked
}

// hits keeps which document each ranked passage belongs to, for the
// library's follow-up Chunks call, and returns the ranking.
func (b *Backend) hits(hs []Hit) []library.Hit {
	out := make([]library.Hit, len(hs))
	cs := make([]*store.Chunk, len(hs))
	for i, h := range hs {
		out[i], cs[i] = library.Hit{Seq: h.Chunk.Seq, Score: h.Score}, h.Chunk
	}
	b.recent.putRanked(cs)
	return out
}

// prefetchDocs reads, in one query, the records of cs's documents that are
// not fresh, for the library's Document calls that follow Chunks.
func (b *Backend) prefetchDocs(ctx context.Context, cs []*store.Chunk) {
	if ids := b.recent.missingDocs(cs); len(ids) > 0 {
		docs, err := b.coll.DocumentInfos(ctx, ids)
		if err != nil {
			b.opts.Logger.Debug("weaviate: prefetch documents", "err", err)
		}
		b.recent.putDocs(docs)
	}
}
