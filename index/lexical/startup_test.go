package lexical

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/mcpvec/mcpvec/index/indextest"
)

// countSlotBuilds counts each index's builds of its map from id to slot
// for the rest of the test, with the background build off.
func countSlotBuilds(t *testing.T) (builds func(*Index) int) {
	t.Helper()
	var mu sync.Mutex
	counts := map[*Index]int{}
	count := func(ix *Index) {
		mu.Lock()
		defer mu.Unlock()
		counts[ix]++
	}
	noSlotsSoon.Store(true)
	slotsBuilt.Store(&count)
	t.Cleanup(func() { noSlotsSoon.Store(false); slotsBuilt.Store(nil) })
	return func(ix *Index) int {
		mu.Lock()
		defer mu.Unlock()
		return counts[ix]
	}
}

// TestLoadSyncedLeavesSlotsUnbuilt: a load of a KV in step with its
// passages does no lookup by passage id, so it neither builds the map from
// id to slot nor reads it (at 1M passages a third of the load's CPU);
// searches without a filter never need it, and the first filtered search
// or change builds it once, with the same results as a fresh index.
func TestLoadSyncedLeavesSlotsUnbuilt(t *testing.T) {
	builds := countSlotBuilds(t)
	smallSegments(t, 16)
	texts, _, kv := savedCorpus(t, 3, 500)
	ix, st, err := LoadSynced(InPlace(mappedKV{kv}), DefaultConfig(), idsOf(texts), nil)
	if err != nil || st != (LoadStats{Loaded: len(texts)}) {
		t.Fatalf("LoadSynced = %+v, %v", st, err)
	}
	for _, q := range segmentQueries {
		ix.Search(q, 10)
	}
	if ix.slot != nil || builds(ix) != 0 {
		t.Fatalf("the load and searches built the id map (%d entries, %d builds), want none", len(ix.slot), builds(ix))
	}
	ids := slices.Sorted(func(yield func(uint64) bool) {
		for id := range texts {
			if !yield(id) {
				return
			}
		}
	})
	f := &idFilter{set: map[uint64]bool{}, few: ids[:7]}
	for _, id := range f.few {
		f.set[id] = true
	}
	fresh := indexOf(texts)
	for _, q := range segmentQueries {
		if got, want := ix.SearchIn(q, 5, f), fresh.SearchIn(q, 5, f); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("SearchIn(%q) = %v, fresh index %v", q, got, want)
		}
	}
	gone := ids[len(ids)/2]
	if !ix.Delete(gone) {
		t.Errorf("Delete(%d) = false", gone)
	}
	delete(texts, gone)
	if n := builds(ix); n != 1 {
		t.Errorf("the id map was built %d times, want once", n)
	}
	sameAsFresh(t, ix, texts)
}

// TestLoadSyncedWithRecords: records and tombstones beside a segment are
// reconciled by LoadSynced exactly as by LoadIDs, which looks every
// passage up by id.
func TestLoadSyncedWithRecords(t *testing.T) {
	smallSegments(t, 16)
	texts, ix, kv := savedCorpus(t, 5, 300)
	ids := slices.Sorted(func(yield func(uint64) bool) {
		for id := range texts {
			if !yield(id) {
				return
			}
		}
	})
	for i, id := range ids[:20] {
		if i%2 == 0 {
			ix.Delete(id)
			delete(texts, id)
		} else {
			texts[id] = "replaced kernel memory leak text " + fmt.Sprint(i)
			ix.Add(id, texts[id])
		}
	}
	texts[9000] = "a new passage about the socket7 parser"
	ix.Add(9000, texts[9000])
	if err := ix.Save(kv); err != nil {
		t.Fatal(err)
	}
	if _, segment := ix.SavePlan(); segment {
		t.Fatal("the changes were folded into a new segment: no records to test")
	}
	for _, load := range []func(*indextest.KV) (*Index, LoadStats, error){
		func(kv *indextest.KV) (*Index, LoadStats, error) {
			return LoadSynced(InPlace(mappedKV{kv}), DefaultConfig(), idsOf(texts), nil)
		},
		func(kv *indextest.KV) (*Index, LoadStats, error) {
			return LoadIDs(kv, DefaultConfig(), idsOf(texts), nil)
		},
	} {
		got, st, err := load(kv)
		if err != nil || st.Tokenized != 0 || st.Loaded != len(texts) {
			t.Fatalf("load = %+v, %v; want %d loaded", st, err, len(texts))
		}
		sameAsFresh(t, got, texts)
	}
}

// TestDistinctDense: repeated ids are found with one bit per id, and a
// span too wide for that is left to the map.
func TestDistinctDense(t *testing.T) {
	docs := func(ids ...uint64) []docEntry {
		d := make([]docEntry, len(ids))
		for i, id := range ids {
			d[i].id = id
		}
		return d
	}
	for _, c := range []struct {
		ids          []uint64
		distinct, ok bool
	}{
		{nil, true, true},
		{[]uint64{7}, true, true},
		{[]uint64{5, 3, 9, 4, 70, 6}, true, true},
		{[]uint64{5, 3, 9, 4, 70, 9}, false, true},
		{[]uint64{1, 1 << 40}, false, false},
	} {
		distinct, ok := distinctDense(docs(c.ids...))
		if distinct != c.distinct || ok != c.ok {
			t.Errorf("distinctDense(%v) = %v, %v; want %v, %v", c.ids, distinct, ok, c.distinct, c.ok)
		}
	}
}
