package lexical

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/index/indextest"
)

// TestAdoptSegment: Adopt makes the index read its passages' terms and
// lists in the segment its last segment Save wrote (in place), also with
// passages added and removed since and records saved beside it; searches
// stay exactly those of a fresh index, and the next segment is written
// from the bytes read in place and adopted again. A KV not read in place,
// or holding another index's segment, adopts nothing.
func TestAdoptSegment(t *testing.T) {
	for _, chunk := range []int{64, 1 << 20} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			smallSegments(t, 16)
			segChunkSize = chunk
			texts, ix, kv := savedCorpus(t, 7, 400)
			_, _, other := savedCorpus(t, 8, 400)
			for _, kv := range []index.KV{kv, InPlace(mappedKV{other})} {
				if ok, err := ix.Adopt(kv); ok || err != nil {
					t.Fatalf("Adopt of a KV not read in place or of another index = %v, %v; want false", ok, err)
				}
			}
			churn(texts, ix, 3) // changes since the Save
			wantAdopt(t, ix, kv, indextest.NewKV(), texts)
			rng := rand.New(rand.NewPCG(9, 9))
			for i := range 300 {
				id := uint64(2000 + i)
				texts[id] = randomText(rng, 5+rng.IntN(30))
				ix.Add(id, texts[id])
			}
			old := kv.Clone()
			if err := ix.Save(kv); err != nil { // a segment written from the one read in place
				t.Fatal(err)
			}
			wantAdopt(t, ix, kv, old, texts)
			texts[9000] = "one passage saved as a record beside the segment"
			ix.Add(9000, texts[9000])
			if err := ix.Save(kv); err != nil {
				t.Fatal(err)
			}
			wantAdopt(t, ix, kv, indextest.NewKV(), texts)
			saveReloads(t, ix, kv, texts)
		})
	}
}

// wantAdopt adopts kv's segment in place and checks that most terms and
// lists then lie in kv's chunks and searches are those
// of a fresh index of texts, also once old's segment (the one read in
// place before) is overwritten.
func wantAdopt(t *testing.T, ix *Index, kv, old *indextest.KV, texts map[uint64]string) {
	t.Helper()
	if ok, err := ix.Adopt(InPlace(mappedKV{kv})); !ok || err != nil {
		t.Fatalf("Adopt = %v, %v; want true", ok, err)
	}
	sameAsFresh(t, ix, texts)
	terms, lists := aliased(ix, kv)
	if terms < len(texts)/5 || lists < len(ix.post)/5 || len(ix.InPlaceBytes()) == 0 {
		t.Errorf("adopted: %d of %d passages' terms and %d of %d lists in place", terms, len(texts), lists, len(ix.post))
	}
	scribble(old) // the segment read before is no longer read
	sameAsFresh(t, ix, texts)
}

// TestAdoptedListsGrowInTails: postings added to lists read in place go
// to tails of their own (the list is not copied), the last block's bytes
// moved there when it was not full, as do postings added between the Save
// and Adopt; every way of searching reads
// across the two parts as one list: results, scores and ties as a fresh
// index's, for top-k below and above the pruning's limit.
func TestAdoptedListsGrowInTails(t *testing.T) {
	smallSegments(t, 16)
	rng := rand.New(rand.NewPCG(3, 4))
	texts := make(map[uint64]string)
	for i := range 700 { // "common" and "often" in long lists of several blocks
		texts[uint64(100+i)] = fmt.Sprintf("common %s often %s", randomText(rng, 3+rng.IntN(8)), randomText(rng, 2))
	}
	ix, kv := indexOf(texts), indextest.NewKV()
	if err := ix.Save(kv); err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		if i == 60 { // postings added before it, in blocks the segment ends inside, go to tails
			if ok, err := ix.Adopt(InPlace(mappedKV{kv})); !ok || err != nil {
				t.Fatalf("Adopt = %v, %v", ok, err)
			}
		}
		id := uint64(5000 + i)
		texts[id] = fmt.Sprintf("common %s often", randomText(rng, 2+rng.IntN(6)))
		ix.Add(id, texts[id])
	}
	terms, lists := aliased(ix, kv)
	p := &ix.post[ix.termIDs["common"]]
	if terms < 600 || lists == 0 || len(p.tail) == 0 || len(p.data) == 0 || len(p.blocks) < 5 {
		t.Fatalf("after adds: %d terms, %d lists in place; common: %d bytes in place, %d in its tail, %d blocks",
			terms, lists, len(p.data), len(p.tail), len(p.blocks))
	}
	fresh := indexOf(texts)
	for _, q := range []string{"common", "common often", "often alpha1", "common beta2 gamma3"} {
		for _, k := range []int{5, 10, 60, 1000} {
			got, want := ix.Search(q, k), fresh.Search(q, k)
			if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(ix.searchExhaustive(q, k)) != fmt.Sprint(want) {
				t.Errorf("Search(%q, %d) = %v\nwant %v", q, k, got, want)
			}
		}
	}
	saveReloads(t, ix, kv, texts)
}
