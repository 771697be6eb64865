package vector

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// rescore replaces the int8 scores of rs by exact ones computed from the
// vectors the Source returns, and sorts rs best first (ties to the smaller
// id). The returned vectors are prepared as Add prepared them (normalised
// under Cosine), so scores are bit-identical to those of an index keeping
// float32 copies. It takes no lock.
func (x *Index) rescore(q []float32, rs []Result) error {
	ids := make([]uint64, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	buf := make([]float32, x.dim)
	err := x.cfg.Source.Vectors(ids, func(i int, v []float32) {
		if i < 0 || i >= len(rs) || len(v) != x.dim || prepareInto(buf, v, x.cfg.Metric) != nil {
			return
		}
		rs[i].Score = dot(q, buf)
	})
	if err != nil {
		return fmt.Errorf("re-score from source: %w", err)
	}
	sortResults(rs)
	return nil
}

// scored is an int8 candidate of the exact scan: its id, its int8 score
// and a bound on how far its exact score can be from it (errBound), all
// read in the scan's one pass under the read lock. A slot read again later
// may have been deleted and filled with another vector meanwhile.
type scored struct {
	id     uint64
	slot   uint32
	approx float32
	bound  float32
}

// exactFromSource is the exact scan of an index without float32 copies:
// it scores every live vector on its int8 codes, re-scores the best
// rescoreFactor·k exactly, then also re-scores every other vector whose
// int8 score plus its rounding bound (errBound) reaches the k-th exact
// score, so the result is the float32 scan's.
func (x *Index) exactFromSource(q []float32, k int) ([]Result, error) {
	return x.exactFromSourceIn(q, k, nil)
}

// exactFromSourceIn is exactFromSource over slots (nil: every slot).
func (x *Index) exactFromSourceIn(q []float32, k int, slots []uint32) ([]Result, error) {
	qq := qvec{make([]int8, x.dim), 0}
	qq.scale = quantize(qq.codes, q)
	var l1q float32
	for _, c := range qq.codes {
		l1q += float32(abs8(c))
	}
	l1q *= qq.scale
	all := x.scanInt8(qq, l1q, slots)
	slices.SortFunc(all, func(a, b scored) int { return cmp.Compare(b.approx, a.approx) })
	top := min(len(all), rescoreFactor*k)
	rs := slotResults(all[:top])
	if err := x.rescore(q, rs); err != nil {
		return nil, err
	}
	if len(rs) < k || top == len(all) {
		return rs[:min(k, len(rs))], nil
	}
	t := rs[k-1].Score
	var more []scored
	for _, c := range all[top:] {
		if c.approx+c.bound >= t {
			more = append(more, c)
		}
	}
	if len(more) == 0 {
		return rs[:k], nil
	}
	extra := slotResults(more)
	if err := x.rescore(q, extra); err != nil {
		return nil, err
	}
	rs = append(rs[:k], extra...)
	sortResults(rs)
	return rs[:k], nil
}

// scanInt8 returns every live slot of slots (nil: of the index) with its
// int8 score against qq and the bound of that score (errBound; l1q is
// ‖q̂‖₁·s_q).
func (x *Index) scanInt8(qq qvec, l1q float32, slots []uint32) []scored {
	x.mu.RLock()
	defer x.mu.RUnlock()
	x.allocMu.Lock()
	n := x.n
	x.allocMu.Unlock()
	if slots != nil {
		out := make([]scored, 0, len(slots))
		for _, s := range slots {
			if int(s) < n && x.isLive(s) {
				c := x.code(s)
				out = append(out, scored{id: x.ids[s], slot: s, approx: approx(qq, c), bound: errBound(qq, l1q, c, x.dim)})
			}
		}
		return out
	}
	out := make([]scored, 0, n)
	for s := uint32(0); int(s) < n; s++ {
		if x.isLive(s) {
			c := x.code(s)
			out = append(out, scored{id: x.ids[s], slot: s, approx: approx(qq, c), bound: errBound(qq, l1q, c, x.dim)})
		}
	}
	return out
}

// slotResults turns candidates into Results with their int8 scores.
func slotResults(cs []scored) []Result {
	out := make([]Result, len(cs))
	for i, c := range cs {
		out[i] = Result{ID: c.id, Score: c.approx}
	}
	return out
}

// errBound bounds |q·v − approx(q̂, v̂)| for a vector of codes c: with q = q̂+e_q and
// v = v̂+e_v, each rounding error at most half its scale per component,
// the error is at most ‖q̂‖₁·s_v/2 + ‖v̂‖₁·s_q/2 + dim·s_q·s_v/4. A small
// relative margin covers float32 rounding in both scores.
func errBound(qq qvec, l1q float32, c qvec, dim int) float32 {
	var l1v float32
	for _, v := range c.codes {
		l1v += float32(abs8(v))
	}
	l1v *= c.scale
	b := l1q*c.scale/2 + l1v*qq.scale/2 + float32(dim)*qq.scale*c.scale/4
	return b*1.01 + 1e-6*float32(math.Sqrt(float64(dim)))
}

func abs8(c int8) int32 {
	if c < 0 {
		return -int32(c)
	}
	return int32(c)
}
