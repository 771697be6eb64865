package lexical

import (
	"container/heap"
	"hash/crc32"
	"maps"
	"math"
	"slices"
	"sync"
	"unsafe"
)

// Result is one scored passage.
type Result struct {
	ID    uint64
	Score float32
}

// Config holds the BM25 parameters.
type Config struct {
	K1 float64 // term-frequency saturation; 0 < K1
	B  float64 // length normalisation; 0 ≤ B ≤ 1
}

// DefaultConfig returns the parameters chosen by measurement on SciFact and
// Cranfield (see doc.go).
func DefaultConfig() Config { return Config{K1: 2.0, B: 0.75} }

// sane replaces out-of-range parameters with the defaults.
func (c Config) sane() Config {
	d := DefaultConfig()
	if !(c.K1 > 0) || math.IsInf(c.K1, 0) {
		c.K1 = d.K1
	}
	if !(c.B >= 0 && c.B <= 1) {
		c.B = d.B
	}
	return c
}

type posting struct {
	doc uint32 // slot in Index.docs
	tf  uint32
}

type termFreq struct {
	term uint32
	tf   uint32
}

type docEntry struct {
	id     uint64
	length uint32
	alive  bool
	sum    uint32     // CRC-32C of the passage text, to detect changed text on Load
	terms  []termFreq // nil once deleted
}

// Index is an in-memory BM25 index over passages keyed by uint64 ids. It is
// safe for concurrent use: searches share a read lock, changes take the write
// lock. The zero value is not usable; call New or Load.
type Index struct {
	mu         sync.RWMutex
	cfg        Config
	termIDs    map[string]uint32
	termStr    []string
	df         []uint32    // live documents per term
	post       [][]posting // per term; may point at deleted slots
	docs       []docEntry
	slot       map[uint64]uint32
	alive      int
	totalLen   uint64
	livePost   int
	deadPost   int
	dirty      map[uint64]struct{} // added since the last Save/Load
	removed    map[uint64]struct{} // deleted since the last Save/Load
	metaOK     bool                // the KV holds our TokenizerVersion
	savedTerms int                 // dictionary terms already in the KV
	chain      []uint32            // first ids of the dictionary chunks Load used
	staleKeys  [][]byte            // dictionary chunks Save must delete
	scratch    sync.Pool           // *scratch
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum is the CRC-32C of text, read in place: Load checks every passage
// and a copy per passage would dominate its allocations.
func checksum(text string) uint32 {
	return crc32.Checksum(unsafe.Slice(unsafe.StringData(text), len(text)), castagnoli)
}

// New returns an empty index. Out-of-range parameters are replaced by the
// defaults.
func New(cfg Config) *Index {
	return &Index{
		cfg:     cfg.sane(),
		termIDs: make(map[string]uint32),
		slot:    make(map[uint64]uint32),
		dirty:   make(map[uint64]struct{}),
		removed: make(map[uint64]struct{}),
	}
}

// Add indexes text under id, replacing any passage already stored under id.
// It is safe for concurrent use; tokenisation happens outside the lock.
func (ix *Index) Add(id uint64, text string) {
	terms, length := ix.countTerms(Tokenize(text))
	sum := checksum(text)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.deleteLocked(id)
	ix.insertLocked(id, sum, length, ix.internLocked(terms))
	ix.dirty[id] = struct{}{}
	delete(ix.removed, id)
}

// countTerms folds tokens into per-term frequencies (terms as strings, so it
// needs no lock).
func (ix *Index) countTerms(tokens []string) (map[string]uint32, uint32) {
	m := make(map[string]uint32, len(tokens))
	for _, t := range tokens {
		m[t]++
	}
	return m, uint32(len(tokens))
}

// internLocked maps term strings to ids, adding new ones.
func (ix *Index) internLocked(m map[string]uint32) []termFreq {
	out := make([]termFreq, 0, len(m))
	for t, tf := range m {
		out = append(out, termFreq{term: ix.termIDLocked(t), tf: tf})
	}
	return out
}

func (ix *Index) termIDLocked(t string) uint32 {
	if id, ok := ix.termIDs[t]; ok {
		return id
	}
	id := uint32(len(ix.termStr))
	ix.termIDs[t] = id
	ix.termStr = append(ix.termStr, t)
	ix.df = append(ix.df, 0)
	ix.post = append(ix.post, nil)
	return id
}

// insertLocked appends a live document; id must not be present.
func (ix *Index) insertLocked(id uint64, sum, length uint32, terms []termFreq) {
	s := uint32(len(ix.docs))
	ix.docs = append(ix.docs, docEntry{id: id, length: length, alive: true, sum: sum, terms: terms})
	ix.slot[id] = s
	for _, t := range terms {
		ix.df[t.term]++
		ix.post[t.term] = append(ix.post[t.term], posting{doc: s, tf: t.tf})
	}
	ix.alive++
	ix.totalLen += uint64(length)
	ix.livePost += len(terms)
}

// Delete removes the passage id and reports whether it was present. It is
// safe for concurrent use.
func (ix *Index) Delete(id uint64) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.deleteLocked(id) {
		return false
	}
	delete(ix.dirty, id)
	ix.removed[id] = struct{}{}
	return true
}

