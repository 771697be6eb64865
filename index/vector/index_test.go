package vector

import (
	"errors"
	"math"
	"reflect"
	"testing"
)

func TestAddSearchErrors(t *testing.T) {
	x := New(3, Config{})
	if err := x.Add(1, []float32{1, 2}); !errors.Is(err, ErrDimensionMismatch) {
		t.Fatalf("short vector: got %v", err)
	}
	if err := x.Add(1, []float32{1, float32(math.NaN()), 0}); !errors.Is(err, ErrInvalidVector) {
		t.Fatalf("NaN: got %v", err)
	}
	if err := x.Add(1, []float32{1, float32(math.Inf(-1)), 0}); !errors.Is(err, ErrInvalidVector) {
		t.Fatalf("Inf: got %v", err)
	}
	if err := x.Add(9, []float32{3e20, 4e20, 0}); err != nil { // squares overflow float32
		t.Fatalf("huge finite vector: %v", err)
	}
	if rs, _ := x.SearchExact([]float32{3, 4, 0}, 1); len(rs) != 1 || math.Abs(float64(rs[0].Score)-1) > 1e-6 {
		t.Fatalf("huge vector not normalised: %v", rs)
	}
	x.Delete(9)
	if err := x.Add(1, []float32{0, 0, 0}); !errors.Is(err, ErrInvalidVector) {
		t.Fatalf("zero vector under cosine: got %v", err)
	}
	if _, err := x.Search([]float32{1}, 3); !errors.Is(err, ErrDimensionMismatch) {
		t.Fatalf("short query: got %v", err)
	}
	if rs, err := x.Search([]float32{1, 0, 0}, 3); err != nil || len(rs) != 0 {
		t.Fatalf("empty index: got %v, %v", rs, err)
	}
	if err := New(0, Config{}).Add(1, nil); !errors.Is(err, ErrInvalidDimension) {
		t.Fatalf("dim 0: got %v", err)
	}
	if x.Len() != 0 || x.Has(1) {
		t.Fatalf("failed adds must not insert: len %d", x.Len())
	}
	d := New(3, Config{Metric: Dot})
	if err := d.Add(1, []float32{0, 0, 0}); err != nil {
		t.Fatalf("zero vector under dot: %v", err)
	}
}

func TestScoresAndOrder(t *testing.T) {
	for _, exactBelow := range []int{1 << 30, -1} { // exact path, graph path
		x := New(2, Config{ExactBelow: exactBelow})
		vecs := map[uint64][]float32{1: {1, 0}, 2: {0, 1}, 3: {1, 1}, 4: {-1, 0}}
		for id, v := range vecs {
			if err := x.Add(id, v); err != nil {
				t.Fatal(err)
			}
		}
		rs, err := x.Search([]float32{2, 0}, 10)
		if err != nil {
			t.Fatal(err)
		}
		ids := []uint64{}
		for _, r := range rs {
			ids = append(ids, r.ID)
		}
		if want := []uint64{1, 3, 2, 4}; !reflect.DeepEqual(ids, want) {
			t.Fatalf("exactBelow %d: order %v, want %v", exactBelow, ids, want)
		}
		if math.Abs(float64(rs[1].Score)-1/math.Sqrt2) > 1e-6 || rs[0].Score < 0.99999 {
			t.Fatalf("cosine scores %v", rs)
		}
	}
}

