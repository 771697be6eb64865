package lexical

import (
	"cmp"
	"math"
	"slices"
	"sync"
)

// Passage reordering by recursive graph bisection (BP), when a segment is
// written and reorderFrom allows it (off by default, see there): the
// passages are given new slots so that passages sharing terms lie close
// together. Slots are internal (results carry passage ids, ties go to the
// smaller id, and every scorer sums a passage's contributions in an order
// that does not depend on the slots: openCursors), so searches return
// exactly what they did; what changes is that a term's postings cluster
// into denser blocks: smaller slot gaps (more one-byte postings), block-max
// bounds (blockBound) that rule out more candidates, and partial sums that
// touch fewer cache lines. The segment format is the same in any order.
//
// The method is the one described by Dhulipala, Kabiljo, Karrer,
// Ottaviano, Pupyrev and Shalita, "Compressing graphs and indexes with
// recursive graph bisection" (KDD 2016), and revisited by Mackenzie,
// Mallia, Petri, Culpepper and Suel (ECIR 2019): split the passages in two
// halves, and for a few rounds swap between the halves the passages whose
// move most lowers the estimated cost of the posting lists' gaps,
//
//	Σ_t  dL(t)·log2(nL/(dL(t)+1)) + dR(t)·log2(nR/(dR(t)+1)),
//
// dL(t), dR(t) being term t's passages in each half of nL and nR passages;
// then do the same within each half, down to small groups. The order is a
// function of the passages in slot order alone (ties go to the earlier
// slot), whatever the number of CPUs.

// Parameters of the bisection (variables for tests and benchmarks).
var (
	// reorderFrom is the number of passages from which a segment's
	// passages are reordered; 0 turns reordering off, which is the
	// default: at 100k passages the bisection cost 9 s of CPU a segment
	// write for 3-5% fewer postings read, 0.1-2.5% smaller lists and no
	// measurable change in a query's CPU, on the synthetic corpus and on
	// real text (docs/benchmarks/reorder.md). The pruned search reads
	// whole lists (MaxScore, term at a time); block bounds only sort out
	// candidates, so denser blocks have little to skip.
	reorderFrom = 0
	// bpMinDF is the smallest document frequency of the terms that steer
	// the bisection: rarer terms have a list of a block or two wherever
	// their passages lie, and would only slow it down.
	bpMinDF = 16
	// bpMaxDF, as a fraction of the passages: terms in more passages than
	// that are left out (their gaps are small anyway).
	bpMaxDF = 0.5
	// bpLeaf is the size of the groups left in slot order.
	bpLeaf = 16
	// bpIters is the most swapping rounds per split. On 30k passages of
	// the synthetic scale corpus 20 rounds took 3.8 s of CPU and lowered
	// the gaps' log2 cost 10.3%, 8 rounds 1.5 s and 9.3%, 4 rounds (with
	// groups of 128 and terms in 64 passages or more) 0.66 s and 7.3%
	// (docs/benchmarks/reorder.md#parameters).
	bpIters = 8
	// bpMaxDepth bounds the recursion.
	bpMaxDepth = 40
	// bpParallelDepth is the depth up to which the two halves of a split
	// are bisected concurrently.
	bpParallelDepth = 3
)

// forward is the passages' steering terms, CSR: passage s's terms are
// terms[off[s]:off[s+1]], as dense ids below nterms.
type forward struct {
	off    []uint32
	terms  []uint32
	nterms int
}

// steeringTerms builds the forward index of the live passages over the
// terms whose document frequency lies in [bpMinDF, bpMaxDF·n].
func (ix *Index) steeringTerms() forward {
	maxDF := uint32(bpMaxDF * float64(len(ix.docs)))
	dense := make([]int32, len(ix.df))
	fw := forward{off: make([]uint32, len(ix.docs)+1)}
	total := 0
	for t, df := range ix.df {
		dense[t] = -1
		if df >= uint32(bpMinDF) && df <= maxDF {
			dense[t] = int32(fw.nterms)
			fw.nterms++
			total += int(df)
		}
	}
	fw.terms = make([]uint32, 0, total)
	for s := range ix.docs {
		for t := range unpackTerms(ix.docs[s].terms) {
			if d := dense[t]; d >= 0 {
				fw.terms = append(fw.terms, uint32(d))
			}
		}
		fw.off[s+1] = uint32(len(fw.terms))
	}
	return fw
}