func (ix *Index) deleteLocked(id uint64) bool {
	s, ok := ix.slot[id]
	if !ok {
		return false
	}
	d := &ix.docs[s]
	for _, t := range d.terms {
		ix.df[t.term]--
	}
	ix.alive--
	ix.totalLen -= uint64(d.length)
	ix.livePost -= len(d.terms)
	ix.deadPost += len(d.terms)
	d.alive, d.terms = false, nil
	delete(ix.slot, id)
	if ix.deadPost > 4096 && ix.deadPost > ix.livePost {
		ix.compactLocked()
	}
	return true
}

// compactLocked rebuilds postings without deleted documents. Term ids are
// kept (they are persisted in the dictionary), so terms no live passage uses
// stay in the dictionary with df 0.
func (ix *Index) compactLocked() {
	old := ix.docs
	ix.docs = make([]docEntry, 0, ix.alive)
	ix.slot = make(map[uint64]uint32, ix.alive)
	for t := range ix.post {
		ix.post[t] = make([]posting, 0, ix.df[t])
		ix.df[t] = 0
	}
	ix.alive, ix.totalLen, ix.livePost, ix.deadPost = 0, 0, 0, 0
	for _, d := range old {
		if d.alive {
			ix.insertLocked(d.id, d.sum, d.length, d.terms)
		}
	}
}

// Len returns the number of live passages. It is safe for concurrent use.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.alive
}

// DocFreq returns how many live passages contain term (a token as produced
// by Tokenize) and the number of live passages n. It is safe for concurrent
// use.
func (ix *Index) DocFreq(term string) (df, n int) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if id, ok := ix.termIDs[term]; ok {
		df = int(ix.df[id])
	}
	return df, ix.alive
}

// IDF returns the BM25 idf, ln(1 + (n−df+0.5)/(df+0.5)), of the first
// token Tokenize(word) yields, or 0 when it yields none (a stopword). Meant
// as a query-time word weight for other scorers (embed.HashConfig.QueryWeight).
// It is safe for concurrent use.
func (ix *Index) IDF(word string) float64 {
	toks := Tokenize(word)
	if len(toks) == 0 {
		return 0
	}
	df, n := ix.DocFreq(toks[0])
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// Search returns up to k passages ranked by BM25 for query, best first; ties
// go to the smaller id. No match, k ≤ 0 or an empty index give nil. It
// is safe for concurrent use.
func (ix *Index) Search(query string, k int) []Result {
	if k <= 0 {
		return nil
	}
	qtf, _ := ix.countTerms(Tokenize(query))
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.alive == 0 || len(qtf) == 0 {
		return nil
	}
	acc := ix.accumulator()
	defer ix.scratch.Put(acc)
	acc.touched = ix.accumulate(qtf, acc.scores, acc.touched[:0])
	out := topK(ix.docs, acc.scores, acc.touched, k)
	for _, s := range acc.touched {
		acc.scores[s] = 0
	}
	return out
}

// scratch is per-search working memory, pooled: a score per document slot
// (kept zeroed between uses) and the slots touched.
type scratch struct {
	scores  []float32
	touched []uint32
}

// accumulator returns zeroed working memory with one slot per document.
func (ix *Index) accumulator() *scratch {
	acc, _ := ix.scratch.Get().(*scratch)
	if acc == nil {
		acc = new(scratch)
	}
	if len(acc.scores) < len(ix.docs) {
		acc.scores = make([]float32, len(ix.docs)+len(ix.docs)/4)
	}
	return acc
}

// accumulate adds each query term's BM25 contribution (Lucene's idf, which is
// never negative) and returns the slots touched.
func (ix *Index) accumulate(qtf map[string]uint32, scores []float32, touched []uint32) []uint32 {
	n := float64(ix.alive)
	avgdl := float64(ix.totalLen) / n
	if avgdl == 0 {
		avgdl = 1
	}
	k1, b := ix.cfg.K1, ix.cfg.B
	// Sorted terms make float sums, hence scores, identical run to run.
	for _, t := range slices.Sorted(maps.Keys(qtf)) {
		q := qtf[t]
		id, ok := ix.termIDs[t]
		if !ok || ix.df[id] == 0 {
			continue
		}
		df := float64(ix.df[id])
		w := float64(q) * math.Log(1+(n-df+0.5)/(df+0.5))
		for _, p := range ix.post[id] {
			d := &ix.docs[p.doc]
			if !d.alive {
				continue
			}
			tf := float64(p.tf)
			s := w * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(d.length)/avgdl))
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += float32(s)
		}
	}
	return touched
}

// topK selects the k best slots with a min-heap.
func topK(docs []docEntry, scores []float32, touched []uint32, k int) []Result {
	if len(touched) == 0 {
		return nil
	}
	h := make(resultHeap, 0, min(k, len(touched)))
	for _, s := range touched {
		r := Result{ID: docs[s].id, Score: scores[s]}
		if len(h) < k {
			heap.Push(&h, r)
		} else if better(r, h[0]) {
			h[0] = r
			heap.Fix(&h, 0)
		}
	}
	out := make([]Result, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(Result)
	}
	return out
}

func better(a, b Result) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// resultHeap keeps the worst result on top.
type resultHeap []Result

func (h resultHeap) Len() int           { return len(h) }
func (h resultHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h resultHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *resultHeap) Push(x any)        { *h = append(*h, x.(Result)) }
func (h *resultHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	*h = old[:len(old)-1]
	return r
}
