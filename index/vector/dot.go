package vector

import (
	"math"

	"github.com/viterin/vek/vek32"
)

// dot is the inner product used everywhere. vek32.Dot uses AVX2+FMA assembly
// when the CPU has both and falls back to plain Go otherwise (it checks
// golang.org/x/sys/cpu at start-up), so it is safe on machines without AVX.
// It panics on empty or unequal slices; callers guarantee len == dim >= 1.
// Chosen over dotGo by BenchmarkDot (see bench_test.go).
func dot(a, b []float32) float32 { return vek32.Dot(a, b) }

// dotGo is a portable 8-way unrolled inner product, kept as the measured
// alternative and as the reference in tests.
func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		s0 += a[i]*b[i] + a[i+4]*b[i+4]
		s1 += a[i+1]*b[i+1] + a[i+5]*b[i+5]
		s2 += a[i+2]*b[i+2] + a[i+6]*b[i+6]
		s3 += a[i+3]*b[i+3] + a[i+7]*b[i+7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// prepare validates vec and returns the copy that is stored or searched with.
func prepare(vec []float32, dim int, metric Metric) ([]float32, error) {
	if dim < 1 {
		return nil, ErrInvalidDimension
	}
	if len(vec) != dim {
		return nil, ErrDimensionMismatch
	}
	out := make([]float32, dim)
	return out, prepareInto(out, vec, metric)
}

// prepareInto validates vec (len(vec) == len(dst)) and writes the stored form
// into dst: a copy, normalised under Cosine. The fast path checks NaN and Inf
// through the SIMD self dot product (any NaN or Inf makes it non-finite); only
// then, or on float32 overflow, does it fall back to an exact scalar check.
func prepareInto(dst, vec []float32, metric Metric) error {
	copy(dst, vec)
	n := float64(dot(dst, dst))
	if math.IsNaN(n) || math.IsInf(n, 0) {
		var sum float64
		for _, f := range vec {
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return ErrInvalidVector
			}
			sum += float64(f) * float64(f)
		}
		n = sum // finite values whose squares overflowed float32
	}
	if metric == Cosine {
		if n == 0 {
			return ErrInvalidVector
		}
		vek32.MulNumber_Inplace(dst, float32(1/math.Sqrt(n)))
	}
	return nil
}