// bpOrder returns the new order of the slots: order[i] is the slot that
// moves to slot i. Every slot must be live.
func (ix *Index) bpOrder() []uint32 {
	fw := ix.steeringTerms()
	n := len(ix.docs)
	order := make([]uint32, n)
	for i := range order {
		order[i] = uint32(i)
	}
	lg := make([]float32, n+2) // lg[i] = log2(i); lg[0] is never read
	for i := 1; i < len(lg); i++ {
		lg[i] = float32(math.Log2(float64(i)))
	}
	b := &bisector{fw: &fw, lg: lg, pos: make([]uint32, n)}
	b.bisect(order, 0, b.newScratch())
	return order
}

// bisector holds what every split reads.
type bisector struct {
	fw  *forward
	lg  []float32
	pos []uint32 // per slot: its index in the docs of the split that last moved it
}

// bpScratch is one goroutine's working memory: per steering term its
// passages in each half (zero between splits), and per passage of each
// half its gain.
type bpScratch struct {
	dL, dR []int32
	gl, gr []bpGain
}

type bpGain struct {
	gain float32
	slot uint32
}

func (b *bisector) newScratch() *bpScratch {
	return &bpScratch{dL: make([]int32, b.fw.nterms), dR: make([]int32, b.fw.nterms)}
}

// bisect orders docs (slots) in place: splits them, swaps passages between
// the halves, then orders each half.
func (b *bisector) bisect(docs []uint32, depth int, sc *bpScratch) {
	if len(docs) <= bpLeaf || depth >= bpMaxDepth {
		return
	}
	mid := len(docs) / 2
	b.split(docs, mid, sc)
	left, right := docs[:mid], docs[mid:]
	if depth >= bpParallelDepth {
		b.bisect(left, depth+1, sc)
		b.bisect(right, depth+1, sc)
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		b.bisect(right, depth+1, b.newScratch())
	}()
	b.bisect(left, depth+1, sc)
	wg.Wait()
}

// split swaps passages between docs[:mid] and docs[mid:] for up to bpIters
// rounds, while a swap lowers the cost, and leaves sc's counts zero.
func (b *bisector) split(docs []uint32, mid int, sc *bpScratch) {
	left, right := docs[:mid], docs[mid:]
	b.count(left, sc.dL, 1)
	b.count(right, sc.dR, 1)
	for i, s := range docs {
		b.pos[s] = uint32(i) // the slots are the split's own: no other goroutine writes them
	}
	for range bpIters {
		gl := b.gains(left, sc.dL, sc.dR, float32(len(left)), float32(len(right)), sc.gl[:0])
		gr := b.gains(right, sc.dR, sc.dL, float32(len(right)), float32(len(left)), sc.gr[:0])
		sc.gl, sc.gr = gl, gr
		swaps := 0
		for i := range min(len(gl), len(gr)) {
			if gl[i].gain+gr[i].gain <= 0 {
				break
			}
			swaps++
		}
		if swaps == 0 {
			break
		}
		b.swap(docs, gl[:swaps], gr[:swaps], sc)
	}
	b.count(left, sc.dL, 0)
	b.count(right, sc.dR, 0)
}

// count adds 1 to d for each steering term of each passage of docs, or,
// with add 0, sets those entries back to 0.
func (b *bisector) count(docs []uint32, d []int32, add int32) {
	fw := b.fw
	for _, s := range docs {
		for _, t := range fw.terms[fw.off[s]:fw.off[s+1]] {
			if add == 0 {
				d[t] = 0
			} else {
				d[t] += add
			}
		}
	}
}

