package lexical

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// TestPostingsDecode: decode gives back every (slot, tf) add wrote, with
// deltas and term frequencies of one to five bytes, across blocks.
func TestPostingsDecode(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var p postings
	var wantDocs, wantTFs []uint32
	doc := uint32(0)
	for i := range 3*blockSize + 17 {
		widths := []uint32{1 << 7, 1 << 14, 1 << 21, 1 << 24}
		doc += 1 + rng.Uint32N(widths[i%len(widths)])
		tf := 1 + rng.Uint32N(widths[(i/2)%len(widths)])
		if i%9 == 0 {
			tf = 1<<32 - 1 // five bytes
		}
		p.add(doc, tf, 10)
		wantDocs, wantTFs = append(wantDocs, doc), append(wantTFs, tf)
	}
	var docs, tfs [blockSize]uint32
	got := 0
	for bi := range p.blocks {
		n := p.decode(bi, &docs, &tfs)
		for j := range n {
			if docs[j] != wantDocs[got] || tfs[j] != wantTFs[got] {
				t.Fatalf("posting %d: got (%d, %d), want (%d, %d)", got, docs[j], tfs[j], wantDocs[got], wantTFs[got])
			}
			got++
		}
	}
	if got != len(wantDocs) {
		t.Fatalf("decoded %d postings, want %d", got, len(wantDocs))
	}
}

// TestBlockMaxTF: for every slot of lists of skewed and even spreads, the
// block blockMaxTF reads is the first whose last slot is at or past it.
func TestBlockMaxTF(t *testing.T) {
	for _, spread := range []func(i int) uint32{
		func(i int) uint32 { return uint32(3 * i) },
		func(i int) uint32 { return uint32(i * i) },
		func(i int) uint32 {
			if i < 1000 {
				return uint32(i)
			}
			return uint32(1_000_000 + i)
		},
	} {
		var p postings
		for i := range 2000 {
			p.add(spread(i), uint32(1+i/blockSize), 10) // block b's tf is b+1
		}
		last := spread(1999)
		for s := uint32(0); s <= last+2; s += 1 + s/5000 {
			want := uint32(0)
			if s <= last {
				want = uint32(1 + sort.Search(len(p.blocks), func(b int) bool { return p.blocks[b].last >= s }))
			}
			if got := p.blockMaxTF(s); got != want {
				t.Fatalf("slot %d: block max tf %d, want %d", s, got, want)
			}
		}
	}
}
