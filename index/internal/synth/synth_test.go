package synth

import (
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

func TestDeterministic(t *testing.T) {
	a, b := New(1, 250, 16), New(1, 250, 16)
	if a.Text(7) != b.Text(7) || a.Query(3, 100) != b.Query(3, 100) {
		t.Fatal("same seed, different text")
	}
	if n := len(strings.Fields(a.Text(7))); n < 125 || n > 375 {
		t.Fatalf("passage of %d words", n)
	}
	t.Log(a.Text(7)[:200], "|", a.Query(3, 100))
}

func BenchmarkText(b *testing.B) {
	c := New(1, 250, 16)
	for i := range b.N {
		c.Text(uint64(i))
	}
}

func TestParallelCallsEachIndexOnceAndJoinsErrors(t *testing.T) {
	const n = 1000
	var seen [n]atomic.Int32
	if err := Parallel(n, func(i int) error { seen[i].Add(1); return nil }); err != nil {
		t.Fatal(err)
	}
	for i := range seen {
		if got := seen[i].Load(); got != 1 {
			t.Fatalf("index %d called %d times, want 1", i, got)
		}
	}
	bad := errors.New("bad index")
	err := Parallel(n, func(i int) error {
		if i == 500 {
			return bad
		}
		return nil
	})
	if !errors.Is(err, bad) {
		t.Fatalf("Parallel = %v, want it to wrap %v", err, bad)
	}
}

func TestSizesFromList(t *testing.T) {
	t.Setenv("MCPVEC_BENCH_SIZES", "100k, 300K,1m,2500,x,-3")
	got := Sizes()
	want := []int{100_000, 300_000, 1_000_000, 2500}
	if !slices.Equal(got, want) {
		t.Fatalf("Sizes() = %v, want %v", got, want)
	}
}
