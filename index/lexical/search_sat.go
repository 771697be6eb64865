package lexical

// A division per posting was two thirds of the cost of scoring a posting
// list (pprof, BenchmarkBM25RealLibrary on the 100k scale library). Nearly
// every posting has a small tf (88% are 1 there) and passages are a few
// hundred tokens, so the saturations of those (tf, length) pairs are
// computed once per change of the index statistics and looked up. Real
// text has longer passages and more repeated words: with tf up to 4 and
// lengths below 512, 17% of the postings of the long lists of the 100k
// real-text corpus were outside the table, each a division; tf up to 16
// and lengths below 1024 hold nearly all (a 128 KiB table, of which the
// short passages' tf 1 and 2, the first 16 KiB, are most of the reads).
const (
	satTFs  = 16   // tf 1 … satTFs are in the table
	satLens = 1024 // lengths 0 … satLens-1 are in the table
)

// boundLens is the number of passage lengths, from 0, whose bounds a stop
// keeps (scratch.rdLen; candidates resets them at every stop).
const boundLens = 512

// satTable holds bm25.sat for tf 1…satTFs and lengths below satLens at
// the statistics base and per. It is immutable once built.
type satTable struct {
	base, per float64
	v         [satTFs * satLens]float64 // v[(tf-1)*satLens+length]
}

// satTable returns the table for bm, building it when the cached one was
// made for other statistics (after a change of the index). Safe for
// concurrent use: concurrent builders each store an equal table.
func (ix *Index) satTable(bm bm25) *satTable {
	slot := &ix.sat
	if bm.short {
		slot = &ix.satShort // a short query's (query_short.go)
	}
	if t := slot.Load(); t != nil && t.base == bm.base && t.per == bm.per {
		return t
	}
	t := &satTable{base: bm.base, per: bm.per}
	for tf := uint32(1); tf <= satTFs; tf++ {
		for length := range uint32(satLens) {
			t.v[(tf-1)*satLens+length] = bm.sat(tf, length)
		}
	}
	slot.Store(t)
	return t
}

// get is bm.sat(tf, length), from the table when it holds it. t must have
// been built for bm.
func (t *satTable) get(bm bm25, tf, length uint32) float64 {
	if tf-1 < satTFs && length < satLens {
		return t.v[(tf-1)*satLens+length]
	}
	return bm.sat(tf, length)
}
