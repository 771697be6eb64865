package vector

// SearchSeeded is Search with extra entry points: the graph search on
// layer 0 starts its beam from the vectors stored under seeds as well as
// from where the usual descent from the entry point ends. Seeds are ids
// the caller expects near q (another retriever's best candidates, say);
// they steer the walk into the right region, which matters when q is far
// from every vector and a walk from the entry point wanders among many at
// almost the same distance. Seeds are not results by themselves: a seed
// is returned only when it ranks among the k best the walk finds. Unknown
// and deleted ids, and ids whose vector an Add has not finished writing,
// are skipped. While Len() < Config.ExactBelow the exact scan answers, and
// with Config.Scan SearchScan does; both ignore seeds. It returns the
// errors of Search and is safe for concurrent use.
func (x *Index) SearchSeeded(q []float32, k int, seeds []uint64) ([]Result, error) {
	qv, err := prepare(q, x.dim, x.cfg.Metric)
	if err != nil || k <= 0 {
		return nil, err
	}
	n := x.Len()
	switch {
	case n < x.cfg.ExactBelow:
		return x.searchExact(qv, k)
	case x.cfg.Scan:
		return x.scan(qv, k)
	}
	return x.finish(qv, x.graphSearch(qv, k, efFor(x.cfg.EfSearch, k, n), seeds), k)
}

// SearchEfSeeded is SearchSeeded through the graph with an explicit ef,
// never switching to the exact scan; for tuning and benchmarks. A
// Config.Scan index has no graph: it answers by SearchScan, ignoring ef
// and seeds. It is safe for concurrent use.
func (x *Index) SearchEfSeeded(q []float32, k, ef int, seeds []uint64) ([]Result, error) {
	qv, err := prepare(q, x.dim, x.cfg.Metric)
	if err != nil || k <= 0 {
		return nil, err
	}
	if x.cfg.Scan {
		return x.scan(qv, k)
	}
	return x.finish(qv, x.graphSearch(qv, k, ef, seeds), k)
}

// seedCands appends to eps the live slots of seeds, scored against qq.
// Callers hold mu for reading, so no slot is freed meanwhile; a slot read
// as live has its code written (fill publishes it with the state).
func (x *Index) seedCands(eps []cand, qq qvec, seeds []uint64, v *visited) []cand {
	if len(seeds) == 0 {
		return eps
	}
	slots := v.slots[:0]
	x.allocMu.Lock()
	for _, id := range seeds {
		if s, ok := x.byID[id]; ok {
			slots = append(slots, s)
		}
	}
	x.allocMu.Unlock()
	for _, s := range slots {
		if x.isLive(s) {
			eps = append(eps, cand{s, approx(qq, x.code(s))})
		}
	}
	v.slots = slots
	return eps
}
