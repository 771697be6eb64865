package lexical

import "slices"

// A posting costs 6-7 ns in the compressed loop (addList's own: uvarint
// decoding, the slot range checks, a random read of ix.lens and the
// deleted-slot check; BenchmarkPostingLoop at 100k and 1M slots). A long
// list is therefore scored from a flat copy, 2-3 ns a posting: per live
// posting its slot and where its saturation lies in the satTable, 6 bytes
// against the 2-3 of the compressed form. The copy is made the first time
// a search reads the list (8-11 ns a posting, once) and kept until a
// passage in it is deleted or the postings added after it (read compressed
// meanwhile) reach a quarter of it. Its table indexes do not depend on the
// index statistics (only the table's values do), so adding or deleting
// other passages leaves it valid.

// flatFrom is the posting count from which a list is scored from a flat
// copy (a variable for tests). Shorter lists cost little either way and
// would spread the copies over many small allocations.
var flatFrom = 1024

// flat is a posting list laid out for scoring. A kept copy (Index.flat)
// is immutable once built; a short list's copy made for one search
// (flatFor) is that search's own.
type flat struct {
	slots []uint32 // live postings' slots whose saturation is in the table, ascending
	sat   []uint16 // per posting: (tf-1)*satLens+length, its index in satTable.v
	// The other live postings (tf above satTFs or a passage of satLens
	// tokens or more; 0.2% on the 100k scale library), ascending.
	xslots, xtf []uint32
	// rank, for a list in rankDensity of the passages or more, tells
	// where a slot lies in slots without a search (search_rank.go).
	rank rank
	// The copy covers the list's slots below end, its first n postings;
	// postings added since (the tail) are read compressed.
	end uint32
	n   int
}

// flat returns p's flat copy, building it when p has none yet, or nil for
// a short list or one whose copy another search is making (that search's
// caller reads the compressed list meanwhile: on the 1M library, 16
// sessions starting at once all reached the same 400k-posting lists, and
// each made its own copy). The caller holds ix.mu, at least for reading,
// so no writer drops a copy while it is made.
func (ix *Index) flat(p *postings) *flat {
	if p.n < flatFrom {
		return nil
	}
	if f := p.flat.Load(); f != nil {
		return made(f)
	}
	if !p.flat.CompareAndSwap(nil, building) {
		return made(p.flat.Load())
	}
	done := false
	defer func() {
		if !done { // flatten panicked: let a later search try again
			p.flat.Store(nil)
		}
	}()
	f := ix.flatten(p)
	p.flat.Store(f)
	done = true
	return f
}

// building stands in p.flat for a copy being made.
var building = new(flat)

// made is f, or nil when f stands for a copy being made.
func made(f *flat) *flat {
	if f == building {
		return nil
	}
	return f
}

// flatten lays out p's live postings as a flat.
func (ix *Index) flatten(p *postings) *flat {
	f := &flat{}
	ix.flatInto(p, f)
	if len(f.slots) < cap(f.slots)*3/4 { // deleted passages or many others: give the room back
		f.slots, f.sat = slices.Clone(f.slots), slices.Clone(f.sat)
	}
	if len(f.slots) > 0 && len(f.slots) >= len(ix.lens)/rankDensity {
		f.rank = rankSlots(f.slots, f.end)
	}
	return f
}

// flatInto lays out p's live postings in f, reusing the room of f's
// slices.
func (ix *Index) flatInto(p *postings, f *flat) {
	slots, sat := slices.Grow(f.slots[:0], p.n)[:p.n], slices.Grow(f.sat[:0], p.n)[:p.n]
	xslots, xtf := f.xslots[:0], f.xtf[:0]
	n := 0
	var docs, tfs [blockSize]uint32
	for bi := range p.blocks {
		for j := range p.decode(bi, &docs, &tfs) {
			s, tf := docs[j], tfs[j]
			switch length := ix.lens[s]; {
			case length == deadLen:
			case tf-1 < satTFs && length < satLens:
				slots[n], sat[n] = s, uint16((tf-1)*satLens+length)
				n++
			default:
				xslots, xtf = append(xslots, s), append(xtf, tf)
			}
		}
	}
	*f = flat{slots: slots[:n], sat: sat[:n], xslots: xslots, xtf: xtf, n: p.n}
	if len(p.blocks) > 0 {
		f.end = p.blocks[len(p.blocks)-1].last + 1
	}
}

// flatFor is p's flat copy for one search: its kept copy, or for a list
// too short to keep one (below flatFrom) a copy made into room (which
// the search owns until it ends); nil while another search makes p's
// kept copy.
func (ix *Index) flatFor(p *postings, room *flat) *flat {
	if p.n < flatFrom {
		ix.flatInto(p, room)
		return room
	}
	return ix.flat(p)
}

// span is the range of slots, ascending, that lie in [lo, hi). A whole
// list (lo 0, as every search but a split exhaustive one asks) needs no
// search: two binary searches a list were 2% of a real-text search.
func span(slots []uint32, lo, hi uint32) (i, j int) {
	if lo > 0 {
		i, _ = slices.BinarySearch(slots, lo)
	}
	j = len(slots)
	if hi != exhausted {
		j, _ = slices.BinarySearch(slots, hi)
	}
	return i, j
}

// addFlat is addList for a flat copy: it adds w·sat of f's postings with
// slots in [lo, hi) to acc and appends the slots it touches first to
// touched, which it returns. The saturations are tab's, or bm.sat beyond
// it, exactly as in addList; the postings beyond the table come last
// (each slot is in a list once, so its sum is the same).
func (ix *Index) addFlat(f *flat, acc []float32, touched []uint32, tab *[satTFs * satLens]float64, bm bm25, w float64, lo, hi uint32) []uint32 {
	i, j := span(f.slots, lo, hi)
	touched = addTable(acc, touched, tab, w, f.slots[i:j], f.sat[i:j])
	i, j = span(f.xslots, lo, hi)
	for k := i; k < j; k++ {
		s := f.xslots[k]
		v := acc[s]
		if v == 0 { // contributions are positive: 0 means untouched
			touched = append(touched, s)
		}
		acc[s] = v + float32(w*bm.sat(f.xtf[k], ix.lens[s]))
	}
	return touched
}

// The table's size must be a power of two: addTable bounds its indexes
// with a mask. This fails to compile otherwise.
const _ uint = -(satTFs * satLens & (satTFs*satLens - 1))

// addTable adds w·tab[sat[i]] to acc[slots[i]] for every i and appends the
// slots it touches first to touched, in slot order, and returns it.
func addTable(acc []float32, touched []uint32, tab *[satTFs * satLens]float64, w float64, slots []uint32, sat []uint16) []uint32 {
	sat = sat[:len(slots)]
	touched = slices.Grow(touched, len(slots)) // room for every slot: see addList
	nt := len(touched)
	touched = touched[:cap(touched)]
	for i, s := range slots {
		v := acc[s]
		touched[nt] = s
		if v == 0 { // contributions are positive: 0 means untouched
			nt++
		}
		// The mask drops a bounds check: entries are below the table's size.
		acc[s] = v + float32(w*tab[sat[i]&(satTFs*satLens-1)])
	}
	return touched[:nt]
}
