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
// segments. A change between the two writes the whole segment again in
// the Save.
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
		if change {
			texts[5000] = "a passage added between the steps and the save"
			ix.Add(5000, texts[5000])
		}
		last := &sizedKV{KV: kv}
		if err := ix.Save(last); err != nil {
			t.Fatal(err)
		}
		if !change && last.bytes > segChunkSize {
			t.Errorf("the Save after the steps put %d bytes, want only the manifest and dictionary", last.bytes)
		}
		m, err := decodeManifest(kv.Get(segMetaKey))
		if err != nil {
			t.Fatal(err)
		}
		want := int(chunksOf(m.tablesLen()) + chunksOf(m.fwdLen) + chunksOf(m.postLen))
		if p, c := keysOf(kv); p != 0 || c != want {
			t.Errorf("change %v: %d records and %d chunks left, want 0 and %d", change, p, c, want)
		}
		saveReloads(t, ix, kv, texts)
	}
}
