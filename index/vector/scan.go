package vector

import (
	"runtime"
	"sync"
)

// SearchScan answers without the graph: it scores every live vector's int8
// codes against q, re-scores the best rescoreFactor·k exactly through the
// Config.Source and returns the k best, best first. Unlike the graph it does
// not depend on how the vectors cluster, so it suits vectors among which a
// graph walk cannot find its way (many at almost the same distance from
// every query, as the offline embedder's are); unlike SearchExact it does
// not bound the int8 rounding, so a vector whose int8 score falls outside
// the re-scored candidates is missed (measured recall: see Config.Scan).
// Without a Source it is the exact float32 scan. A scan of at least
// scanSplitFrom vectors that runs alone is split across the CPUs. It
// returns the errors of Search and is safe for concurrent use.
func (x *Index) SearchScan(q []float32, k int) ([]Result, error) {
	qv, err := prepare(q, x.dim, x.cfg.Metric)
	if err != nil || k <= 0 {
		return nil, err
	}
	return x.scan(qv, k)
}

// scanSplitFrom is the number of slots from which a lone scan is split
// across the CPUs (a variable for tests).
var scanSplitFrom = 1 << 16

// scan is SearchScan for a prepared query.
func (x *Index) scan(qv []float32, k int) ([]Result, error) { return x.scanIn(qv, k, nil) }

// scanIn is scan over the slots allow allows (nil: all).
func (x *Index) scanIn(qv []float32, k int, allow func(uint32) bool) ([]Result, error) {
	if x.cfg.Source == nil { // SearchFiltered never passes allow here
		return x.exact(qv, k), nil
	}
	qq := qvec{make([]int8, x.dim), 0}
	qq.scale = quantize(qq.codes, qv)
	x.scanning.Add(1)
	defer x.scanning.Add(-1)
	x.mu.RLock()
	x.allocMu.Lock()
	slots := uint32(x.n)
	x.allocMu.Unlock()
	n := rescoreFactor * k
	parts := uint32(min(runtime.GOMAXPROCS(0), 4))
	var best minHeap
	if parts < 2 || slots < uint32(scanSplitFrom) || x.scanning.Load() > 1 {
		best = x.scanTop(qq, n, 0, slots, allow)
	} else {
		best = x.scanSplit(qq, n, slots, parts, allow)
	}
	rs := x.results(best)
	x.mu.RUnlock()
	return x.finish(qv, rs, k)
}

// scanSplit is scanTop over [0, slots) cut into parts ranges scanned
// concurrently; the n best of the whole are among the ranges' n best.
// Callers hold mu for reading.
func (x *Index) scanSplit(qq qvec, n int, slots, parts uint32, allow func(uint32) bool) minHeap {
	heaps := make([]minHeap, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := slots/parts*p, slots/parts*(p+1)
		if p == parts-1 {
			hi = slots
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			heaps[p] = x.scanTop(qq, n, lo, hi, allow)
		}()
	}
	wg.Wait()
	best := heaps[0]
	for _, h := range heaps[1:] {
		for _, c := range h {
			best = best.keep(c, n)
		}
	}
	return best
}

// scanTop returns the n live slots in [lo, hi) with the best int8 scores
// against qq that allow allows (nil: all), as a heap. Callers hold mu for
// reading.
func (x *Index) scanTop(qq qvec, n int, lo, hi uint32, allow func(uint32) bool) minHeap {
	h := make(minHeap, 0, n+1)
	for s := lo; s < hi; s++ {
		if !x.isLive(s) || allow != nil && !allow(s) {
			continue
		}
		o := int(s) * x.dim
		h = h.keep(cand{s, qq.scale * x.scales[s] * float32(dotInt8(qq.codes, x.codes[o:o+x.dim:o+x.dim]))}, n)
	}
	return h
}

// keep adds c to h when h holds fewer than n candidates or c beats its
// worst, and returns h.
func (h minHeap) keep(c cand, n int) minHeap {
	if len(h) < n {
		h.push(c)
	} else if c.score > h[0].score {
		h[0] = c
		h.fix0()
	}
	return h
}
