package vector

import (
	"hash/crc32"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Result is one search hit. Score is higher-is-better: cosine similarity for
// Cosine, the inner product for Dot.
type Result struct {
	ID    uint64
	Score float32
}

// Slot states, accessed atomically.
const (
	stateFree uint32 = iota // unused, or reserved by an Add that has not written its vector yet
	stateLive               // vector written; visible to searches
	stateTomb               // deleted or replaced; still traversable until repair frees it
)

const stripes = 1 << 12 // link-list write locks, indexed by slot

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Index is an HNSW graph over float32 vectors plus an exact scan.
//
// Index is safe for concurrent use. Search, SearchExact, Add, Delete, Len and
// Has may all run in parallel: searches and inserts share a read lock and
// coordinate through per-node link locks and atomic link words; only slab
// growth, the repair of deleted nodes and Save take the write lock (briefly
// blocking everything else).
type Index struct {
	dim int
	cfg Config
	m   int // links per node on layers >= 1
	m0  int // links per node on layer 0
	ml  float64

	// mu: read-held by Search/Add/Delete; write-held to grow the slot arrays,
	// repair tombstones and Save. The slices below are replaced only under the
	// write lock; a slot's entries are written by the goroutine owning the slot.
	mu     sync.RWMutex
	vecs   []float32  // slab: slot s occupies vecs[s*dim:(s+1)*dim]; nil with a Source
	codes  []int8     // the same vectors quantised, for graph traversal
	scales []float32  // slot s's quantisation scale
	links0 []uint32   // slot s: [count, m0 neighbour slots], words accessed atomically; nil with Scan
	upper  [][]uint32 // slot s, layers 1..level: (m+1) words each; nil for level 0, and with Scan
	levels []uint8    // nil with Scan
	ids    []uint64
	crcs   []uint32 // crc32c of the vector as given, to detect changed vectors on Load
	state  []uint32 // atomic stateFree/stateLive/stateTomb
	dirty  []bool   // written under the slot's stripe lock; read under mu write lock
	fresh  []bool   // the slot's codes are not yet saved; written by the slot's owner

	stripe [stripes]sync.Mutex

	allocMu sync.Mutex // guards the fields below
	byID    map[uint64]uint32
	n       int // slot high-water mark
	free    []uint32
	live    int
	tombs   int
	removed map[uint64]struct{} // external ids whose stored node must be deleted on Save
	rewrite bool                // Save must replace every stored node
	header  []byte              // the header last saved or loaded; guarded by mu
	// dropNodes: Save must delete every stored node record (a Scan index
	// loaded from a bucket a graph was saved in); guarded by mu.
	dropNodes bool

	epMu     sync.Mutex
	ep       int64 // entry slot, -1 when empty
	maxLevel int

	rngMu sync.Mutex
	rng   *rand.Rand

	visited  sync.Pool
	scanning atomic.Int32 // scans running (SearchScan splits only a lone one)
	loadBuf  []float32    // Load's scratch for one prepared vector
}

// New returns an empty index for dim-dimensional vectors. Zero fields of cfg
// take their defaults. An index with dim < 1 rejects every vector with
// ErrInvalidDimension.
func New(dim int, cfg Config) *Index {
	cfg = cfg.withDefaults()
	x := &Index{
		dim:      dim,
		cfg:      cfg,
		m:        cfg.M,
		m0:       2 * cfg.M,
		ml:       1 / math.Log(float64(cfg.M)),
		byID:     make(map[uint64]uint32),
		removed:  make(map[uint64]struct{}),
		ep:       -1,
		maxLevel: -1,
		rng:      rand.New(rand.NewPCG(uint64(cfg.Seed), 0x9e3779b97f4a7c15)),
		rewrite:  true, // a new index owns the bucket: its first Save replaces what is there
	}
	return x
}

// Dim returns the vector dimension. It is safe for concurrent use.
func (x *Index) Dim() int { return x.dim }

// Config returns the effective configuration (defaults filled in).
func (x *Index) Config() Config { return x.cfg }

// Len returns the number of live vectors. It is safe for concurrent use.
func (x *Index) Len() int {
	x.allocMu.Lock()
	defer x.allocMu.Unlock()
	return x.live
}

// Has reports whether id is in the index. It is safe for concurrent use.
func (x *Index) Has(id uint64) bool {
	x.allocMu.Lock()
	defer x.allocMu.Unlock()
	_, ok := x.byID[id]
	return ok
}

// vec returns slot s's stored vector.
func (x *Index) vec(s uint32) []float32 {
	o := int(s) * x.dim
	return x.vecs[o : o+x.dim : o+x.dim]
}

// code returns slot s's quantised vector.
func (x *Index) code(s uint32) qvec {
	o := int(s) * x.dim
	return qvec{x.codes[o : o+x.dim : o+x.dim], x.scales[s]}
}

func (x *Index) isLive(s uint32) bool { return atomic.LoadUint32(&x.state[s]) == stateLive }

// Add inserts vec under id, replacing any vector already stored under id.
// The vector is copied (and normalised under Cosine). With Config.Scan it
// is only published for the scan, never linked into a graph. It returns
// ErrDimensionMismatch, ErrInvalidVector or ErrInvalidDimension. It is safe
// for concurrent use.
func (x *Index) Add(id uint64, vec []float32) error {
	v, err := prepare(vec, x.dim, x.cfg.Metric)
	if err != nil {
		return err
	}
	sum := vecCRC(vec)
	x.mu.RLock()
	for {
		slot, ok := x.alloc(id)
		if ok {
			x.fill(slot, v, sum)
			if !x.cfg.Scan {
				x.link(slot, x.randomLevel())
			}
			break
		}
		x.mu.RUnlock()
		x.mu.Lock()
		x.grow(len(x.ids) + 1)
		x.mu.Unlock()
		x.mu.RLock()
	}
	x.mu.RUnlock()
	return nil
}

// alloc reserves a slot for id (tombstoning the slot id had before). It
// returns false when the slot arrays are full and must grow first.
// Callers hold mu for reading.
func (x *Index) alloc(id uint64) (uint32, bool) {
	x.allocMu.Lock()
	defer x.allocMu.Unlock()
	var slot uint32
	switch {
	case len(x.free) > 0:
		slot = x.free[len(x.free)-1]
		x.free = x.free[:len(x.free)-1]
	case x.n < len(x.ids):
		slot = uint32(x.n)
		x.n++
	default:
		return 0, false
	}
	if old, ok := x.byID[id]; ok {
		atomic.StoreUint32(&x.state[old], stateTomb)
		x.tombs++
		x.live--
	}
	delete(x.removed, id)
	x.byID[id] = slot
	x.ids[slot] = id
	x.live++
	return slot, true
}

// fill writes a reserved slot's vector and publishes it. The slot is not yet
// linked, so no other goroutine can reach it through the graph.
func (x *Index) fill(slot uint32, v []float32, sum uint32) {
	if x.vecs != nil {
		copy(x.vec(slot), v)
	}
	x.scales[slot] = quantize(x.code(slot).codes, v)
	x.crcs[slot] = sum
	x.fresh[slot] = true
	// A Delete or replacement may already have tombstoned the reserved slot.
	atomic.CompareAndSwapUint32(&x.state[slot], stateFree, stateLive)
}

// grow makes room for at least want slots. Callers hold mu for writing.
func (x *Index) grow(want int) {
	c := len(x.ids)
	if want <= c {
		return
	}
	nc := c + c/4
	if nc < want {
		nc = want
	}
	if nc < 64 {
		nc = 64
	}
	if x.cfg.Source == nil {
		x.vecs = growTo(x.vecs, nc*x.dim)
	}
	x.codes = growTo(x.codes, nc*x.dim)
	x.scales = growTo(x.scales, nc)
	if !x.cfg.Scan { // a Scan index keeps no graph
		x.links0 = growTo(x.links0, nc*(x.m0+1))
		x.upper = growTo(x.upper, nc)
		x.levels = growTo(x.levels, nc)
	}
	x.ids = growTo(x.ids, nc)
	x.crcs = growTo(x.crcs, nc)
	x.state = growTo(x.state, nc)
	x.dirty = growTo(x.dirty, nc)
	x.fresh = growTo(x.fresh, nc)
}

func growTo[T any](s []T, n int) []T {
	out := make([]T, n)
	copy(out, s)
	return out
}

// randomLevel draws a node level from the paper's exponential distribution.
func (x *Index) randomLevel() int {
	x.rngMu.Lock()
	u := x.rng.Float64()
	x.rngMu.Unlock()
	l := int(-math.Log(1-u) * x.ml)
	if l > maxLevel {
		l = maxLevel
	}
	return l
}

// Delete removes id and reports whether it was present. The node stays in the
// graph as a traversable tombstone until the next repair (run when tombstones
// exceed a tenth of the live nodes, and by Save), which with Config.Scan only
// frees the slot. It is safe for concurrent use.
func (x *Index) Delete(id uint64) bool {
	x.mu.RLock()
	x.allocMu.Lock()
	slot, ok := x.byID[id]
	if ok {
		delete(x.byID, id)
		atomic.StoreUint32(&x.state[slot], stateTomb)
		x.tombs++
		x.live--
		x.removed[id] = struct{}{}
	}
	needRepair := x.tombs > 64 && x.tombs > x.live/10
	x.allocMu.Unlock()
	x.mu.RUnlock()
	if needRepair {
		x.mu.Lock()
		x.repair()
		x.mu.Unlock()
	}
	return ok
}

// Search returns up to k nearest live vectors to q, best first. It uses the
// exact scan while Len() < Config.ExactBelow, else the graph search with ef
// the largest of Config.EfSearch, k and a floor growing with Len() (see
// Config.EfSearch). It returns ErrDimensionMismatch
// or ErrInvalidVector for a bad query, and errors from Config.Source,
// wrapped. It is safe for concurrent use.
func (x *Index) Search(q []float32, k int) ([]Result, error) {
	return x.SearchSeeded(q, k, nil)
}

// SearchEf is Search through the graph with an explicit ef, never switching
// to the exact scan; for tuning and benchmarks. A Config.Scan index has no
// graph: it answers by SearchScan and ignores ef. It is safe for
// concurrent use.
func (x *Index) SearchEf(q []float32, k, ef int) ([]Result, error) {
	return x.SearchEfSeeded(q, k, ef, nil)
}

// SearchExact is the brute-force reference: it scores every live vector in
// float32. With a Config.Source it scans the int8 codes, re-scores the
// best 3·k exactly and then every other vector whose int8 score could,
// within its rounding bound, beat the k-th: the same results, reading few
// vectors. It returns ErrDimensionMismatch or ErrInvalidVector for a bad
// query, and errors from Config.Source, wrapped. It is safe for concurrent
// use.
func (x *Index) SearchExact(q []float32, k int) ([]Result, error) {
	qv, err := prepare(q, x.dim, x.cfg.Metric)
	if err != nil || k <= 0 {
		return nil, err
	}
	return x.searchExact(qv, k)
}

// searchExact scans a prepared query exactly.
func (x *Index) searchExact(qv []float32, k int) ([]Result, error) {
	if x.cfg.Source != nil {
		return x.exactFromSource(qv, k)
	}
	return x.finish(qv, x.exact(qv, k), k)
}

// finish re-scores the best rescoreFactor·k candidates through the Source
// when the index holds no float32 copies, then keeps the k best.
func (x *Index) finish(q []float32, rs []Result, k int) ([]Result, error) {
	if x.cfg.Source != nil && len(rs) > 0 {
		rs = rs[:min(len(rs), rescoreFactor*k)]
		if err := x.rescore(q, rs); err != nil {
			return nil, err
		}
	}
	if len(rs) > k {
		rs = rs[:k]
	}
	return rs, nil
}

// exact scans every live float32 vector (an index without a Source).
func (x *Index) exact(q []float32, k int) []Result {
	x.mu.RLock()
	defer x.mu.RUnlock()
	x.allocMu.Lock()
	n := x.n
	x.allocMu.Unlock()
	score := func(s uint32) float32 { return dot(q, x.vec(s)) }
	h := make(minHeap, 0, k+1)
	for s := uint32(0); int(s) < n; s++ {
		if !x.isLive(s) {
			continue
		}
		sc := score(s)
		if len(h) < k {
			h.push(cand{s, sc})
		} else if sc > h[0].score {
			h[0] = cand{s, sc}
			h.fix0()
		}
	}
	return x.results(h)
}

// results converts candidates to Results sorted by score desc, then ID asc.
func (x *Index) results(cs []cand) []Result {
	out := make([]Result, len(cs))
	for i, c := range cs {
		out[i] = Result{ID: x.ids[c.slot], Score: c.score}
	}
	sortResults(out)
	return out
}

// vecCRC is the crc32c of the vector's bytes as given by the caller.
func vecCRC(v []float32) uint32 {
	if len(v) == 0 {
		return 0
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*4)
	return crc32.Checksum(b, crcTable)
}

// rescoreFactor · k is how many of the best int8 candidates a search reads
// back from the Source: 30k synthetic 384-d vectors, k 10, recall@10 against
// float32 brute force was 0.978 re-scoring 10, 0.9985 re-scoring 20, 30, 40
// or all 64.
const rescoreFactor = 3
