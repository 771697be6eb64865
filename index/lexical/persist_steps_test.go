package lexical

import (
	"testing"

	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/index/indextest"
)

// sizedKV counts the bytes put into a KV, as a transaction would hold them
// until it commits.
type sizedKV struct {
	index.KV
	bytes int
}

func (k *sizedKV) Put(key, v []byte) error { k.bytes += len(v); return k.KV.Put(key, v) }

// TestPrewriteSegmentInSteps: a segment written ahead of Save in steps
// (PrewriteSegment), each step holding at most stepBytes and a chunk,
// leaves the KV holding that segment alone (no records, no chunk of the
// old one) once the Save after it wrote only the manifest and the
// dictionary, and loads as the passages; between steps a Load ignores the
// half-written segment and tokenises its passages rather than mixing two
// segments. Changes between the two (a passage added, one of the
// segment's deleted, one replaced) are saved as records and tombstones
// beside the segment the steps wrote: the Save still puts no more than a
// chunk. Before, any change made that Save write the whole segment again
// in its one transaction (docs/benchmarks/ingest-spikes.md).
func TestPrewriteSegmentInSteps(t *testing.T) {
	smallSegments(t, 16)
	old := stepBytes
	stepBytes = 3 * 4096
	t.Cleanup(func() { stepBytes = old })
	for _, change := range []bool{false, true} {
		texts, ix, kv := savedCorpus(t, 7, 400)
		churn(texts, ix, 3)
		for id := uint64(110); id < 260; id++ { // a smaller segment than the one stored: its last chunks go
			delete(texts, id)
			ix.Delete(id)
		}
		ix.Fold()
		steps, most := 0, 0
		err := ix.PrewriteSegment(func(write func(kv index.KV) error) error {
			if steps > 0 {
				mid, st, err := Load(kv.Clone(), DefaultConfig(), indextest.Sorted(texts))
				if err != nil || st.Reason == nil || mid.Len() != len(texts) {
					t.Fatalf("Load between steps: %+v, %v, %d passages; want the segment ignored and %d passages", st, err, mid.Len(), len(texts))
				}
			}
			steps++
			sk := &sizedKV{KV: kv}
			err := write(sk)
			most = max(most, sk.bytes)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if steps < 3 || most > stepBytes+segChunkSize {
			t.Errorf("%d steps, the largest %d bytes; want several of at most %d", steps, most, stepBytes+segChunkSize)
		}
		wantRecords := 0
		if change {
			changeAfterSteps(texts, ix)
			wantRecords = 3
		}
		if got, _ := ix.SavePlan(); got < wantRecords || got > 4 {
			t.Errorf("change %v: SavePlan says %d records, want %d to 4", change, got, wantRecords)
		}
		last := &sizedKV{KV: kv}
		if err := ix.Save(last); err != nil {
			t.Fatal(err)
		}
		if last.bytes > segChunkSize {
			t.Errorf("change %v: the Save after the steps put %d bytes, want only the manifest, dictionary and records", change, last.bytes)
		}
		sameAsFresh(t, ix, texts)
		m, err := decodeManifest(kv.Get(segMetaKey))
		if err != nil {
			t.Fatal(err)
		}
		want := int(chunksOf(m.tablesLen()) + chunksOf(m.fwdLen) + chunksOf(m.postLen))
		if p, c := keysOf(kv); p != wantRecords || c != want {
			t.Errorf("change %v: %d records and %d chunks left, want %d and %d", change, p, c, wantRecords, want)
		}
		saveReloads(t, ix, kv, texts)
	}
}

// changeAfterSteps adds a passage, deletes one of the segment's and
// replaces another of its passages' text: three records or tombstones.
func changeAfterSteps(texts map[uint64]string, ix *Index) {
	texts[5000] = "a passage added between the steps and the save"
	ix.Add(5000, texts[5000])
	delete(texts, 300)
	ix.Delete(300)
	texts[301] = "kernel memory leak replaced between the steps and the save"
	ix.Add(301, texts[301])
}
