package library

import (
	"cmp"
	"container/list"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/store"
)

// Reranker scores passages against a query: a second stage after fusion
// (rerank.Client speaks the HTTP services). Rerank returns one score per
// doc, in docs' order, higher meaning more relevant, or an error. Name
// identifies the model (the score cache's key). Implementations must be
// safe for concurrent use and should return when ctx is done.
type Reranker interface {
	Rerank(ctx context.Context, query string, docs []string) ([]float64, error)
	Name() string
}

// RerankOptions configure the rerank stage; it is off when Reranker is nil.
type RerankOptions struct {
	Reranker Reranker
	// TopN is how many fused candidates are reranked (default 50); the rest
	// keep their first-stage order after them.
	TopN int
	// Timeout bounds the rerank of one search (default 2 s); past it the
	// search returns the first-stage order.
	Timeout time.Duration
	// MaxTokens cuts each passage sent (title, heading path and text) to
	// this many estimated tokens (default 512).
	MaxTokens int
	// Concurrency is how many rerank calls run at once (default 4); a
	// search that finds none free within its Timeout is not reranked.
	Concurrency int
	// CacheSize is how many (model, query, passage) scores are kept
	// (default 4096), the least recently used dropped first.
	CacheSize int
}

func (o RerankOptions) withDefaults() RerankOptions {
	o.TopN = cmp.Or(max(o.TopN, 0), 50)
	o.Timeout = cmp.Or(max(o.Timeout, 0), 2*time.Second)
	o.MaxTokens = cmp.Or(max(o.MaxTokens, 0), 512)
	o.Concurrency = cmp.Or(max(o.Concurrency, 0), 4)
	o.CacheSize = cmp.Or(max(o.CacheSize, 0), 4096)
	return o
}

// reranker is a library's rerank stage: its options, the slots that bound
// concurrent calls and the score cache. Safe for concurrent use.
type reranker struct {
	opts  RerankOptions
	slots chan struct{}
	cache *scoreCache
}

func newReranker(o RerankOptions) *reranker {
	if o.Reranker == nil {
		return nil
	}
	o = o.withDefaults()
	return &reranker{opts: o, slots: make(chan struct{}, o.Concurrency), cache: newScoreCache(o.CacheSize)}
}

// rerankedHit is what the rerank stage knows of a passage it scored: its
// 1-based first-stage rank and the reranker's score.
type rerankedHit struct {
	firstRank int
	score     float64
}

