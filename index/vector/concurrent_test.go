package vector

import (
	"sync"
	"testing"
)

// lockedSource is a Source that Adds and searches may use at once.
type lockedSource struct {
	mu   sync.RWMutex
	vecs map[uint64][]float32
}

func (l *lockedSource) Vectors(ids []uint64, fn func(int, []float32)) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	for i, id := range ids {
		if v, ok := l.vecs[id]; ok {
			fn(i, v)
		}
	}
	return nil
}

// add stores v under id in l, then in x.
func (l *lockedSource) add(x *Index, id uint64, v []float32) error {
	l.mu.Lock()
	l.vecs[id] = v
	l.mu.Unlock()
	return x.Add(id, v)
}

// TestConcurrentSearchAddDelete runs searches, inserts, updates and deletes
// at once, on a graph and on a Scan index (which frees deleted slots for
// reuse with no graph); run with -race. Loops are bounded.
func TestConcurrentSearchAddDelete(t *testing.T) {
	for _, scan := range []bool{false, true} {
		src := &lockedSource{vecs: map[uint64][]float32{}}
		cfg := Config{ExactBelow: 500, Seed: 1, Scan: scan}
		if scan {
			cfg.Source = src
		}
		concurrentChurn(t, New(24, cfg), src)
	}
}

func concurrentChurn(t *testing.T, x *Index, src *lockedSource) {
	d := clustered(3000, 50, 24, 12, 11)
	for i := 0; i < 1000; i++ {
		if err := src.add(x, uint64(i), d.vecs[i]); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := 0; w < 3; w++ { // writers: ids 1000.. in stripes
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 1000 + w; i < 3000; i += 3 {
				if err := src.add(x, uint64(i), d.vecs[i]); err != nil {
					errs <- err
					return
				}
				if i%7 == 0 {
					x.Delete(uint64(i - 500))
				}
				if i%11 == 0 { // update an existing id
					if err := src.add(x, uint64(i-300), d.vecs[i-299]); err != nil {
						errs <- err
						return
					}
				}
			}
		}(w)
	}
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				q := d.queries[(i+r)%len(d.queries)]
				if _, err := x.Search(q, 10); err != nil {
					errs <- err
					return
				}
				// Seeds being added, replaced and deleted meanwhile.
				seeds := []uint64{uint64(1000 + 7*i), uint64(500 + 7*i), uint64(700 + 11*i), 1 << 40}
				if _, err := x.SearchEfSeeded(q, 10, 32, seeds); err != nil {
					errs <- err
					return
				}
				if i%50 == 0 {
					if _, err := x.SearchExact(q, 5); err != nil {
						errs <- err
						return
					}
					x.Len()
					x.Has(uint64(i))
				}
			}
		}(r)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	x.mu.Lock()
	x.repair()
	x.mu.Unlock()
	checkInvariants(t, x)
	want := truth(t, x, d.queries, 10)
	if r := recall(want, searchAll(t, x, d.queries, 10, 64)); r < 0.9 {
		t.Fatalf("recall after concurrent churn = %.3f, want >= 0.9", r)
	}
}
