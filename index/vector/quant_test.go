package vector

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestDotInt8MatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 200; n++ {
		a, b := make([]int8, n), make([]int8, n+3)
		for i := range a {
			a[i] = int8(r.IntN(255) - 127)
		}
		for i := range b {
			b[i] = int8(r.IntN(255) - 127)
		}
		if n == 150 {
			for i := range a {
				a[i], b[i] = -127, -127 // the largest products
			}
		}
		if got, want := dotInt8(a, b), dotInt8Go(a, b); got != want {
			t.Fatalf("n %d: dotInt8 %d, Go %d", n, got, want)
		}
	}
}

func TestQuantizeError(t *testing.T) {
	d := clustered(50, 0, 1024, 3, 5)
	for _, v := range d.vecs {
		u, _ := prepare(v, len(v), Cosine)
		w, _ := prepare(d.vecs[0], len(v), Cosine)
		qu, qw := qvec{make([]int8, len(u)), 0}, qvec{make([]int8, len(w)), 0}
		qu.scale, qw.scale = quantize(qu.codes, u), quantize(qw.codes, w)
		if e := math.Abs(float64(approx(qu, qw) - dot(u, w))); e > 0.01 {
			t.Fatalf("int8 dot off by %g", e)
		}
	}
}

func BenchmarkDotInt8(b *testing.B) {
	for _, dim := range []int{384, 1024} {
		x, y := make([]int8, dim), make([]int8, dim)
		for i := range x {
			x[i], y[i] = int8(i), int8(-i)
		}
		benchKernels(b, map[string]func(a, b []int8) int32{"avx2": dotInt8, "go": dotInt8Go}, x, y)
	}
}

func TestQuantizeRounds(t *testing.T) {
	v := []float32{1, -1, 0.5, -0.5, 0.25, 0, 1.0 / 254, -1.0 / 254}
	dst := make([]int8, len(v))
	if s := quantize(dst, v); s != 1.0/127 {
		t.Fatalf("scale %g, want 1/127", s)
	}
	if got, want := fmt.Sprint(dst), "[127 -127 64 -64 32 0 1 -1]"; got != want {
		t.Fatalf("codes %s, want %s", got, want)
	}
}

func BenchmarkQuantize(b *testing.B) {
	d := clustered(1, 0, 1024, 1, 1)
	dst := make([]int8, 1024)
	for range b.N {
		quantize(dst, d.vecs[0])
	}
}
