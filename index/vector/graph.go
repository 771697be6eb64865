package vector

import (
	"cmp"
	"slices"
	"sync/atomic"
)

// cand is a slot with its score against the current query (higher is closer).
type cand struct {
	slot  uint32
	score float32
}

// minHeap keeps the worst (lowest score) candidate on top: the bounded result set.
type minHeap []cand

func (h *minHeap) push(c cand) {
	*h = append(*h, c)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].score <= a[i].score {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *minHeap) pop() cand {
	a := *h
	top := a[0]
	a[0] = a[len(a)-1]
	*h = a[:len(a)-1]
	h.fix0()
	return top
}

func (h minHeap) fix0() {
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && h[r].score < h[l].score {
			l = r
		}
		if h[i].score <= h[l].score {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

// maxHeap keeps the best (highest score) candidate on top: the expansion
// queue. It is a minHeap of negated scores, which makes exactly the moves a
// max-heap of the scores would.
type maxHeap minHeap

func (h *maxHeap) push(c cand) {
	c.score = -c.score
	(*minHeap)(h).push(c)
}

func (h *maxHeap) pop() cand {
	c := (*minHeap)(h).pop()
	c.score = -c.score
	return c
}

// visited is a per-search scratch set: a slot is visited when marks[slot] == gen.
type visited struct {
	marks []uint16
	gen   uint16
	cands maxHeap
	res   minHeap
	nbrs  []uint32
	query []int8   // the quantised query
	eps   []cand   // layer 0's entry points
	slots []uint32 // the seeds' slots
	// allow, when not nil, tells the slots a filtered search may return
	// (SearchFiltered): layer 0's walk goes through the others but never
	// keeps them.
	allow func(s uint32) bool
}

// getVisited returns a cleared scratch set sized for the current slot arrays.
// Callers hold mu for reading.
func (x *Index) getVisited() *visited {
	v, _ := x.visited.Get().(*visited)
	if v == nil {
		v = &visited{}
	}
	if len(v.marks) < len(x.ids) {
		v.marks = make([]uint16, len(x.ids))
		v.gen = 0
	}
	v.gen++
	if v.gen == 0 {
		clear(v.marks)
		v.gen = 1
	}
	return v
}

func (v *visited) visit(s uint32) bool {
	if v.marks[s] == v.gen {
		return false
	}
	v.marks[s] = v.gen
	return true
}

// list returns the link words of slot s on layer l: [count, entries...], or
// nil when s has no such layer.
func (x *Index) list(s uint32, l int) []uint32 {
	if l == 0 {
		o := int(s) * (x.m0 + 1)
		return x.links0[o : o+x.m0+1 : o+x.m0+1]
	}
	u := x.upper[s]
	o := (l - 1) * (x.m + 1)
	if o+x.m+1 > len(u) {
		return nil
	}
	return u[o : o+x.m+1 : o+x.m+1]
}

// neighbours appends the current links of s on layer l to buf. Safe against
// concurrent writers: words are read atomically, so a reader may see a mix of
// an old and a new list, every entry of which is a valid slot.
func (x *Index) neighbours(buf []uint32, s uint32, l int) []uint32 {
	w := x.list(s, l)
	if w == nil {
		return buf
	}
	n := int(atomic.LoadUint32(&w[0]))
	if n > len(w)-1 {
		n = len(w) - 1
	}
	for i := 1; i <= n; i++ {
		buf = append(buf, atomic.LoadUint32(&w[i]))
	}
	return buf
}

// setList replaces the links of s on layer l. Callers hold s's stripe lock
// (or mu for writing).
func (x *Index) setList(s uint32, l int, nb []uint32) {
	w := x.list(s, l)
	for i, v := range nb {
		atomic.StoreUint32(&w[i+1], v)
	}
	atomic.StoreUint32(&w[0], uint32(len(nb)))
	x.dirty[s] = true
}

// greedy walks layer l from cur towards q, one best neighbour at a time.
func (x *Index) greedy(q qvec, cur cand, l int, v *visited) cand {
	for changed := true; changed; {
		changed = false
		v.nbrs = x.neighbours(v.nbrs[:0], cur.slot, l)
		for _, nb := range v.nbrs {
			if sc := approx(q, x.code(nb)); sc > cur.score {
				cur, changed = cand{nb, sc}, true
			}
		}
	}
	return cur
}

// searchLayer is SEARCH-LAYER from the paper: best-first expansion from eps
// with a result set bounded by ef. Tombstones are traversed but never
// returned. The result is sorted best first and reuses v's buffers.
func (x *Index) searchLayer(q qvec, eps []cand, ef, l int, v *visited) []cand {
	cands, res := v.cands[:0], v.res[:0]
	for _, e := range eps {
		if !v.visit(e.slot) {
			continue
		}
		cands.push(e)
		if x.isLive(e.slot) && (v.allow == nil || v.allow(e.slot)) {
			res.push(e)
			if len(res) > ef {
				res.pop()
			}
		}
	}
	for len(cands) > 0 {
		c := cands.pop()
		if len(res) >= ef && c.score < res[0].score {
			break
		}
		v.nbrs = x.neighbours(v.nbrs[:0], c.slot, l)
		for _, nb := range v.nbrs {
			if !v.visit(nb) {
				continue
			}
			sc := approx(q, x.code(nb))
			if len(res) >= ef && sc <= res[0].score {
				continue
			}
			cands.push(cand{nb, sc})
			if x.isLive(nb) && (v.allow == nil || v.allow(nb)) {
				res.push(cand{nb, sc})
				if len(res) > ef {
					res.pop()
				}
			}
		}
	}
	v.cands = cands
	out := []cand(res)
	slices.SortFunc(out, func(a, b cand) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	v.res = res
	return out
}

// entry returns the current entry point and top layer; ok is false when empty.
func (x *Index) entry() (int64, int) {
	x.epMu.Lock()
	defer x.epMu.Unlock()
	return x.ep, x.maxLevel
}

// graphSearch is K-NN-SEARCH from the paper over the quantised vectors. It
// returns all ef candidates found, best first, re-scored in float32 when
// the index keeps float32 copies (else finish re-scores them through the
// Source): int8 scores only steer the walk.
//
// Layer 0's beam starts from the descent's end and from every live slot of
// seeds (see SearchSeeded).
func (x *Index) graphSearch(q []float32, k, ef int, seeds []uint64) []Result {
	return x.graphSearchIn(q, k, ef, seeds, nil)
}

// graphSearchIn is graphSearch keeping on layer 0 only the slots allow
// allows (nil: all).
func (x *Index) graphSearchIn(q []float32, k, ef int, seeds []uint64, allow func(uint32) bool) []Result {
	x.mu.RLock()
	defer x.mu.RUnlock()
	ep, top := x.entry()
	if ep < 0 {
		return nil
	}
	if ef < k {
		ef = k
	}
	v := x.getVisited()
	defer x.visited.Put(v)
	v.query = slices.Grow(v.query[:0], x.dim)[:x.dim]
	qq := qvec{v.query, quantize(v.query, q)}
	cur := cand{uint32(ep), approx(qq, x.code(uint32(ep)))}
	for l := top; l > 0; l-- {
		cur = x.greedy(qq, cur, l, v)
	}
	v.eps = x.seedCands(append(v.eps[:0], cur), qq, seeds, v)
	v.allow = allow
	res := x.searchLayer(qq, v.eps, ef, 0, v)
	v.allow = nil
	if x.vecs != nil {
		for i := range res {
			res[i].score = dot(q, x.vec(res[i].slot))
		}
	}
	return x.results(res)
}

// selectNeighbours is the paper's heuristic (algorithm 4, no extension, no
// pruned fill): walk candidates best first and keep one only if it is closer
// to the base than to every neighbour already kept. This keeps links that
// point in different directions, which is what joins clusters together.
// cs must be sorted best first; the result reuses buf.
func (x *Index) selectNeighbours(cs []cand, m int, buf []uint32) []uint32 {
	out := buf[:0]
	for _, c := range cs {
		if len(out) >= m {
			break
		}
		cv := x.code(c.slot)
		good := true
		for _, r := range out {
			if approx(cv, x.code(r)) > c.score {
				good = false
				break
			}
		}
		if good {
			out = append(out, c.slot)
		}
	}
	return out
}

// link inserts the already filled slot into the graph at the given level
// (INSERT from the paper). Callers hold mu for reading.
func (x *Index) link(slot uint32, level int) {
	x.levels[slot] = uint8(level)
	if level > 0 {
		x.upper[slot] = make([]uint32, level*(x.m+1))
	} else {
		x.upper[slot] = nil
	}
	x.stripe[slot%stripes].Lock()
	clear(x.list(slot, 0))
	x.dirty[slot] = true
	x.stripe[slot%stripes].Unlock()

	x.epMu.Lock()
	ep, top := x.ep, x.maxLevel
	if ep < 0 {
		x.ep, x.maxLevel = int64(slot), level
		x.epMu.Unlock()
		return
	}
	x.epMu.Unlock()

	x.connect(slot, level, uint32(ep), top)
	if level > top {
		x.epMu.Lock()
		if level > x.maxLevel {
			x.ep, x.maxLevel = int64(slot), level
		}
		x.epMu.Unlock()
	}
}

// connect descends from the entry point ep on layer top to slot's level,
// then links slot on each of its layers to the neighbours the heuristic
// picks, adding the back links.
func (x *Index) connect(slot uint32, level int, ep uint32, top int) {
	q := x.code(slot)
	v := x.getVisited()
	defer x.visited.Put(v)
	v.visit(slot)
	cur := cand{ep, approx(q, x.code(ep))}
	for l := top; l > level; l-- {
		cur = x.greedy(q, cur, l, v)
	}
	eps := []cand{cur}
	var sel []uint32
	for l := min(level, top); l >= 0; l-- {
		w := x.searchLayer(q, eps, x.cfg.EfConstruction, l, v)
		if len(w) > 0 { // only tombstones found: keep descending from the old entries
			eps = append(eps[:0], w...)
		}
		sel = x.selectNeighbours(w, x.m, sel)
		x.stripe[slot%stripes].Lock()
		x.setList(slot, l, sel)
		x.stripe[slot%stripes].Unlock()
		mmax := x.m
		if l == 0 {
			mmax = x.m0
		}
		for _, nb := range sel {
			x.addLink(nb, slot, l, mmax)
		}
		// Start the next layer from all results, re-marking them unvisited.
		v.gen++
		if v.gen == 0 {
			clear(v.marks)
			v.gen = 1
		}
		v.visit(slot)
	}
}

// addLink adds the back link s -> nb on layer l, shrinking s's list with the
// heuristic when it is full.
func (x *Index) addLink(s, nb uint32, l, mmax int) {
	mu := &x.stripe[s%stripes]
	mu.Lock()
	defer mu.Unlock()
	cur := x.neighbours(make([]uint32, 0, mmax+1), s, l)
	if slices.Contains(cur, nb) {
		return
	}
	if len(cur) < mmax {
		w := x.list(s, l)
		atomic.StoreUint32(&w[len(cur)+1], nb)
		atomic.StoreUint32(&w[0], uint32(len(cur)+1))
		x.dirty[s] = true
		return
	}
	sv := x.code(s)
	cs := make([]cand, 0, len(cur)+1)
	for _, c := range append(cur, nb) {
		cs = append(cs, cand{c, approx(sv, x.code(c))})
	}
	sortCands(cs)
	x.setList(s, l, x.selectNeighbours(cs, mmax, cur[:0]))
}

// byScore is the one ranking order of candidates and results: higher
// scores first, equal scores by ascending id (slot or ID).
func byScore(as, bs float32, ai, bi uint64) int {
	switch {
	case as > bs:
		return -1
	case as < bs:
		return 1
	}
	return cmp.Compare(ai, bi)
}

func sortCands(cs []cand) {
	slices.SortFunc(cs, func(a, b cand) int { return byScore(a.score, b.score, uint64(a.slot), uint64(b.slot)) })
}

func sortResults(rs []Result) {
	slices.SortFunc(rs, func(a, b Result) int { return byScore(a.Score, b.Score, a.ID, b.ID) })
}

func slicesSortU32(s []uint32) { slices.Sort(s) }
