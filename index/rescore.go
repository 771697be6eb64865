package index

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// rescore replaces the int8 scores of rs by exact ones computed from the
// vectors the Source returns, and sorts rs best first (ties to the smaller
// id). Under Cosine the returned vectors are normalised on the fly, as Add
// would have. It takes no lock.
func (x *Index) rescore(q []float32, rs []Result) error {
	ids := make([]uint64, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	err := x.cfg.Source.Vectors(ids, func(i int, v []float32) {
		if i < 0 || i >= len(rs) || len(v) != x.dim {
			return
		}
		s := dot(q, v)
		if x.cfg.Metric == Cosine {
			if n := float64(dot(v, v)); n > 0 {
				s = float32(float64(s) / math.Sqrt(n))
			}
		}
		rs[i].Score = s
	})
	if err != nil {
		return fmt.Errorf("re-score from source: %w", err)
	}
	slices.SortFunc(rs, func(a, b Result) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return nil
}