func TestUpdateReplaces(t *testing.T) {
	d := clustered(2000, 0, 32, 10, 1)
	x := mustBuild(t, d, Config{ExactBelow: -1, Seed: 2})
	target := d.vecs[1999]
	for i := uint64(0); i < 100; i++ { // move 100 ids onto new vectors
		v := append([]float32(nil), target...)
		v[i%32] += 0.01 * float32(i+1)
		if err := x.Add(i, v); err != nil {
			t.Fatal(err)
		}
	}
	if x.Len() != 2000 {
		t.Fatalf("len %d after updates, want 2000", x.Len())
	}
	checkInvariants(t, x)
	rs, err := x.SearchEf(target, 50, 200)
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, r := range rs {
		if r.ID < 100 {
			moved++
		}
	}
	if moved < 45 {
		t.Fatalf("only %d of the 100 updated ids are among the 50 nearest to their new position", moved)
	}
	// The old position of id 0 must not return id 0 any more with its old score.
	rs, _ = x.SearchExact(d.vecs[0], 1)
	if rs[0].ID == 0 && rs[0].Score > 0.9999 {
		t.Fatalf("id 0 still found at its old vector: %v", rs)
	}
}

func TestDeleteKeepsSearchCorrect(t *testing.T) {
	d := clustered(2400, 100, 32, 20, 3)
	x := mustBuild(t, d, Config{ExactBelow: -1, Seed: 4})
	if x.Delete(99999) {
		t.Fatal("deleting an absent id reported true")
	}
	for i := 0; i < 2400; i += 2 { // delete half, repair runs along the way
		if !x.Delete(uint64(i)) {
			t.Fatalf("delete %d reported absent", i)
		}
		if x.Has(uint64(i)) {
			t.Fatalf("Has(%d) after delete", i)
		}
	}
	if x.Len() != 1200 {
		t.Fatalf("len %d, want 1200", x.Len())
	}
	checkInvariants(t, x)
	got := searchAll(t, x, d.queries, 10, 64)
	for _, rs := range got {
		for _, r := range rs {
			if r.ID%2 == 0 {
				t.Fatalf("deleted id %d returned", r.ID)
			}
		}
	}
	want := truth(t, x, d.queries, 10)
	if r := recall(want, got); r < 0.9 {
		t.Fatalf("recall after deleting half = %.3f, want >= 0.9", r)
	}
	// Deleting everything leaves an empty, usable index.
	for i := 1; i < 2400; i += 2 {
		x.Delete(uint64(i))
	}
	x.mu.Lock()
	x.repair()
	x.mu.Unlock()
	checkInvariants(t, x)
	if rs, _ := x.SearchEf(d.queries[0], 5, 10); len(rs) != 0 {
		t.Fatalf("search on emptied index returned %v", rs)
	}
	if err := x.Add(7, d.vecs[7]); err != nil {
		t.Fatal(err)
	}
	if rs, _ := x.SearchEf(d.vecs[7], 1, 10); len(rs) != 1 || rs[0].ID != 7 {
		t.Fatalf("re-added id not found: %v", rs)
	}
}

func TestDeterministicWithSeed(t *testing.T) {
	d := clustered(1500, 20, 16, 8, 5)
	a := mustBuild(t, d, Config{Seed: 9, ExactBelow: -1})
	b := mustBuild(t, d, Config{Seed: 9, ExactBelow: -1})
	if !reflect.DeepEqual(a.links0, b.links0) || !reflect.DeepEqual(a.levels, b.levels) {
		t.Fatal("same seed and insert order built different graphs")
	}
	if !reflect.DeepEqual(searchAll(t, a, d.queries, 10, 32), searchAll(t, b, d.queries, 10, 32)) {
		t.Fatal("same seed gave different results")
	}
}

func TestDotMatchesReference(t *testing.T) {
	d := clustered(10, 0, 1543, 2, 1)
	for i := 1; i < 10; i++ {
		a, b := d.vecs[0][:i*171], d.vecs[i][:i*171]
		var ref float64
		for j := range a {
			ref += float64(a[j]) * float64(b[j])
		}
		for name, f := range map[string]func(a, b []float32) float32{"vek": dot, "go": dotGo} {
			if got := float64(f(a, b)); math.Abs(got-ref) > 1e-3*math.Max(1, math.Abs(ref)) {
				t.Fatalf("%s dot len %d = %v, want %v", name, len(a), got, ref)
			}
		}
	}
}
