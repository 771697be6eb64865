package vector

import "math"

// The ef floor (efFloor) is fitted to BenchmarkEfSweep (efsweep_test.go)
// on the clustered 384-d synthetic vectors, library configuration (int8
// walk, re-scored through a Source), M 16, efConstruction 128, 1000
// queries, recall@10 against the exact scan; k 10 and k 100 measured the
// same recall at every ef. Session 12 (docs/benchmarks/vector-index.md#ef-by-size):
//
//	ef        64     100    128    160    200    256    320    400
//	100k   0.991  0.996  0.998  0.998  1.000  1.000  1.000  1.000
//	300k   0.960  0.977  0.983  0.991  0.992  0.995  0.997  0.997
//	600k   0.900  0.939  0.956  0.966  0.974  0.980  0.987  0.990
//	1M     0.840  0.902  0.928  0.942  0.951  0.962  0.967  0.973
//
//	MCPVEC_BENCH_SIZES=100k,300k,600k,1m go test -run '^$' -bench EfSweep -benchtime 1x -timeout 3h ./index/
//
// The floor is the power law through ef 100 at 300k and 256 at 1M
// (recall@10 0.977 and 0.962); it gives 172 at 600k (between 0.966 and
// 0.974, checked after the fit) and stays below the default EfSearch (64)
// up to about 170k vectors, where ef 64 measured 0.99. Beyond 1M it is
// extrapolated, not measured (440 at 2M, 1,543 at 10M).
const (
	efFloorAt1M = 256  // ef for recall@10 0.96 at 1M vectors
	efFloorExp  = 0.78 // log(256/100) / log(1M/300k)
)

// efFloor is the least ef a Search uses on an index of n live vectors:
// at a fixed ef, graph recall falls as the index grows.
func efFloor(n int) int {
	return int(math.Ceil(efFloorAt1M * math.Pow(float64(n)/1e6, efFloorExp)))
}

// efFor is the ef of a graph search for k results over n live vectors:
// Config.EfSearch, raised to k and to efFloor(n). EfSearch is thus a
// minimum; SearchEf takes an exact ef.
func efFor(efSearch, k, n int) int {
	return max(efSearch, k, efFloor(n))
}
