package vector

// Filter limits a search to some vectors. Implementations must be safe for
// concurrent use and must not block.
type Filter interface {
	// Allow reports whether the vector stored under id may be returned.
	Allow(id uint64) bool
	// Few returns the allowed ids when there are few of them (ascending),
	// else nil.
	Few() []uint64
}

// SearchFiltered is SearchSeeded returning only vectors f allows, so that a
// filtered search still finds k when k are allowed. When f lists its ids
// (Filter.Few), or the index is small enough for the exact scan, the
// allowed vectors are scored one by one, exactly (in float32: the copies
// the index keeps or the Source's), or, in a Config.Scan index with a
// Source, as SearchScan scores them (int8 codes, the best rescoreFactor·k
// re-scored). Otherwise the graph walk on layer 0
// passes through every vector but keeps only allowed ones, so its beam
// widens until it holds ef of them (filtered HNSW); a Config.Scan index
// scans only the allowed codes. A nil f is SearchSeeded. It returns the
// errors of Search and is safe for concurrent use.
func (x *Index) SearchFiltered(q []float32, k int, seeds []uint64, f Filter) ([]Result, error) {
	if f == nil {
		return x.SearchSeeded(q, k, seeds)
	}
	qv, err := prepare(q, x.dim, x.cfg.Metric)
	if err != nil || k <= 0 {
		return nil, err
	}
	if few := f.Few(); few != nil {
		if x.cfg.Scan && x.cfg.Source != nil {
			return x.scanIDs(qv, k, few)
		}
		return x.scoreIDs(qv, k, few)
	}
	allow := x.allowFunc(f)
	n := x.Len()
	switch {
	case n < x.cfg.ExactBelow || x.cfg.Scan && x.cfg.Source == nil:
		return x.scoreIDs(qv, k, x.liveIDs(allow))
	case x.cfg.Scan:
		return x.scanIn(qv, k, allow)
	}
	return x.finish(qv, x.graphSearchIn(qv, k, efFor(x.cfg.EfSearch, k, n), seeds, allow), k)
}

// allowFunc is f's test of a slot. The slot's id is read under allocMu's
// protection of ids only through the read lock callers hold.
func (x *Index) allowFunc(f Filter) func(uint32) bool {
	return func(s uint32) bool { return f.Allow(x.ids[s]) }
}

// liveIDs lists the ids of the live slots allow allows.
func (x *Index) liveIDs(allow func(uint32) bool) []uint64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	x.allocMu.Lock()
	n := x.n
	x.allocMu.Unlock()
	var ids []uint64
	for s := uint32(0); int(s) < n; s++ {
		if x.isLive(s) && allow(s) {
			ids = append(ids, x.ids[s])
		}
	}
	return ids
}

// slotsOf returns the slots of the ids the index holds. Callers hold mu
// for reading.
func (x *Index) slotsOf(ids []uint64) []uint32 {
	x.allocMu.Lock()
	defer x.allocMu.Unlock()
	slots := make([]uint32, 0, len(ids))
	for _, id := range ids {
		if s, ok := x.byID[id]; ok {
			slots = append(slots, s)
		}
	}
	return slots
}

// scanIDs is SearchScan over the live vectors of ids.
func (x *Index) scanIDs(qv []float32, k int, ids []uint64) ([]Result, error) {
	qq := qvec{make([]int8, x.dim), 0}
	qq.scale = quantize(qq.codes, qv)
	n := rescoreFactor * k
	h := make(minHeap, 0, n+1)
	x.mu.RLock()
	for _, s := range x.slotsOf(ids) {
		if x.isLive(s) {
			o := int(s) * x.dim
			h = h.keep(cand{s, qq.scale * x.scales[s] * float32(dotInt8(qq.codes, x.codes[o:o+x.dim:o+x.dim]))}, n)
		}
	}
	rs := x.results(h)
	x.mu.RUnlock()
	return x.finish(qv, rs, k)
}

// scoreIDs scores the live vectors of ids exactly against the prepared
// query and returns the k best, best first (ties to the smaller id): in
// float32 from the copies the index keeps, or, without them, on the int8
// codes first, re-scoring through the Source only those that can reach
// the k best (exactFromSource's way), so few vectors are read.
func (x *Index) scoreIDs(qv []float32, k int, ids []uint64) ([]Result, error) {
	x.mu.RLock()
	slots := x.slotsOf(ids)
	if x.vecs == nil {
		x.mu.RUnlock()
		return x.exactFromSourceIn(qv, k, slots)
	}
	rs := make([]Result, 0, len(slots))
	for _, s := range slots {
		if x.isLive(s) {
			rs = append(rs, Result{ID: x.ids[s], Score: dot(qv, x.vec(s))})
		}
	}
	x.mu.RUnlock()
	sortResults(rs)
	return rs[:min(k, len(rs))], nil
}
