package lexical

import (
	"cmp"
	"encoding/binary"
	"hash/crc32"
	"iter"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mcpvec/mcpvec/analysis"
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
// Cranfield and kept over four collections (see doc.go).
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

type termFreq struct {
	term uint32
	tf   uint32
}

// docEntry is one passage slot. Its terms are kept packed (see packTerms),
// exactly as its stored record holds them, for Delete, compaction and Save.
type docEntry struct {
	id     uint64
	length uint32
	sum    uint32 // CRC-32C of the passage text, to detect changed text on Load
	nterms uint32
	alive  bool
	terms  []byte // nil once deleted
}

// Index is an in-memory BM25 index over passages keyed by uint64 ids. It is
// safe for concurrent use: searches share a read lock, changes take the write
// lock. The zero value is not usable; call New or Load.
type Index struct {
	mu         sync.RWMutex
	cfg        Config
	termIDs    map[string]uint32
	termStr    []string
	df         []uint32   // live documents per term
	post       []postings // per term; may point at deleted slots
	docs       []docEntry
	lens       []uint32          // per slot: docs[s].length, or deadLen once deleted; what the scorers read
	slot       map[uint64]uint32 // passage id → slot; read through slots()
	slotLate   atomic.Bool       // slot is still to be built from docs (slots.go)
	slotBuild  sync.Mutex        // held while slot is built
	alive      int
	totalLen   uint64
	livePost   int
	deadPost   int
	dirty      map[uint64]struct{}      // added since the last Save/Load
	removed    map[uint64]struct{}      // deleted since the last Save/Load
	metaOK     bool                     // the KV holds our analysis.TokenizerVersion
	savedTerms int                      // dictionary terms already in the KV
	chain      []uint32                 // first ids of the dictionary chunks Load used
	staleKeys  [][]byte                 // dictionary chunks Save must delete
	scratch    sync.Pool                // *scratch
	searching  atomic.Int32             // searches running
	sat        atomic.Pointer[satTable] // the last statistics' saturations (search_sat.go)
	satShort   atomic.Pointer[satTable] // the same at a short query's k1
	deferPost  bool                     // Load: insertLocked leaves postings to invert
	hasSeg     bool                     // the KV holds a segment (persist_segment.go)
	segSaves   uint64                   // Saves that wrote a segment (SegmentSaves)
	segDocs    int                      // passages in that segment when written or read
	deltaKeys  int                      // records and tombstones in the KV beside it
	rewrite    bool                     // the next Save writes a new segment
	loading    bool                     // Load: no compaction, segment slots stay put, postings added at the end
	nbase      int                      // Load: slots read from the segment
	seen       []bool                   // Load: segment slots whose passage exists
	inPlace    [][]byte                 // the KV's values read in place (persist_inplace.go)
	inPlaceFwd int                      // how many of them are packed-terms chunks, the rest posting chunks
	gen        uint64                   // changes made (lock), for Detach
	pre        *prewritten              // a segment written ahead of Save (persist_steps.go)
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
	toks, length := tokenize(text)
	terms, _ := ix.countTerms(toks)
	sum := checksum(text)
	ix.lock()
	defer ix.mu.Unlock()
	ix.deleteLocked(id)
	tfs := ix.internLocked(terms)
	ix.insertLocked(id, sum, length, uint32(len(tfs)), packTerms(tfs))
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
	t = strings.Clone(t) // t may share a whole passage's memory
	ix.termIDs[t] = id
	ix.termStr = append(ix.termStr, t)
	ix.df = append(ix.df, 0)
	ix.post = append(ix.post, postings{})
	return id
}

// packTerms lays out term frequencies as (term id delta, tf) uvarint pairs
// in ascending term order, the body of a stored record. It sorts tfs.
func packTerms(tfs []termFreq) []byte {
	slices.SortFunc(tfs, func(a, b termFreq) int { return cmp.Compare(a.term, b.term) })
	b := make([]byte, 0, len(tfs)*3)
	prev := uint32(0)
	for _, t := range tfs {
		b = binary.AppendUvarint(b, uint64(t.term-prev))
		b = binary.AppendUvarint(b, uint64(t.tf))
		prev = t.term
	}
	return slices.Clip(b)
}

// unpackTerms yields the (term, tf) pairs packTerms wrote. The bytes were
// written by packTerms or validated by decodeDoc, so they are not checked.
func unpackTerms(b []byte) iter.Seq2[uint32, uint32] {
	return func(yield func(uint32, uint32) bool) {
		term := uint32(0)
		for len(b) > 0 {
			d, n := binary.Uvarint(b)
			tf, n2 := binary.Uvarint(b[n:])
			b = b[n+n2:]
			term += uint32(d)
			if !yield(term, uint32(tf)) {
				return
			}
		}
	}
}

// insertLocked appends a live document; id must not be present.
func (ix *Index) insertLocked(id uint64, sum, length, nterms uint32, terms []byte) {
	s := uint32(len(ix.docs))
	ix.docs = append(ix.docs, docEntry{id: id, length: length, alive: true, sum: sum, nterms: nterms, terms: terms})
	ix.lens = append(ix.lens, length)
	ix.slots()[id] = s
	for t, tf := range unpackTerms(terms) {
		ix.df[t]++
		if !ix.deferPost && !ix.loading {
			ix.post[t].add(s, tf, length)
		}
	}
	ix.alive++
	ix.totalLen += uint64(length)
	ix.livePost += int(nterms)
}

// Delete removes the passage id and reports whether it was present. It is
// safe for concurrent use.
func (ix *Index) Delete(id uint64) bool {
	ix.lock()
	defer ix.mu.Unlock()
	if !ix.deleteLocked(id) {
		return false
	}
	delete(ix.dirty, id)
	ix.removed[id] = struct{}{}
	return true
}

func (ix *Index) deleteLocked(id uint64) bool {
	s, ok := ix.slots()[id]
	if !ok {
		return false
	}
	d := &ix.docs[s]
	for t := range unpackTerms(d.terms) {
		ix.df[t]--
		ix.post[t].dropFlat() // it holds the slot
	}
	ix.alive--
	ix.totalLen -= uint64(d.length)
	ix.livePost -= int(d.nterms)
	ix.deadPost += int(d.nterms)
	d.alive, d.terms = false, nil
	ix.lens[s] = deadLen
	delete(ix.slots(), id)
	if !ix.loading && ix.deadPost > 4096 && ix.deadPost > ix.livePost {
		ix.compactLocked()
	}
	return true
}

// compactLocked rebuilds postings without deleted documents. Term ids are
// kept (they are persisted in the dictionary), so terms no live passage uses
// stay in the dictionary with df 0.
func (ix *Index) compactLocked() {
	old := ix.docs
	ix.pre = nil // its slots are renumbered
	ix.docs = make([]docEntry, 0, ix.alive)
	ix.lens = make([]uint32, 0, ix.alive)
	ix.setSlots(make(map[uint64]uint32, ix.alive))
	clear(ix.df)
	ix.alive, ix.totalLen, ix.livePost, ix.deadPost = 0, 0, 0, 0
	deferred := ix.deferPost
	ix.deferPost = true
	for _, d := range old {
		if d.alive {
			ix.insertLocked(d.id, d.sum, d.length, d.nterms, d.terms)
		}
	}
	ix.deferPost = deferred
	if !deferred {
		ix.invert()
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
	toks := analysis.Tokenize(word)
	if len(toks) == 0 {
		return 0
	}
	df, n := ix.DocFreq(toks[0])
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}
