package weaviate

import (
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// recent keeps what the last searches brought back — which document each
// ranked passage is in, the passages and documents' records read for them —
// for ttl, so the library's follow-up Chunks and Document calls for a
// search's results need one round trip, not one each. It is safe for
// concurrent use; a local write empties it.
type recent struct {
	ttl    time.Duration
	mu     sync.Mutex
	ranked map[uint64]stamped[*store.Chunk] // Seq, DocID and Index only
	chunks map[uint64]stamped[*store.Chunk]
	docs   map[string]stamped[*store.Document]
}

type stamped[T any] struct {
	v  T
	at time.Time
}

// maxRecent bounds each map; past it the map starts over.
const maxRecent = 20000

func newRecent(ttl time.Duration) *recent {
	r := &recent{ttl: ttl}
	r.clear()
	return r
}

func (r *recent) clear() {
	r.mu.Lock()
	r.ranked = map[uint64]stamped[*store.Chunk]{}
	r.chunks = map[uint64]stamped[*store.Chunk]{}
	r.docs = map[string]stamped[*store.Document]{}
	r.mu.Unlock()
}

func (r *recent) putChunks(cs []*store.Chunk) {
	r.mu.Lock()
	r.chunks = putAll(r.chunks, cs, func(c *store.Chunk) uint64 { return c.Seq })
	r.mu.Unlock()
}

// putRanked notes the document of each ranked passage (cs hold only Seq,
// DocID and Index).
func (r *recent) putRanked(cs []*store.Chunk) {
	r.mu.Lock()
	r.ranked = putAll(r.ranked, cs, func(c *store.Chunk) uint64 { return c.Seq })
	r.mu.Unlock()
}

func (r *recent) putDocs(ds []*store.Document) {
	r.mu.Lock()
	r.docs = putAll(r.docs, ds, func(d *store.Document) string { return d.ID })
	r.mu.Unlock()
}

func (r *recent) chunk(seq uint64) *store.Chunk {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fresh(r.chunks, seq, r.ttl)
}

func (r *recent) doc(id string) *store.Document {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fresh(r.docs, id, r.ttl)
}

// putAll stamps vs into m, starting m over when it would pass maxRecent.
func putAll[K comparable, V any](m map[K]stamped[V], vs []V, key func(V) K) map[K]stamped[V] {
	if len(m)+len(vs) > maxRecent {
		m = map[K]stamped[V]{}
	}
	now := time.Now()
	for _, v := range vs {
		m[key(v)] = stamped[V]{v, now}
	}
	return m
}

// fresh returns m[k] if it is younger than ttl, else the zero value.
func fresh[K comparable, V any](m map[K]stamped[V], k K, ttl time.Duration) V {
	var zero V
	if e, ok := m[k]; ok && time.Since(e.at) < ttl {
		return e.v
	}
	return zero
}

// missingDocsOf returns the ids of the documents a recent search ranked
// seqs under whose records are not fresh.
func (r *recent) missingDocsOf(seqs []uint64) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for _, s := range seqs {
		c := fresh(r.ranked, s, r.ttl)
		if c != nil && !seen[c.DocID] && fresh(r.docs, c.DocID, r.ttl) == nil {
			seen[c.DocID] = true
			out = append(out, c.DocID)
		}
	}
	return out
}

// missingDocs returns the ids among cs's documents that are not fresh.
func (r *recent) missingDocs(cs []*store.Chunk) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cs {
		if !seen[c.DocID] && r.doc(c.DocID) == nil {
			seen[c.DocID] = true
			out = append(out, c.DocID)
		}
	}
	return out
}
