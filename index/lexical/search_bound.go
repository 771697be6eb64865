package lexical

import (
	"cmp"
	"math"
	"slices"
)

// A list's score bound is the largest of its blocks' (bm25.term of a
// block's largest tf at its shortest passage), which openCursors needed
// for every query term: a division per block, 7% of a search's CPU on
// real text at 100k passages, for lists whose blocks rarely change. A
// block whose tf is at most another's and whose shortest passage is at
// least as long bounds no higher (saturation rises with tf and falls with
// length), so the bound is the largest over the blocks no other dominates:
// a handful, kept with the list until a posting is added to it.

// peaks is what bounds a list's scores, independent of the index
// statistics. Immutable once built.
type peaks struct {
	maxTF, minLen uint32  // the list's largest tf and shortest passage (its order, openCursors)
	front         []tfLen // the blocks' (largest tf, shortest passage) that no other block's dominates
}

// tfLen is a block's largest term frequency and shortest passage.
type tfLen struct{ tf, length uint32 }

// peaksOf returns p's peaks, building them when p has none. The caller
// holds the index's lock, at least for reading; concurrent readers may
// each build and store equal peaks.
func (p *postings) peaksOf() *peaks {
	if pk := p.peaks.Load(); pk != nil {
		return pk
	}
	pk := buildPeaks(p.blocks)
	p.peaks.Store(pk)
	return pk
}

// buildPeaks finds the peaks of blocks: by tf, descending, each block
// whose shortest passage is shorter than those of every block with a
// larger or equal tf seen before it.
func buildPeaks(blocks []block) *peaks {
	pk := &peaks{minLen: math.MaxUint32}
	all := make([]tfLen, len(blocks))
	for i, b := range blocks {
		all[i] = tfLen{b.maxTF, b.minLen}
		pk.maxTF, pk.minLen = max(pk.maxTF, b.maxTF), min(pk.minLen, b.minLen)
	}
	slices.SortFunc(all, func(a, b tfLen) int {
		if c := cmp.Compare(b.tf, a.tf); c != 0 {
			return c
		}
		return cmp.Compare(a.length, b.length)
	})
	shortest := uint32(math.MaxUint32)
	for _, b := range all {
		if b.length < shortest {
			pk.front, shortest = append(pk.front, b), b.length
		}
	}
	pk.front = slices.Clip(pk.front)
	return pk
}