// rerankHits reorders the first TopN of hits by the reranker's scores,
// keeping the rest in first-stage order, and returns what it scored by
// passage. It never fails: on an error, a timeout or a malformed answer it
// logs one warning and returns hits as they were and no scores. A corrupt
// store's error is returned, as a search would.
func (l *Library) rerankHits(ctx context.Context, query string, hits []Hit) ([]Hit, map[uint64]rerankedHit, error) {
	defer stagesOf(ctx).timed(StageRerank)()
	r := l.rr
	top := hits[:min(len(hits), r.opts.TopN)]
	if len(top) < 2 {
		return hits, nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	scores, err := l.rerankScores(ctx, query, top)
	if errors.Is(err, store.ErrCorrupt) {
		return nil, nil, err
	}
	if err != nil {
		l.opts.Logger.Warn("rerank skipped; first-stage order kept", "reranker", r.opts.Reranker.Name(), "err", err)
		return hits, nil, nil
	}
	order := make([]int, len(top))
	scored := make(map[uint64]rerankedHit, len(top))
	for i := range order {
		order[i] = i
		scored[top[i].Seq] = rerankedHit{firstRank: i + 1, score: scores[i]}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	out := make([]Hit, 0, len(hits))
	for _, i := range order {
		out = append(out, top[i])
	}
	return append(out, hits[len(top):]...), scored, nil
}

// markReranked fills the rerank fields of the results scored holds.
func markReranked(results []SearchResult, scored map[uint64]rerankedHit) {
	for i := range results {
		if s, ok := scored[results[i].seq]; ok {
			results[i].Reranked, results[i].FirstRank, results[i].RerankScore = true, s.firstRank, s.score
		}
	}
}

// rerankScores returns the reranker's score of each of hits for query,
// from the cache where it has them, asking the reranker for the others.
func (l *Library) rerankScores(ctx context.Context, query string, hits []Hit) ([]float64, error) {
	r := l.rr
	name := r.opts.Reranker.Name()
	scores := make([]float64, len(hits))
	var missing []int
	for i, h := range hits {
		s, ok := r.cache.get(scoreKey{name, query, h.Seq})
		if !ok {
			missing = append(missing, i)
		}
		scores[i] = s
	}
	if len(missing) == 0 {
		return scores, nil
	}
	texts, err := l.rerankTexts(ctx, hits, missing)
	if err != nil {
		return nil, err
	}
	got, err := r.call(ctx, query, texts)
	if err != nil {
		return nil, err
	}
	for j, i := range missing {
		scores[i] = got[j]
		r.cache.put(scoreKey{name, query, hits[i].Seq}, got[j])
	}
	return scores, nil
}

// call asks the reranker within ctx, waiting for a free slot; a call that
// overstays ctx is left to finish in the background, holding its slot.
func (r *reranker) call(ctx context.Context, query string, texts []string) ([]float64, error) {
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for a free rerank call: %w", ctx.Err())
	}
	type answer struct {
		scores []float64
		err    error
	}
	done := make(chan answer, 1)
	go func() {
		defer func() { <-r.slots }()
		s, err := r.opts.Reranker.Rerank(ctx, query, texts)
		done <- answer{s, err}
	}()
	select {
	case a := <-done:
		if a.err == nil && len(a.scores) != len(texts) {
			a.err = fmt.Errorf("%d scores for %d passages", len(a.scores), len(texts))
		}
		return a.scores, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// rerankTexts returns what the reranker reads of hits[i] for each i in
// which: the document's title, the heading path and the passage's text,
// cut to MaxTokens. A passage that cannot be read is sent as "". Titles
// are read after the passages, outside the backend's read of them (a
// second read inside a lent one can deadlock against a writer).
func (l *Library) rerankTexts(ctx context.Context, hits []Hit, which []int) ([]string, error) {
	seqs := make([]uint64, len(which))
	for j, i := range which {
		seqs[j] = hits[i].Seq
	}
	bodies, docIDs := make([]string, len(which)), make([]string, len(which))
	err := l.eachChunk(ctx, seqs, len(seqs), func(j int, c *store.Chunk) bool {
		if c != nil {
			// Cut and clone: a lent passage's text must not be kept.
			body := analysis.TruncateTokens(c.Text, l.rr.opts.MaxTokens, nil)
			if len(c.Headings) > 0 {
				body = strings.Join(c.Headings, store.HeadingSeparator) + "\n" + body
			}
			bodies[j], docIDs[j] = strings.Clone(body), strings.Clone(c.DocID)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	titles := map[string]string{}
	for j, id := range docIDs {
		title, ok := titles[id]
		if !ok && id != "" {
			if d, err := l.be.Document(ctx, id, false); err == nil {
				title = d.Title
			}
			titles[id] = title
		}
		if title != "" {
			bodies[j] = title + "\n" + bodies[j]
		}
		bodies[j] = analysis.TruncateTokens(bodies[j], l.rr.opts.MaxTokens, nil)
	}
	return bodies, nil
}

// scoreKey names a cached score: the reranker, the query, the passage.
type scoreKey struct {
	model, query string
	seq          uint64
}

// scoreCache is a bounded least-recently-used map of rerank scores. Safe
// for concurrent use.
type scoreCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of scoreEntry, most recent first
	byKey map[scoreKey]*list.Element
}

type scoreEntry struct {
	key   scoreKey
	score float64
}

func newScoreCache(n int) *scoreCache {
	return &scoreCache{max: n, order: list.New(), byKey: map[scoreKey]*list.Element{}}
}

func (c *scoreCache) get(k scoreKey) (float64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[k]
	if !ok {
		return 0, false
	}
	c.order.MoveToFront(e)
	return e.Value.(scoreEntry).score, true
}

func (c *scoreCache) put(k scoreKey, s float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[k]; ok {
		e.Value = scoreEntry{k, s}
		c.order.MoveToFront(e)
		return
	}
	c.byKey[k] = c.order.PushFront(scoreEntry{k, s})
	for c.order.Len() > c.max {
		last := c.order.Back()
		delete(c.byKey, last.Value.(scoreEntry).key)
		c.order.Remove(last)
	}
}

// WithRerank returns a Library answering from l's backend with o as its
// rerank stage (off when o.Reranker is nil) and a score cache of its own;
// l is unchanged. Call it once per served library, not per search, so
// that the cache and the concurrency bound are shared.
func (l *Library) WithRerank(o RerankOptions) *Library {
	c := *l
	c.opts.Rerank, c.rr = o, newReranker(o)
	return &c
}

// RerankOn reports the rerank stage's reranker name and its options with
// their defaults filled in, or "" when it is off.
func (l *Library) RerankOn() (name string, o RerankOptions) {
	if l.rr == nil {
		return "", RerankOptions{}
	}
	return l.rr.opts.Reranker.Name(), l.rr.opts
}