// gains appends to out the gain, for each passage of docs (in the half
// whose counts are from, of n passages), of moving to the other half (to,
// of m passages): how much the cost falls. It returns them sorted, the
// largest first, ties to the smaller slot.
func (b *bisector) gains(docs []uint32, from, to []int32, n, m float32, out []bpGain) []bpGain {
	fw, lg := b.fw, b.lg
	ln, lm := lg[int(n)], lg[int(m)]
	for _, s := range docs {
		g := float32(0)
		for _, t := range fw.terms[fw.off[s]:fw.off[s+1]] {
			a, c := from[t], to[t]
			// cost(x, size) = x·(log2 size − log2(x+1)); before minus after:
			before := float32(a)*(ln-lg[a+1]) + float32(c)*(lm-lg[c+1])
			after := float32(a-1)*(ln-lg[a]) + float32(c+1)*(lm-lg[c+2])
			g += before - after
		}
		out = append(out, bpGain{gain: g, slot: s})
	}
	slices.SortFunc(out, func(x, y bpGain) int {
		if c := cmp.Compare(y.gain, x.gain); c != 0 {
			return c
		}
		return cmp.Compare(x.slot, y.slot)
	})
	return out
}

// swap exchanges the passages of gl (in docs[:mid]) with those of gr (in
// docs[mid:]), pairwise, and updates the counts.
func (b *bisector) swap(docs []uint32, gl, gr []bpGain, sc *bpScratch) {
	pos := b.pos
	for i := range gl {
		l, r := gl[i].slot, gr[i].slot
		pl, pr := pos[l], pos[r]
		docs[pl], docs[pr], pos[l], pos[r] = r, l, pr, pl
		b.move(l, sc.dL, sc.dR)
		b.move(r, sc.dR, sc.dL)
	}
}

// move moves passage s's steering terms from one half's counts to the
// other's.
func (b *bisector) move(s uint32, from, to []int32) {
	fw := b.fw
	for _, t := range fw.terms[fw.off[s]:fw.off[s+1]] {
		from[t]--
		to[t]++
	}
}

// foldLocked readies the passages for a segment: it compacts deleted
// slots away and reorders the passages (when there are reorderFrom or
// more), inverting the lists once. Callers hold the write lock.
func (ix *Index) foldLocked() {
	compacted := len(ix.docs) != ix.alive
	if compacted {
		deferred := ix.deferPost
		ix.deferPost = true // inverted below, once
		ix.compactLocked()
		ix.deferPost = deferred
	}
	if reorderFrom > 0 && ix.alive >= reorderFrom && ix.reorderLocked() {
		return
	}
	if compacted && !ix.deferPost {
		ix.invert()
	}
}

// reorderLocked gives the passages new slots in bpOrder's order and
// rebuilds the posting lists for them, unless that order would not make
// the lists smaller (gapBytes): the order passages were added in often
// has much of what the bisection finds already, a document's passages
// lying side by side. It reports whether it reordered. Every slot must be
// live. Callers hold the write lock.
func (ix *Index) reorderLocked() bool {
	order := ix.bpOrder()
	if ix.gapBytes(order) >= ix.gapBytes(nil) {
		return false
	}
	ix.applyOrder(order)
	return true
}

// applyOrder moves slot order[i] to slot i, for every i, and rebuilds the
// posting lists. Every slot must be live.
func (ix *Index) applyOrder(order []uint32) {
	old := ix.docs
	ix.pre = nil // its slots are renumbered
	ix.docs = make([]docEntry, len(old))
	for i, s := range order {
		d := old[s]
		ix.docs[i], ix.lens[i], ix.slots()[d.id] = d, d.length, uint32(i)
	}
	ix.invert()
}

// gapBytes is the size of the posting lists' slot gaps, as uvarints, were
// the passages laid out in order (order[i]: the slot that would be slot
// i; nil: as they are).
func (ix *Index) gapBytes(order []uint32) int {
	last := make([]uint32, len(ix.post)) // per term: its last new slot + 1, 0 for none yet
	n := 0
	for i := range ix.docs {
		s := uint32(i)
		if order != nil {
			s = order[i]
		}
		for t := range unpackTerms(ix.docs[s].terms) {
			gap := uint32(i) - max(last[t], 1) + 1 // the first posting counts from 0
			n += uvarintLen(gap)
			last[t] = uint32(i) + 1
		}
	}
	return n
}
