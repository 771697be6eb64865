package library

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/index/vector"
	"github.com/mcpvec/mcpvec/store"
)

// VectorIndex returns the embedded backend's vector index (nil before the
// library has vectors, or when its deferred load failed), waiting for a
// deferred load, for the package's external tests.
func VectorIndex(l *Library) *vector.Index {
	x, _ := l.be.(*embedded).waitVectors(context.Background())
	return x
}

// VectorCandidates is the vector half of a search in mode (Vector or
// Hybrid) as Search runs it with the library's defaults: the query embedded
// by the library's embedder and the candidate list the backend's vector
// retriever returns for fusion, best first, before overlapping passages
// are dropped. It returns the query vector too.
func VectorCandidates(ctx context.Context, l *Library, query string, mode Mode) ([]float32, []Hit, error) {
	v, err := l.emb.EmbedQuery(ctx, strings.TrimSpace(query))
	if err != nil {
		return nil, nil, fmt.Errorf("embed query: %w", err)
	}
	c, err := l.be.Candidates(ctx, Query{Text: query, Vector: v, Mode: mode, N: max(l.opts.Candidates, 3*l.opts.K)})
	return v, c.Vector, err
}

// LexIndex returns the embedded backend's BM25 index.
func LexIndex(l *Library) *lexical.Index { return l.be.(*embedded).lex }

// SearchAllCandidates is Search as it was before it ranked fewer candidates
// first: every search ranks max(Candidates, 3k), the reference the shorter
// first ranking must agree with. It skips validation (queries must be
// valid) and debug output.
func SearchAllCandidates(ctx context.Context, l *Library, query string, so SearchOptions) (*SearchResponse, error) {
	k := min(cmp.Or(so.K, l.opts.K), l.opts.MaxK)
	query = strings.TrimSpace(query)
	tokens := analysis.Tokenize(query)
	hits, _, err := l.rank(ctx, Query{Text: query, Tokens: tokens, Mode: cmp.Or(so.Mode, l.opts.Mode), N: max(l.opts.Candidates, 3*k)})
	if err != nil {
		return nil, err
	}
	return l.results(termsOf(tokens), hits, k)
}

// SetDeferredRead makes fn run inside every deferred vector load, after its
// read transaction and before it replays the writes queued meanwhile; the
// returned func undoes it.
func SetDeferredRead(fn func()) (restore func()) {
	deferredRead = fn
	return func() { deferredRead = nil }
}

// VectorsDeferred reports whether Open deferred l's vector index and it is
// not loaded yet, and whether its load has begun.
func VectorsDeferred(l *Library) (pending, begun bool) {
	d := l.be.(*embedded).pending()
	return d != nil, d != nil && d.begun.Load()
}

// FailIndexSaves makes every index Save's transaction fail with err after
// the indexes wrote into it, as a full disk fails a commit; the returned
// func undoes it.
func FailIndexSaves(err error) (restore func()) {
	failIndexSave = func() error { return err }
	return func() { failIndexSave = nil }
}

// Ranked is the ranked candidates of a lexical search with the library's
// defaults, and Assemble the results Search makes of them: the two halves
// of Search, so a benchmark can time result assembly (passage reads,
// snippets, dedupe, titles) apart from ranking.
func Ranked(ctx context.Context, l *Library, query string) ([]Hit, error) {
	k := l.opts.K
	hits, _, err := l.rank(ctx, Query{Text: strings.TrimSpace(query), Mode: Lexical, N: l.fewCandidates(Lexical, k, max(l.opts.Candidates, 3*k))})
	return hits, err
}

// Assemble is the second half of Search (see Ranked).
func Assemble(l *Library, query string, hits []Hit) (*SearchResponse, error) {
	return l.results(queryTerms(strings.TrimSpace(query)), hits, l.opts.K)
}

// SnippetFunc returns the snippet cutter of results for query's terms: the
// snippet of a passage's text with the library's default length.
func SnippetFunc(query string) func(text string) string {
	ts := queryTerms(strings.TrimSpace(query))
	return func(text string) string {
		s, _ := snippet(text, ts, Options{}.withDefaults().SnippetChars)
		return s
	}
}

// HoldTurns takes every search turn of l's embedded backend; the returned
// func gives them back.
func HoldTurns(l *Library) (release func()) { return holdTurns(l.be.(*embedded).turn) }

// HoldAgainTurns is HoldTurns for the gate of second rankings.
func HoldAgainTurns(l *Library) (release func()) { return holdTurns(l.be.(*embedded).again) }

func holdTurns(t turns) (release func()) {
	for range cap(t) {
		t <- struct{}{}
	}
	return func() {
		for range cap(t) {
			<-t
		}
	}
}

// noLending hides the embedded backend's ViewChunks: its passages are
// copied, as a backend's that cannot lend them are.
type noLending struct{ Backend }

// poisoned lends the embedded backend's passages from a buffer of its own
// that it overwrites once fn returns, so that a string results keeps of a
// lent passage shows in its output.
type poisoned struct {
	Backend
	lender chunkLender
}

func (p poisoned) ViewChunks(seqs []uint64, fn func(i int, c *store.Chunk) bool) error {
	return p.lender.ViewChunks(seqs, func(i int, c *store.Chunk) bool {
		if c == nil {
			return fn(i, nil)
		}
		buf := []byte(c.DocID + c.Text + strings.Join(c.Headings, ""))
		cut := func(n int) string {
			s := unsafe.String(unsafe.SliceData(buf), n)
			buf = buf[n:]
			return s
		}
		all, lent := buf, *c
		lent.DocID, lent.Text, lent.Headings = cut(len(c.DocID)), cut(len(c.Text)), nil
		for _, h := range c.Headings {
			lent.Headings = append(lent.Headings, cut(len(h)))
		}
		more := fn(i, &lent)
		for j := range all {
			all[j] = '#'
		}
		return more
	})
}

// Results is what Search makes of hits for query: the passages chosen and
// their snippets. With lend true the passages are lent (from a buffer
// overwritten once results is done with each: see poisoned), else copied,
// as a backend that cannot lend them gives them.
func Results(l *Library, query string, hits []Hit, k int, lend bool) (*SearchResponse, error) {
	cp := *l
	if cp.be = (noLending{l.be}); lend {
		cp.be = poisoned{l.be, l.be.(chunkLender)}
	}
	return cp.results(queryTerms(strings.TrimSpace(query)), hits, k)
}

// queryRecorder is the embedded backend, recording the queries it ranks.
type queryRecorder struct {
	*embedded
	mu sync.Mutex
	qs []Query
}

func (r *queryRecorder) Candidates(ctx context.Context, q Query) (Candidates, error) {
	r.mu.Lock()
	r.qs = append(r.qs, q)
	r.mu.Unlock()
	return r.embedded.Candidates(ctx, q)
}

// RecordQueries makes l's embedded backend record the queries it ranks;
// the returned func lists them so far.
func RecordQueries(l *Library) func() []Query {
	r := &queryRecorder{embedded: l.be.(*embedded)}
	l.be = r
	return func() []Query {
		r.mu.Lock()
		defer r.mu.Unlock()
		return slices.Clone(r.qs)
	}
}

// BackendCandidates calls l's backend's Candidates.
func BackendCandidates(ctx context.Context, l *Library, q Query) (Candidates, error) {
	return l.be.Candidates(ctx, q)
}
